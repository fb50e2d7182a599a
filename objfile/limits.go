package objfile

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcountsim/mcountsim/internal/regfile"
)

// Limits of the loader. A file beyond one of them is refused with an error
// wrapping [ErrLimit] before anything sized by it is allocated, so that the
// memory a load takes is bounded whatever the file claims: about the size
// of the sections it reads (executable sections, site tables, their
// relocations, the symbol and string tables) plus a few hundred bytes per
// section, symbol and relocation.
const (
	// MaxFileSize is the largest file Open reads, and the most bytes of
	// section contents NewFile reads from an input of unknown size.
	MaxFileSize = 256 << 20
	// MaxSections is the largest section count (e_shnum, or the sh_size of
	// section 0 in a file with extended numbering).
	MaxSections = 1 << 18
	// MaxSymbols is the largest symbol table (entries of .symtab, or of
	// .dynsym in a stripped linked file).
	MaxSymbols = 1 << 21
	// MaxRelocs is the largest number of relocation entries read, summed
	// over the relocation sections that apply to executable sections and
	// site tables.
	MaxRelocs = 1 << 23
	// MaxSectionNames is the most bytes the section names may take
	// together (debug/elf copies each name out of .shstrtab, so many
	// headers naming one long string would multiply it).
	MaxSectionNames = 64 << 20
)

// openRegular opens path for reading if it is a regular file of at most
// max bytes, without ever blocking (see package regfile).
func openRegular(path string, max int64) (*os.File, int64, error) {
	f, size, err := regfile.Open(path, max)
	var kind *regfile.KindError
	var big *regfile.SizeError
	switch {
	case errors.As(err, &kind):
		return nil, 0, errorf(path, -1, ErrNotELF, "%v", kind)
	case errors.As(err, &big):
		return nil, 0, errorf(path, -1, ErrLimit, "%d bytes, larger than the limit of %d MiB", big.Size, max>>20)
	case err != nil:
		return nil, 0, pathError(path, err)
	}
	return f, size, nil
}

// elfHeader holds the fields of the ELF header the pre-check needs.
type elfHeader struct {
	phoff, shoff            uint64
	phentsize, phnum        uint64
	shentsize, shnum        uint64
	shstrndx                uint64
	is64                    bool
	bo                      binary.ByteOrder
	wantShent, wantPhent    uint64
	shOffField, shSizeField int // offsets of sh_offset and sh_size in a section header
}

