package objfile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
)

// Arch is the instruction set of a File.
type Arch uint8

// The supported architectures.
const (
	ArchUnknown Arch = iota
	ArchARM          // 32-bit ARM, A32 and Thumb-2
	ArchX86_64       // x86-64
	ArchARM64        // AArch64
	ArchRISCV64      // RISC-V 64
)

var archNames = [...]string{
	ArchUnknown: "unknown",
	ArchARM:     "arm",
	ArchX86_64:  "x86-64",
	ArchARM64:   "arm64",
	ArchRISCV64: "riscv64",
}

// String returns the short name of a: "arm", "x86-64", "arm64", "riscv64".
func (a Arch) String() string {
	if int(a) < len(archNames) {
		return archNames[a]
	}
	return fmt.Sprintf("Arch(%d)", uint8(a))
}

// MarshalText encodes a as its String.
func (a Arch) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// Names of the tables of site addresses.
const (
	McountLocSection      = "__mcount_loc"
	PatchableEntrySection = "__patchable_function_entries"
)

// File is a loaded ELF file. It holds everything site discovery needs, so
// it keeps no reference to its input and needs no Close.
type File struct {
	Name      string           // file name as given to Open or NewFile
	Arch      Arch             // instruction set
	Type      elf.Type         // ET_REL, ET_EXEC or ET_DYN
	Machine   elf.Machine      // e_machine
	Class     elf.Class        // ELFCLASS32 or ELFCLASS64
	ByteOrder binary.ByteOrder // byte order of the file
	Sections  []*Section       // every section, indexed by ELF section index
	Symbols   []Symbol         // the symbol table, indexed by ELF symbol index (0 is the null symbol)
	SymTab    int              // section index of the symbol table: .symtab, or .dynsym in a linked file without one

	relr bool // a linked file with packed relative relocations (SHT_RELR), which Sites does not read
}

// Section is one ELF section header, with its contents and relocations when
// it is an executable section or a site table.
type Section struct {
	Name    string
	Index   int
	Type    elf.SectionType
	Flags   elf.SectionFlag
	Addr    uint64 // sh_addr: 0 in relocatable objects
	Offset  uint64 // sh_offset
	Size    uint64 // sh_size
	Link    uint32
	Info    uint32
	Entsize uint64

	// Data holds the contents of executable sections and of the
	// __mcount_loc and __patchable_function_entries tables; it is nil for
	// every other section.
	Data []byte
	// Relocs holds the relocations that apply to this section (sorted by
	// offset), for sections whose Data is loaded.
	Relocs []Reloc
	// DynRelocs holds, for the site tables of a linked file, the dynamic
	// relocations (SHF_ALLOC REL and RELA sections such as .rela.dyn) whose
	// r_offset falls inside the table, sorted by offset. Their Offset is a
	// section offset, and their Sym indexes the dynamic symbol table, not
	// File.Symbols. A REL RELATIVE relocation (R_ARM_RELATIVE) takes its
	// addend from the table.
	DynRelocs []Reloc
}

// Executable reports whether s holds code (SHF_EXECINSTR with contents).
func (s *Section) Executable() bool {
	return s.Flags&elf.SHF_EXECINSTR != 0 && s.Type != elf.SHT_NOBITS
}

// Symbol is one symbol table entry.
type Symbol struct {
	Name    string
	Value   uint64 // st_value, with the Thumb bit cleared for ARM functions
	Size    uint64
	Type    elf.SymType
	Bind    elf.SymBind
	Section elf.SectionIndex // st_shndx
	Thumb   bool             // ARM function whose st_value had bit 0 set
}

// Reloc is one relocation entry.
type Reloc struct {
	Offset uint64 // r_offset: section offset (ET_REL) or address
	Type   uint32 // machine-specific type
	Sym    int    // symbol index into File.Symbols
	Addend int64  // RELA addend; for REL, the implicit addend read from the section data (R_ARM_ABS32, and RELATIVE in site tables), else 0
	RELA   bool   // the addend came from the relocation entry
}

// Open reads the ELF file at path. It refuses, without blocking, anything
// but a regular file (a FIFO, a device, a directory), and a file larger
// than MaxFileSize; it reads only the sections it needs.
func Open(path string) (*File, error) {
	f, size, err := openRegular(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return NewFile(io.NewSectionReader(f, 0, size), path)
}

func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &FormatError{File: path, Off: -1, Reason: pe.Err.Error(), Err: err}
	}
	return &FormatError{File: path, Off: -1, Reason: err.Error(), Err: err}
}

