package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
)

// hostileFIFO makes a FIFO that nobody writes to; the cleanup unblocks a
// reader that waits on it (if the code under test did), so that a failing
// test ends.
func hostileFIFO(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	t.Cleanup(func() {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	return path
}

// runWithin runs the command in this process and fails the test if it
// takes longer than d (a read blocked on a FIFO).
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := mcountsim(args...)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(d):
		t.Fatalf("mcountsim %v blocked for %v", args, d)
	}
	return 0, "", ""
}

// Issue 20, first list: a FIFO with no writer, /dev/zero and a directory
// are refused at once by every command that reads a file, with one line
// naming the input.
func TestHostileNonRegularInputs(t *testing.T) {
	fifo := hostileFIFO(t)
	dir := t.TempDir()
	for _, in := range []struct{ path, kind string }{
		{fifo, "a named pipe"},
		{"/dev/zero", "a character device"},
		{dir, "a directory"},
	} {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"check", "--strategy-file", in.path}, "mcountsim check: --strategy-file " + in.path},
			{[]string{"replay", "--strategy-file", in.path, "--schedule", "1:1"}, "mcountsim replay: --strategy-file " + in.path},
			{[]string{"sites", in.path}, "mcountsim sites: " + in.path},
			{[]string{"merge", in.path}, "mcountsim merge: " + in.path},
		} {
			code, out, errOut := runWithin(t, 5*time.Second, c.args...)
			assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
			assert.Empty(t, out)
			assert.Equal(t, c.want+": not a regular file ("+in.kind+")\n", errOut, "%v", c.args)
		}
		done := make(chan error, 1)
		go func() {
			_, err := loadObject(in.path, kernel.ObjectConfig{Function: "f"})
			done <- err
		}()
		select {
		case err := <-done:
			require.EqualError(t, err, "--object "+in.path+": not a regular file ("+in.kind+")")
		case <-time.After(5 * time.Second):
			t.Fatalf("loadObject(%s) blocked", in.path)
		}
	}
}

func TestReadInputLimits(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	require.NoError(t, os.WriteFile(small, []byte("12345"), 0o644))
	data, err := readInput(small, "--x", 5)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(data))
	_, err = readInput(small, "--x", 4)
	assert.EqualError(t, err, "--x "+small+": 5 bytes, larger than the limit of 4 bytes")
	_, err = readInput(filepath.Join(dir, "missing"), "", 4)
	assert.EqualError(t, err, filepath.Join(dir, "missing")+": no such file or directory")
	assert.ErrorIs(t, err, os.ErrNotExist)
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(small, link))
	data, err = readInput(link, "", 5)
	require.NoError(t, err, "a symbolic link to a regular file is read")
	assert.Equal(t, "12345", string(data))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	_, err = readInput(filepath.Join(dir, "zero"), "", 5)
	assert.EqualError(t, err, filepath.Join(dir, "zero")+": not a regular file (a character device)")
}

// patchSectionSize sets sh_size of the section called name in an ELF image.
func patchSectionSize(t *testing.T, data []byte, name string, size uint64) {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	require.NoError(t, err)
	bo := ef.ByteOrder
	for i, s := range ef.Sections {
		if s.Name != name {
			continue
		}
		if ef.Class == elf.ELFCLASS64 {
			at := int(bo.Uint64(data[0x28:])) + i*int(bo.Uint16(data[0x3a:]))
			bo.PutUint64(data[at+32:], size)
		} else {
			at := int(bo.Uint32(data[0x20:])) + i*int(bo.Uint16(data[0x2e:]))
			bo.PutUint32(data[at+20:], uint32(size))
		}
		return
	}
	t.Fatalf("no section %s", name)
}

// hostileChildEnv carries the arguments of a command run by
// TestHostileChild in a child process.
const hostileChildEnv = "MCOUNTSIM_HOSTILE_CHILD"

