package objfile

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package is a *FormatError
// that wraps one of these (or, for I/O failures, the underlying error), so
// that errors.Is works.
var (
	// ErrNotELF means the input does not start with the ELF magic.
	ErrNotELF = errors.New("not an ELF file")
	// ErrUnsupportedMachine means a valid ELF file for a machine, class or
	// byte order this package does not handle.
	ErrUnsupportedMachine = errors.New("unsupported machine")
	// ErrNoSymbols means the file has no symbol table.
	ErrNoSymbols = errors.New("no symbol table")
	// ErrCorrupt means the file is malformed: truncated, a size or offset
	// out of range, an index that points nowhere.
	ErrCorrupt = errors.New("corrupt ELF file")
	// ErrLimit means the file is larger, or claims more sections, symbols,
	// relocations or name bytes, than the loader accepts (see MaxFileSize
	// and the other limits).
	ErrLimit = errors.New("beyond a limit of the loader")
)

// FormatError reports a problem with one input file.
type FormatError struct {
	File   string // file name as given to Open or NewFile
	Off    int64  // byte offset in the file where the problem was seen, or -1
	Reason string // one-line human-readable reason
	Err    error  // the sentinel (ErrCorrupt, …) or underlying error
}

// Error returns "FILE: reason" with the offset appended when it is known.
func (e *FormatError) Error() string {
	if e.Off >= 0 {
		return fmt.Sprintf("%s: %s (at file offset %#x)", e.File, e.Reason, e.Off)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

// Unwrap returns the sentinel or underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// errorf builds a *FormatError for file name at offset off (-1 if unknown).
func errorf(name string, off int64, sentinel error, format string, args ...any) *FormatError {
	return &FormatError{File: name, Off: off, Reason: fmt.Sprintf(format, args...), Err: sentinel}
}