// NewFile reads an ELF file from r; name is used in errors and sites. If r
// has a Size() int64 method (bytes.Reader, io.SectionReader), every section
// is checked to lie inside the file before it is read. Every count taken
// from the file is checked against the limits (MaxSections, MaxSymbols,
// MaxRelocs, MaxSectionNames) before anything is allocated for it, and the
// section contents it reads add up to at most the file's size (at most
// MaxFileSize if the size is unknown).
func NewFile(r io.ReaderAt, name string) (f *File, err error) {
	defer recoverAsError(name, "loader", &err)
	size := int64(-1)
	if s, ok := r.(interface{ Size() int64 }); ok {
		size = s.Size()
	}
	budget := int64(MaxFileSize)
	if size >= 0 && size < budget {
		budget = size
	}
	l := &loader{name: name, r: r, size: size, budget: budget}
	f, err = l.load()
	return f, err
}

// recoverPanics turns a panic inside the package into an error at its
// boundary, the last line of defence against input the checks missed.
// Tests turn it off so that such a panic fails them.
var recoverPanics = true

// recoverAsError, deferred by the exported entry points, turns a panic into
// a *FormatError stored in *err.
func recoverAsError(name, where string, err *error) {
	if !recoverPanics {
		return
	}
	if p := recover(); p != nil {
		*err = errorf(name, -1, ErrCorrupt, "malformed file (%s panic: %v)", where, p)
	}
}

type loader struct {
	name string
	r    io.ReaderAt
	size int64 // -1 if unknown
	f    *File

	budget int64 // bytes of section contents still allowed to be read
	relocs int   // relocation entries read so far
}

func (l *loader) errorf(off int64, sentinel error, format string, args ...any) error {
	return errorf(l.name, off, sentinel, format, args...)
}

func (l *loader) load() (*File, error) {
	var ident [elf.EI_NIDENT]byte
	n, err := l.r.ReadAt(ident[:], 0)
	if n < 4 || !bytes.Equal(ident[:4], []byte(elf.ELFMAG)) {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &FormatError{File: l.name, Off: -1, Reason: err.Error(), Err: err}
		}
		return nil, l.errorf(-1, ErrNotELF, "not an ELF file (no \\x7fELF magic)")
	}
	if n < len(ident) {
		return nil, l.errorf(int64(n), ErrCorrupt, "truncated ELF header")
	}
	class, data := elf.Class(ident[elf.EI_CLASS]), elf.Data(ident[elf.EI_DATA])
	if class != elf.ELFCLASS32 && class != elf.ELFCLASS64 {
		return nil, l.errorf(int64(elf.EI_CLASS), ErrCorrupt, "unknown ELF class %d", uint8(class))
	}
	if data != elf.ELFDATA2LSB && data != elf.ELFDATA2MSB {
		return nil, l.errorf(int64(elf.EI_DATA), ErrCorrupt, "unknown ELF data encoding %d", uint8(data))
	}
	// e_machine sits at offset 18 in both classes: reject unsupported
	// machines and classes before debug/elf parses the rest.
	var hdr [20]byte
	if n, _ := l.r.ReadAt(hdr[:], 0); n == len(hdr) {
		bo := binary.ByteOrder(binary.LittleEndian)
		if data == elf.ELFDATA2MSB {
			bo = binary.BigEndian
		}
		if m := elf.Machine(bo.Uint16(hdr[18:])); archOf(m, class, data) == ArchUnknown {
			return nil, l.errorf(-1, ErrUnsupportedMachine, "unsupported machine %v (%v, %v)", m, class, data)
		}
	}
	hdrSize := int64(52)
	if class == elf.ELFCLASS64 {
		hdrSize = 64
	}
	if l.size >= 0 && l.size < hdrSize {
		return nil, l.errorf(l.size, ErrCorrupt, "truncated ELF header")
	}
	bo := binary.ByteOrder(binary.LittleEndian)
	if data == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	if err := l.precheck(class, bo); err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(l.r)
	if err != nil {
		return nil, l.elfError(err)
	}
	f := &File{
		Name:      l.name,
		Type:      ef.Type,
		Machine:   ef.Machine,
		Class:     ef.Class,
		ByteOrder: ef.ByteOrder,
	}
	l.f = f
	f.Arch = archOf(ef.Machine, ef.Class, ef.Data)
	if f.Arch == ArchUnknown {
		return nil, l.errorf(-1, ErrUnsupportedMachine, "unsupported machine %v (%v, %v)", ef.Machine, ef.Class, ef.Data)
	}
	if len(ef.Sections) == 0 {
		return nil, l.errorf(-1, ErrCorrupt, "no section headers")
	}
	if err := l.sections(ef); err != nil {
		return nil, err
	}
	if err := l.symbols(); err != nil {
		return nil, err
	}
	if err := l.relocations(); err != nil {
		return nil, err
	}
	return f, nil
}

