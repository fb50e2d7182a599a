// Package regfile opens the files mcountsim reads (ELF objects, scenario
// files, JSON results) without ever blocking on one that is not a
// regular file: a FIFO, a device, a socket or a directory is refused from
// its Stat before any open, the open itself is O_NONBLOCK (a FIFO put
// there since is not waited for), and the opened file is checked again.
//
// Imports: the standard library only.
package regfile

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// KindError is a file that is not a regular file.
type KindError struct{ Mode fs.FileMode }

// Error says what the file is: "not a regular file (a named pipe)".
func (e *KindError) Error() string { return "not a regular file (" + Kind(e.Mode) + ")" }

// SizeError is a file larger than the limit.
type SizeError struct{ Size, Limit int64 }

func (e *SizeError) Error() string {
	return strconv.FormatInt(e.Size, 10) + " bytes, larger than the limit of " + strconv.FormatInt(e.Limit, 10) + " bytes"
}

// Open opens path for reading if it is a regular file of at most max
// bytes, and returns it with its size. Its errors are a *KindError, a
// *SizeError, or the error of the Stat, open or Fstat (an *fs.PathError).
func Open(path string, max int64) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, &KindError{st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, &KindError{st.Mode()}
	}
	if st.Size() > max {
		f.Close()
		return nil, 0, &SizeError{st.Size(), max}
	}
	return f, st.Size(), nil
}

// Kind names the type of a file that is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}
