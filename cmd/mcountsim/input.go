package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/mcountsim/mcountsim/internal/regfile"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/objfile"
)

// Size limits of the files the commands read. A larger file is refused
// from its size, before it is read.
const (
	// maxObjectSize bounds an ELF file (check --object, sites): the
	// loader's own limit.
	maxObjectSize = objfile.MaxFileSize // 256 MiB
	// maxScenarioSize bounds a scenario file (--strategy-file).
	maxScenarioSize = 1 << 20 // 1 MiB
	// maxResultSize bounds a check --json document read by merge (an
	// UNSAFE one carries the counterexample's trace).
	maxResultSize = 64 << 20 // 64 MiB
)

// inputError is a file that cannot be read, as one line: "WHAT PATH:
// reason" (or "PATH: reason" when what is empty).
type inputError struct {
	what, path, reason string
	err                error
}

func (e *inputError) Error() string {
	if e.what == "" {
		return e.path + ": " + e.reason
	}
	return e.what + " " + e.path + ": " + e.reason
}

func (e *inputError) Unwrap() error { return e.err }

// openInput opens path for reading if it is a regular file of at most max
// bytes, and returns it with its size, without ever blocking (see package
// regfile). what names the input in errors ("--object").
func openInput(path, what string, max int64) (*os.File, int64, error) {
	fail := func(err error, format string, a ...any) (*os.File, int64, error) {
		return nil, 0, &inputError{what: what, path: path, reason: fmt.Sprintf(format, a...), err: err}
	}
	f, size, err := regfile.Open(path, max)
	var kind *regfile.KindError
	var big *regfile.SizeError
	switch {
	case errors.As(err, &kind):
		return fail(nil, "%v", kind)
	case errors.As(err, &big):
		return fail(nil, "%d bytes, larger than the limit of %s", big.Size, sizeName(max))
	case err != nil:
		return fail(err, "%s", pathReason(err))
	}
	return f, size, nil
}

// readInput reads the whole of a file that openInput accepts, at most max
// bytes even if it grows while it is read. "-" is standard input, read
// through the same limit.
func readInput(path, what string, max int64) ([]byte, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, _, err := openInput(path, what, max)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, &inputError{what: what, path: path, reason: pathReason(err), err: err}
	}
	if int64(len(data)) > max {
		return nil, &inputError{what: what, path: path, reason: "larger than the limit of " + sizeName(max)}
	}
	return data, nil
}

// loadObject reads the ELF object at path (--object) within maxObjectSize
// and links it; errors read "--object PATH: reason".
func loadObject(path string, cfg kernel.ObjectConfig) (*kernel.Object, error) {
	raw, err := readInput(path, "--object", maxObjectSize)
	if err != nil {
		return nil, err
	}
	o, err := kernel.LinkObject(path, raw, cfg)
	if err != nil {
		msg := strings.Join(strings.Fields(err.Error()), " ")
		return nil, &inputError{what: "--object", path: path, reason: strings.TrimPrefix(msg, path+": "), err: err}
	}
	return o, nil
}

// pathReason is the reason of an I/O error without the path that
// *fs.PathError repeats.
func pathReason(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// sizeName prints a limit: "256 MiB", "1 MiB", "4096 bytes".
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