// archOf returns the architecture of a machine, class and byte order, or
// ArchUnknown if this package does not support the combination.
func archOf(m elf.Machine, c elf.Class, d elf.Data) Arch {
	switch {
	case m == elf.EM_ARM && c == elf.ELFCLASS32:
		return ArchARM
	case m == elf.EM_X86_64 && c == elf.ELFCLASS64 && d == elf.ELFDATA2LSB:
		return ArchX86_64
	case m == elf.EM_AARCH64 && c == elf.ELFCLASS64:
		return ArchARM64
	case m == elf.EM_RISCV && c == elf.ELFCLASS64 && d == elf.ELFDATA2LSB:
		return ArchRISCV64
	}
	return ArchUnknown
}

// elfError turns an error from debug/elf into a *FormatError.
func (l *loader) elfError(err error) error {
	var fe *elf.FormatError
	if errors.As(err, &fe) {
		// debug/elf's messages read "msg 'val' at offset 0x.."; keep
		// them, they carry the offset.
		return l.errorf(-1, ErrCorrupt, "%s", fe.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return l.errorf(-1, ErrCorrupt, "truncated file")
	}
	return &FormatError{File: l.name, Off: -1, Reason: err.Error(), Err: err}
}

// isTable reports whether a section named name is a table of site addresses.
func isTable(name string) bool {
	return name == McountLocSection || name == PatchableEntrySection
}

func (l *loader) sections(ef *elf.File) error {
	f := l.f
	f.Sections = make([]*Section, len(ef.Sections))
	for i, es := range ef.Sections {
		s := &Section{
			Name:    es.Name,
			Index:   i,
			Type:    es.Type,
			Flags:   es.Flags,
			Addr:    es.Addr,
			Offset:  es.Offset,
			Size:    es.Size,
			Link:    es.Link,
			Info:    es.Info,
			Entsize: es.Entsize,
		}
		f.Sections[i] = s
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			continue
		}
		// The extent in the file: sh_size, the compressed size for a
		// compressed section (whose Size debug/elf reports uncompressed).
		if end := es.Offset + es.FileSize; end < es.Offset || (l.size >= 0 && end > uint64(l.size)) {
			return l.errorf(-1, ErrCorrupt, "section %d (%q) at offset %#x size %#x runs past the end of the file", i, s.Name, es.Offset, es.FileSize)
		}
		if s.Flags&elf.SHF_COMPRESSED != 0 && (s.Executable() || isTable(s.Name) || readByLoader(s.Type)) {
			return l.errorf(-1, ErrCorrupt, "section %d (%q) is compressed", i, s.Name)
		}
		if !s.Executable() && !isTable(s.Name) {
			continue
		}
		data, err := l.read(s.Offset, s.Size)
		if err != nil {
			return l.errorf(int64(s.Offset), readFailed(err), "reading section %d (%q): %v", i, s.Name, err)
		}
		s.Data = data
	}
	return nil
}

// limitError is a read refused by the budget: it wraps ErrLimit.
type limitError string

func (e limitError) Error() string        { return string(e) }
func (e limitError) Is(target error) bool { return target == ErrLimit }

// readFailed is the sentinel of a failed l.read: ErrLimit or ErrCorrupt.
func readFailed(err error) error {
	if errors.Is(err, ErrLimit) {
		return ErrLimit
	}
	return ErrCorrupt
}

// readByLoader reports whether the loader reads sections of type t whatever
// their name: symbol, string and relocation tables.
func readByLoader(t elf.SectionType) bool {
	switch t {
	case elf.SHT_SYMTAB, elf.SHT_DYNSYM, elf.SHT_STRTAB, elf.SHT_REL, elf.SHT_RELA:
		return true
	}
	return false
}

