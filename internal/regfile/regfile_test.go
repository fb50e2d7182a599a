package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO and a directory are refused without blocking, a file over the
// limit by its size, a missing one with the Stat error; a regular file
// within the limit opens with its size.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	small := filepath.Join(dir, "small")
	require.NoError(t, os.WriteFile(small, []byte("12345"), 0o600))

	_, _, err := Open(fifo, 10)
	var kind *KindError
	require.ErrorAs(t, err, &kind)
	assert.EqualError(t, err, "not a regular file (a named pipe)")
	_, _, err = Open(dir, 10)
	assert.EqualError(t, err, "not a regular file (a directory)")

	_, _, err = Open(small, 4)
	var big *SizeError
	require.ErrorAs(t, err, &big)
	assert.EqualError(t, err, "5 bytes, larger than the limit of 4 bytes")

	_, _, err = Open(filepath.Join(dir, "missing"), 10)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)

	f, size, err := Open(small, 5)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, int64(5), size)
}