// TestHostileChild is the child of runLimited: it runs one command (or
// "load-object PATH") and prints its exit status and the bytes allocated.
func TestHostileChild(t *testing.T) {
	spec := os.Getenv(hostileChildEnv)
	if spec == "" {
		t.Skip("the child process of TestHostileLargeInputs")
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil {
		fmt.Println("bad spec:", err)
		os.Exit(99)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, errOut := 0, ""
	switch args[0] {
	case "read-all": // what the commands did before: the limit must stop it
		data, err := os.ReadFile(args[1])
		fmt.Printf("read %d bytes: %v\n", len(data), err)
		os.Exit(0)
	case "load-object":
		if _, err := loadObject(args[1], kernel.ObjectConfig{Function: "f"}); err != nil {
			code, errOut = 2, err.Error()+"\n"
		}
	default:
		code, _, errOut = mcountsim(args...)
	}
	runtime.ReadMemStats(&after)
	fmt.Printf("code=%d alloc=%d\n%s", code, after.TotalAlloc-before.TotalAlloc, errOut)
	os.Exit(0)
}

// runLimited runs args in a child process under `ulimit -d` (512 MiB of
// data segment, which counts the heap Go maps: a process that reads a 2 GiB
// file dies; `ulimit -v` would also count the address space Go reserves,
// and fails at random) and returns the exit status, the bytes the command
// allocated and its stderr.
func runLimited(t *testing.T, args ...string) (code int, alloc uint64, stderr string) {
	t.Helper()
	out, err := limitedChild(t, args...)
	require.NoError(t, err, "child %v: %s", args, out)
	first, rest, _ := strings.Cut(out, "\n")
	_, err = fmt.Sscanf(first, "code=%d alloc=%d", &code, &alloc)
	require.NoError(t, err, "child output: %s", out)
	return code, alloc, rest
}

// limitedChild runs TestHostileChild under the limit and returns its output.
func limitedChild(t *testing.T, args ...string) (string, error) {
	t.Helper()
	spec, err := json.Marshal(args)
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	script := `exec "$0" "$@"`
	if !raceEnabled { // the race detector maps terabytes of shadow memory
		script = `ulimit -d 524288 && ` + script
	}
	// The child's own -test.timeout is the watchdog: a run that ignores its
	// --timeout panics there and fails the test through err. No wall-clock
	// assertion: on a loaded machine a 5 s budget may take far longer.
	cmd := exec.Command("bash", "-c", script, self, "-test.run=^TestHostileChild$", "-test.timeout=120s")
	cmd.Env = append(os.Environ(), hostileChildEnv+"="+string(spec), "GOMEMLIMIT=128MiB")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// Issue 20, first list: a sparse 2 GiB file of zeros and an ELF whose
// .text claims 1.9 GiB are refused quickly, in a child process under a
// memory limit, by every command, allocating a few MiB at most.
func TestHostileLargeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	dir := t.TempDir()
	zeros := filepath.Join(dir, "zeros")
	f, err := os.Create(zeros)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<30))
	require.NoError(t, f.Close())

	fixture, err := os.ReadFile("../../objfile/testdata/x86-fentry.o")
	require.NoError(t, err)
	bigText := filepath.Join(dir, "big-text.o")
	patched := append([]byte(nil), fixture...)
	patchSectionSize(t, patched, ".text", 1900<<20)
	require.NoError(t, os.WriteFile(bigText, patched, 0o644))
	// The same header in a sparse 2 GiB file: .text now fits in it.
	sparseText := filepath.Join(dir, "sparse-text.o")
	require.NoError(t, os.WriteFile(sparseText, patched, 0o644))
	require.NoError(t, os.Truncate(sparseText, 2<<30))

	if !raceEnabled {
		out, err := limitedChild(t, "read-all", zeros)
		require.Error(t, err, "the memory limit lets a 2 GiB read through: %s", out)
		require.Contains(t, out, "out of memory")
	}

	tooLarge := ": 2147483648 bytes, larger than the limit of "
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--strategy-file", zeros}, "mcountsim check: --strategy-file " + zeros + tooLarge + "1 MiB"},
		{[]string{"sites", zeros}, "mcountsim sites: " + zeros + tooLarge + "256 MiB"},
		{[]string{"merge", zeros}, "mcountsim merge: " + zeros + tooLarge + "64 MiB"},
		{[]string{"load-object", zeros}, "--object " + zeros + tooLarge + "256 MiB"},
		{[]string{"sites", bigText}, "mcountsim sites: " + bigText + `: section 1 (".text") at offset 0x40 size 0x76c00000 runs past the end of the file`},
		{[]string{"load-object", bigText}, "--object " + bigText + `: section 1 (".text") at offset 0x40 size 0x76c00000 runs past the end of the file`},
		{[]string{"sites", sparseText}, "mcountsim sites: " + sparseText + tooLarge + "256 MiB"},
	} {
		code, alloc, stderr := runLimited(t, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.Equal(t, c.want+"\n", stderr, "%v", c.args)
		assert.Less(t, alloc, uint64(16<<20), "%v: bytes allocated", c.args)
	}
}