// read reads size bytes at off, refusing sizes past the end of the input
// and, in all, more bytes than the file holds (overlapping sections cannot
// make the loader read a byte twice over).
func (l *loader) read(off, size uint64) ([]byte, error) {
	if off+size < off || off > 1<<62 || size > 1<<62 {
		return nil, errors.New("offset or size out of range")
	}
	if l.size >= 0 && off+size > uint64(l.size) {
		return nil, errors.New("runs past the end of the file")
	}
	if size > uint64(l.budget) {
		if l.size < 0 || l.size > MaxFileSize {
			return nil, limitError(fmt.Sprintf("section contents add up to more than the limit of %d MiB", MaxFileSize>>20))
		}
		return nil, limitError("section contents add up to more than the file (overlapping sections)")
	}
	l.budget -= int64(size)
	return l.readAt(off, size) // size <= budget <= MaxFileSize
}

func (l *loader) symbols() error {
	f := l.f
	f.SymTab = -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_SYMTAB {
			f.SymTab = i
			break
		}
	}
	if f.SymTab < 0 && f.Type != elf.ET_REL {
		// A stripped linked file: fall back to the dynamic symbols.
		for i, s := range f.Sections {
			if s.Type == elf.SHT_DYNSYM {
				f.SymTab = i
				break
			}
		}
	}
	if f.SymTab < 0 {
		if f.Type != elf.ET_REL {
			return l.errorf(-1, ErrNoSymbols, "no symbol table (.symtab or .dynsym)")
		}
		return l.errorf(-1, ErrNoSymbols, "no symbol table (.symtab)")
	}
	st := f.Sections[f.SymTab]
	if int(st.Link) <= 0 || int(st.Link) >= len(f.Sections) || f.Sections[st.Link].Type != elf.SHT_STRTAB {
		return l.errorf(-1, ErrCorrupt, "symbol table's string table index %d is not a string table", st.Link)
	}
	syms, err := l.readSymbols(st, f.Sections[st.Link])
	if err != nil {
		return err
	}
	f.Symbols = make([]Symbol, 1, len(syms)+1)
	for i, sym := range syms {
		if sym.Section != elf.SHN_UNDEF && sym.Section < elf.SHN_LORESERVE && int(sym.Section) >= len(f.Sections) {
			return l.errorf(-1, ErrCorrupt, "symbol %d (%q) has section index %d, file has %d sections", i+1, sym.Name, sym.Section, len(f.Sections))
		}
		if f.Arch == ArchARM && sym.Type == elf.STT_FUNC && sym.Value&1 != 0 {
			sym.Value &^= 1
			sym.Thumb = true
		}
		f.Symbols = append(f.Symbols, sym)
	}
	return nil
}

// readSymbols decodes the symbol table st (without its null entry 0) with
// the names from its string table strs. The count is checked against
// MaxSymbols before anything is allocated for it, and every name is a
// substring of one copy of the string table, so that names cannot
// multiply its size.
func (l *loader) readSymbols(st, strs *Section) ([]Symbol, error) {
	entsize := uint64(16)
	if l.f.Class == elf.ELFCLASS64 {
		entsize = 24
	}
	at := int64(st.Offset)
	if st.Size == 0 {
		return nil, l.errorf(at, ErrNoSymbols, "empty symbol table")
	}
	if st.Size%entsize != 0 {
		return nil, l.errorf(at, ErrCorrupt, "symbol table size %#x is not a multiple of %d", st.Size, entsize)
	}
	if n := st.Size / entsize; n > MaxSymbols {
		return nil, l.errorf(at, ErrLimit, "symbol table of %d entries, more than the limit of %d", n, MaxSymbols)
	}
	data, err := l.read(st.Offset, st.Size)
	if err != nil {
		return nil, l.errorf(at, readFailed(err), "reading symbol table: %v", err)
	}
	raw, err := l.read(strs.Offset, strs.Size)
	if err != nil {
		return nil, l.errorf(int64(strs.Offset), readFailed(err), "reading symbol table's string table: %v", err)
	}
	names := string(raw)
	bo := l.f.ByteOrder
	syms := make([]Symbol, 0, len(data)/int(entsize)-1)
	for off := entsize; off < uint64(len(data)); off += entsize {
		e := data[off : off+entsize]
		var sym Symbol
		var info uint8
		name := uint64(bo.Uint32(e))
		if entsize == 24 {
			info, sym.Section = e[4], elf.SectionIndex(bo.Uint16(e[6:]))
			sym.Value, sym.Size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
		} else {
			sym.Value, sym.Size = uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
			info, sym.Section = e[12], elf.SectionIndex(bo.Uint16(e[14:]))
		}
		sym.Type, sym.Bind = elf.ST_TYPE(info), elf.ST_BIND(info)
		if name >= uint64(len(names)) {
			if name != 0 {
				return nil, l.errorf(at+int64(off), ErrCorrupt, "symbol %d's name offset %#x is past the end of its string table (size %#x)", off/entsize, name, len(names))
			}
		} else {
			n := strings.IndexByte(names[name:], 0)
			if n < 0 {
				return nil, l.errorf(at+int64(off), ErrCorrupt, "symbol %d's name is not NUL-terminated", off/entsize)
			}
			sym.Name = names[name : name+uint64(n)]
		}
		syms = append(syms, sym)
	}
	return syms, nil
}