// precheck reads the ELF header and section headers and refuses, before
// debug/elf sees the file, what would make debug/elf allocate or read
// beyond the limits: too many sections, header tables outside the file, a
// compressed or oversized section name table, and section names that add
// up to more than MaxSectionNames.
func (l *loader) precheck(class elf.Class, bo binary.ByteOrder) error {
	h := elfHeader{is64: class == elf.ELFCLASS64, bo: bo}
	var buf [64]byte
	hdrLen := 52
	if h.is64 {
		hdrLen = 64
	}
	if n, _ := l.r.ReadAt(buf[:hdrLen], 0); n < hdrLen {
		return l.errorf(int64(n), ErrCorrupt, "truncated ELF header")
	}
	u16 := func(off int) uint64 { return uint64(bo.Uint16(buf[off:])) }
	if h.is64 {
		h.phoff, h.shoff = bo.Uint64(buf[0x20:]), bo.Uint64(buf[0x28:])
		h.phentsize, h.phnum, h.shentsize, h.shnum, h.shstrndx = u16(0x36), u16(0x38), u16(0x3a), u16(0x3c), u16(0x3e)
		h.wantShent, h.wantPhent, h.shOffField, h.shSizeField = 64, 56, 24, 32
	} else {
		h.phoff, h.shoff = uint64(bo.Uint32(buf[0x1c:])), uint64(bo.Uint32(buf[0x20:]))
		h.phentsize, h.phnum, h.shentsize, h.shnum, h.shstrndx = u16(0x2a), u16(0x2c), u16(0x2e), u16(0x30), u16(0x32)
		h.wantShent, h.wantPhent, h.shOffField, h.shSizeField = 40, 32, 16, 20
	}
	if h.phnum > 0 {
		if err := l.inFile("program header table", h.phoff, h.phnum, h.phentsize); err != nil {
			return err
		}
	}
	if h.shoff == 0 {
		return nil // no section headers: load reports it
	}
	if h.shentsize < h.wantShent {
		return l.errorf(-1, ErrCorrupt, "section header size %d, want at least %d", h.shentsize, h.wantShent)
	}
	sh0, err := l.readAt(h.shoff, h.shentsize)
	if err != nil {
		return l.errorf(int64(h.shoff), ErrCorrupt, "reading section header 0: %v", err)
	}
	if h.shnum == 0 { // extended numbering: the count is section 0's sh_size
		h.shnum = h.word(sh0, h.shSizeField)
	}
	if h.shstrndx == uint64(elf.SHN_XINDEX) {
		h.shstrndx = uint64(bo.Uint32(sh0[h.shSizeField+h.wordSize():])) // sh_link
	}
	if h.shnum > MaxSections {
		return l.errorf(-1, ErrLimit, "%d sections, more than the limit of %d", h.shnum, MaxSections)
	}
	if err := l.inFile("section header table", h.shoff, h.shnum, h.shentsize); err != nil {
		return err
	}
	if h.shstrndx == 0 || h.shstrndx >= h.shnum {
		return nil // debug/elf reports a bad index; no names to read
	}
	shdrs, err := l.readAt(h.shoff, h.shnum*h.shentsize)
	if err != nil {
		return l.errorf(int64(h.shoff), ErrCorrupt, "reading the section headers: %v", err)
	}
	str := shdrs[h.shstrndx*h.shentsize:]
	if h.word(str, 8)&uint64(elf.SHF_COMPRESSED) != 0 {
		return l.errorf(-1, ErrCorrupt, "section name table (section %d) is compressed", h.shstrndx)
	}
	strOff, strSize := h.word(str, h.shOffField), h.word(str, h.shSizeField)
	if err := l.inFile("section name table", strOff, 1, strSize); err != nil {
		return err
	}
	names, err := l.readAt(strOff, strSize)
	if err != nil {
		return l.errorf(int64(strOff), ErrCorrupt, "reading the section name table: %v", err)
	}
	total := uint64(0)
	for i := uint64(0); i < h.shnum; i++ {
		start := uint64(bo.Uint32(shdrs[i*h.shentsize:]))
		if start >= uint64(len(names)) {
			continue
		}
		n := uint64(len(names)) - start
		for j, c := range names[start:] {
			if c == 0 {
				n = uint64(j)
				break
			}
		}
		if total += n; total > MaxSectionNames {
			return l.errorf(-1, ErrLimit, "section names take more than the limit of %d MiB", MaxSectionNames>>20)
		}
	}
	return nil
}

// wordSize is the size of an address-sized field.
func (h *elfHeader) wordSize() int {
	if h.is64 {
		return 8
	}
	return 4
}

// word reads an address-sized field (sh_flags, sh_offset, sh_size) at off.
func (h *elfHeader) word(b []byte, off int) uint64 {
	if h.is64 {
		return h.bo.Uint64(b[off:])
	}
	return uint64(h.bo.Uint32(b[off:]))
}

// inFile checks that a table of n entries of size each at off lies inside
// the input (or, when its size is unknown, inside MaxFileSize).
func (l *loader) inFile(what string, off, n, size uint64) error {
	limit := uint64(MaxFileSize)
	if l.size >= 0 {
		limit = uint64(l.size)
	}
	if size != 0 && n > limit/size || off > limit || n*size > limit-off {
		return l.errorf(-1, ErrCorrupt, "%s at offset %#x (%d entries of %d bytes) runs past the end of the file", what, off, n, size)
	}
	return nil
}

// readAt reads size bytes at off; the caller has checked them with inFile.
func (l *loader) readAt(off, size uint64) ([]byte, error) {
	if off > 1<<62 || size > MaxFileSize {
		return nil, fmt.Errorf("offset %#x or size %#x out of range", off, size)
	}
	buf := make([]byte, size)
	n, err := l.r.ReadAt(buf, int64(off))
	if n == len(buf) {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}
