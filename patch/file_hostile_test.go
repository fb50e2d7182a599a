package patch_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/patch"
)

// ReadFile refuses a FIFO with no writer (without blocking), a device, a
// directory and a file over MaxFileSize (issue 20).
func TestReadFileHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	big := filepath.Join(dir, "big.strategy")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, 2<<30))
	for path, want := range map[string]string{
		fifo:        fifo + ": not a regular file",
		"/dev/zero": "/dev/zero: not a regular file",
		dir:         dir + ": not a regular file",
		big:         big + ": 2147483648 bytes, larger than the limit of 1048576 bytes",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := patch.ReadFile(path)
			done <- err
		}()
		select {
		case err := <-done:
			require.EqualError(t, err, want)
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", path)
		}
	}
}