// relocations parses the REL and RELA sections that apply to loaded sections.
func (l *loader) relocations() error {
	f := l.f
	for i, rs := range f.Sections {
		if rs.Type == shtRELR && f.Type != elf.ET_REL {
			f.relr = true
		}
		if rs.Type != elf.SHT_REL && rs.Type != elf.SHT_RELA {
			continue
		}
		if rs.Flags&elf.SHF_ALLOC != 0 && f.Type != elf.ET_REL {
			// Dynamic relocations of a linked file: keep those that
			// fill in a site table.
			if err := l.dynRelocs(rs); err != nil {
				return err
			}
			continue
		}
		if rs.Info == 0 || int(rs.Info) >= len(f.Sections) {
			if f.Type == elf.ET_REL {
				return l.errorf(-1, ErrCorrupt, "relocation section %d (%q) applies to section index %d, file has %d sections", i, rs.Name, rs.Info, len(f.Sections))
			}
			continue
		}
		target := f.Sections[rs.Info]
		if target.Data == nil {
			continue
		}
		if int(rs.Link) != f.SymTab {
			return l.errorf(-1, ErrCorrupt, "relocation section %d (%q) uses section %d as its symbol table, not %d", i, rs.Name, rs.Link, f.SymTab)
		}
		relocs, err := l.parseRelocs(rs, target)
		if err != nil {
			return err
		}
		target.Relocs = append(target.Relocs, relocs...)
	}
	for _, s := range f.Sections {
		sort.SliceStable(s.Relocs, func(i, j int) bool { return s.Relocs[i].Offset < s.Relocs[j].Offset })
		sort.SliceStable(s.DynRelocs, func(i, j int) bool { return s.DynRelocs[i].Offset < s.DynRelocs[j].Offset })
	}
	return nil
}

// dynRelocs reads the dynamic relocation section rs of a linked file and
// appends to each site table the entries whose r_offset falls inside it.
// An entry that starts inside a table but runs past its end is an error.
func (l *loader) dynRelocs(rs *Section) error {
	f := l.f
	var tables []*Section
	for _, s := range f.Sections {
		if isTable(s.Name) && s.Data != nil && s.Flags&elf.SHF_ALLOC != 0 {
			tables = append(tables, s)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	relocs, err := l.decodeRelocs(rs)
	if err != nil {
		return err
	}
	width := uint64(8)
	if f.Class == elf.ELFCLASS32 {
		width = 4
	}
	for i, r := range relocs {
		for _, t := range tables {
			if r.Offset < t.Addr || r.Offset-t.Addr >= t.Size {
				continue
			}
			pos := r.Offset - t.Addr
			at := int64(rs.Offset) + int64(uint64(i)*relocEntsize(f.Class, r.RELA))
			if t.Size-pos < width {
				return l.errorf(at, ErrCorrupt, "dynamic relocation %s at %#x runs past the end of %q (size %#x)", relocTypeName(f.Machine, r.Type), r.Offset, t.Name, t.Size)
			}
			if !r.RELA && r.Type == relativeRelocs[f.Arch] {
				// REL: the link-time address is in the table.
				if width == 4 {
					r.Addend = int64(f.ByteOrder.Uint32(t.Data[pos:]))
				} else {
					r.Addend = int64(f.ByteOrder.Uint64(t.Data[pos:]))
				}
			}
			r.Offset = pos
			t.DynRelocs = append(t.DynRelocs, r)
			break
		}
	}
	return nil
}

// shtRELR is SHT_RELR, the section type of packed relative relocations
// (.relr.dyn), which debug/elf does not name.
const shtRELR elf.SectionType = 19

// relocEntsize returns the size of a REL or RELA entry of class c.
func relocEntsize(c elf.Class, rela bool) uint64 {
	switch {
	case c == elf.ELFCLASS32 && !rela:
		return 8
	case c == elf.ELFCLASS32:
		return 12
	case !rela:
		return 16
	}
	return 24
}

// decodeRelocs reads the entries of relocation section rs as they are in
// the file: r_offset, type, symbol index and, for RELA, the addend.
func (l *loader) decodeRelocs(rs *Section) ([]Reloc, error) {
	f := l.f
	rela := rs.Type == elf.SHT_RELA
	entsize := relocEntsize(f.Class, rela)
	if rs.Size%entsize != 0 {
		return nil, l.errorf(int64(rs.Offset), ErrCorrupt, "relocation section %d (%q) size %#x is not a multiple of %d", rs.Index, rs.Name, rs.Size, entsize)
	}
	if n := rs.Size / entsize; n > uint64(MaxRelocs-l.relocs) {
		return nil, l.errorf(int64(rs.Offset), ErrLimit, "relocation section %d (%q) brings the relocations read to more than the limit of %d", rs.Index, rs.Name, MaxRelocs)
	}
	data, err := l.read(rs.Offset, rs.Size)
	if err != nil {
		return nil, l.errorf(int64(rs.Offset), readFailed(err), "reading relocation section %d (%q): %v", rs.Index, rs.Name, err)
	}
	l.relocs += len(data) / int(entsize)
	bo := f.ByteOrder
	relocs := make([]Reloc, 0, len(data)/int(entsize))
	for off := uint64(0); off < uint64(len(data)); off += entsize {
		e := data[off : off+entsize]
		r := Reloc{RELA: rela}
		if f.Class == elf.ELFCLASS32 {
			info := bo.Uint32(e[4:])
			r.Offset = uint64(bo.Uint32(e))
			r.Sym, r.Type = int(info>>8), info&0xff
			if rela {
				r.Addend = int64(int32(bo.Uint32(e[8:])))
			}
		} else {
			info := bo.Uint64(e[8:])
			r.Offset = bo.Uint64(e)
			r.Sym, r.Type = int(info>>32), uint32(info)
			if rela {
				r.Addend = int64(bo.Uint64(e[16:]))
			}
		}
		relocs = append(relocs, r)
	}
	return relocs, nil
}

func (l *loader) parseRelocs(rs, target *Section) ([]Reloc, error) {
	f := l.f
	rela := rs.Type == elf.SHT_RELA
	entsize := relocEntsize(f.Class, rela)
	decoded, err := l.decodeRelocs(rs)
	if err != nil {
		return nil, err
	}
	bo := f.ByteOrder
	relocs := make([]Reloc, 0, len(decoded))
	for i, r := range decoded {
		off := uint64(i) * entsize
		at := int64(rs.Offset + off)
		if r.Sym >= len(f.Symbols) {
			return nil, l.errorf(at, ErrCorrupt, "relocation in %q refers to symbol %d, symbol table has %d", rs.Name, r.Sym, len(f.Symbols))
		}
		pos := r.Offset
		if f.Type != elf.ET_REL {
			pos -= target.Addr
		}
		width := relocWidth(f.Arch, r.Type)
		if pos > target.Size || target.Size-pos < width {
			return nil, l.errorf(at, ErrCorrupt, "relocation %s at %#x points outside section %q (size %#x)", relocTypeName(f.Machine, r.Type), r.Offset, target.Name, target.Size)
		}
		if !rela && width == 4 && f.Arch == ArchARM && r.Type == uint32(elf.R_ARM_ABS32) {
			r.Addend = int64(int32(bo.Uint32(target.Data[pos:])))
		}
		r.Offset = pos
		relocs = append(relocs, r)
	}
	return relocs, nil
}
