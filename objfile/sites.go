package objfile

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"
)

// Method is a way of finding a site.
type Method uint8

// The site discovery methods, in the order Site.Methods lists them.
const (
	// MethodReloc: a call relocation against the profiling hook.
	MethodReloc Method = iota
	// MethodMloc: an entry of __mcount_loc.
	MethodMloc
	// MethodPFE: an entry of __patchable_function_entries.
	MethodPFE
)

var methodNames = [...]string{
	MethodReloc: "reloc",
	MethodMloc:  "mloc",
	MethodPFE:   "pfe",
}

// String returns "reloc", "mloc" or "pfe".
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// MarshalText encodes m as its String.
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// Site is one patchable call site.
type Site struct {
	File          string // File.Name
	Arch          Arch
	Section       string // name of the executable section holding the site
	SectionIndex  int    // ELF index of that section
	SectionOffset uint64 // byte offset of the site in its section
	Address       uint64 // section address + SectionOffset (== SectionOffset in most .o files)

	// Function is the FUNC symbol the site belongs to: the one containing
	// it or, for patchable NOPs placed before a function, the one that
	// follows. Empty if there is none. FunctionOffset is the site's offset
	// from that symbol (Thumb bit cleared), negative for NOPs before it.
	Function       string
	FunctionOffset int64

	Methods []Method // every method that found the site, in Method order

	// RelocType is the type of the relocation against the profiling hook
	// at the site (e.g. "R_ARM_CALL", "R_X86_64_GOTPCRELX", or
	// "R_X86_64_NONE" where objtool turned the call into a NOP), and
	// Target that relocation's symbol. Both are empty if there is none.
	RelocType string
	Target    string

	// Bytes are the bytes of the instruction at the site (both
	// instructions of a RISC-V auipc+jalr call), in file order, and Disasm
	// their disassembly in GNU syntax. Thumb code is not disassembled:
	// Disasm shows its halfwords in hex followed by "(thumb)".
	Bytes  []byte
	Disasm string

	// Thumb reports a site in Thumb-2 code (ARM only). ARMPushLR reports
	// that the instruction before the site is the `push {lr}` of the
	// __gnu_mcount_nc ABI (e52de004 in A32, b500 in Thumb-2).
	Thumb     bool
	ARMPushLR bool
}

// HasMethod reports whether m is among s.Methods.
func (s *Site) HasMethod(m Method) bool {
	for _, x := range s.Methods {
		if x == m {
			return true
		}
	}
	return false
}

// FunctionRef returns "function+0xOFF" (or "function-0xOFF"); without a
// function it returns "section+0xOFF".
func (s *Site) FunctionRef() string {
	name, off := s.Function, s.FunctionOffset
	if name == "" {
		name, off = s.Section, int64(s.SectionOffset)
	}
	if off < 0 {
		return fmt.Sprintf("%s-%#x", name, -off)
	}
	return fmt.Sprintf("%s+%#x", name, off)
}

type siteKey struct {
	sec int
	off uint64
}

// finder accumulates sites while the three methods run.
type finder struct {
	f     *File
	sites map[siteKey]*Site
	forms map[siteKey]callForm
}

// Sites finds every patchable site of f by all three methods and returns
// them sorted by section index and offset. It returns a *FormatError if a
// site table is malformed (an entry without a relocation, pointing outside
// every executable section, …).
func (f *File) Sites() (sites []Site, err error) {
	defer recoverAsError(f.Name, "site discovery", &err)
	sites, err = f.sites()
	return sites, err
}

func (f *File) sites() ([]Site, error) {
	var sites []Site
	fd := &finder{f: f, sites: map[siteKey]*Site{}, forms: map[siteKey]callForm{}}
	fd.relocSites()
	for _, s := range f.Sections {
		var err error
		switch {
		case s.Name == McountLocSection && s.Data != nil:
			err = fd.tableSites(s, MethodMloc)
		case s.Name == PatchableEntrySection && s.Data != nil:
			err = fd.tableSites(s, MethodPFE)
		}
		if err != nil {
			return nil, err
		}
	}
	funcs := newFuncIndex(f)
	for k, site := range fd.sites {
		sec := f.Sections[k.sec]
		site.Function, site.FunctionOffset = funcs.lookup(sec, k.off, site.HasMethod(MethodPFE))
		fd.describe(sec, site, funcs)
		sites = append(sites, *site)
	}
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].SectionIndex != sites[j].SectionIndex {
			return sites[i].SectionIndex < sites[j].SectionIndex
		}
		return sites[i].SectionOffset < sites[j].SectionOffset
	})
	return sites, nil
}

// add records that method m found a site at offset off of section sec.
func (fd *finder) add(sec *Section, off uint64, m Method) *Site {
	k := siteKey{sec.Index, off}
	s := fd.sites[k]
	if s == nil {
		s = &Site{
			File:          fd.f.Name,
			Arch:          fd.f.Arch,
			Section:       sec.Name,
			SectionIndex:  sec.Index,
			SectionOffset: off,
			Address:       sec.Addr + off,
		}
		fd.sites[k] = s
	}
	if !s.HasMethod(m) {
		s.Methods = append(s.Methods, m)
		sort.Slice(s.Methods, func(i, j int) bool { return s.Methods[i] < s.Methods[j] })
	}
	return s
}

// relocSites finds calls relocated against the profiling hook.
func (fd *finder) relocSites() {
	f := fd.f
	for _, sec := range f.Sections {
		if !sec.Executable() || sec.Data == nil {
			continue
		}
		for _, r := range sec.Relocs {
			sym := &f.Symbols[r.Sym]
			if !IsHook(f.Arch, sym.Name) {
				continue
			}
			form, ok := callForms[f.Arch][r.Type]
			if !ok || r.Offset < form.back {
				continue
			}
			off := r.Offset - form.back
			if !hasBytes(sec.Data, off, form.opcode) {
				continue // not a call (a lea, a data reference): not a site
			}
			site := fd.add(sec, off, MethodReloc)
			site.RelocType = f.RelocTypeName(r.Type)
			site.Target = sym.Name
			fd.forms[siteKey{sec.Index, off}] = form
		}
	}
}

func hasBytes(data []byte, off uint64, want []byte) bool {
	if off > uint64(len(data)) || uint64(len(data))-off < uint64(len(want)) {
		return false
	}
	for i, b := range want {
		if data[off+uint64(i)] != b {
			return false
		}
	}
	return true
}

// tableSites reads one __mcount_loc or __patchable_function_entries section.
func (fd *finder) tableSites(tab *Section, m Method) error {
	f := fd.f
	width := uint64(8)
	if f.Class == elf.ELFCLASS32 {
		width = 4
	}
	if uint64(len(tab.Data))%width != 0 {
		return errorf(f.Name, int64(tab.Offset), ErrCorrupt, "%s size %#x is not a multiple of %d", tab.Name, len(tab.Data), width)
	}
	relocs := map[uint64]*Reloc{}
	for i := range tab.Relocs {
		r := &tab.Relocs[i]
		if r.Type != 0 {
			relocs[r.Offset] = r
		}
	}
	dyn, err := fd.dynEntries(tab, width)
	if err != nil {
		return err
	}
	for off := uint64(0); off < uint64(len(tab.Data)); off += width {
		at := int64(tab.Offset + off)
		var raw uint64
		if width == 4 {
			raw = uint64(f.ByteOrder.Uint32(tab.Data[off:]))
		} else {
			raw = f.ByteOrder.Uint64(tab.Data[off:])
		}
		var sec *Section
		var pos uint64
		if f.Type == elf.ET_REL {
			r := relocs[off]
			if r == nil {
				return errorf(f.Name, at, ErrCorrupt, "%s entry %d has no relocation", tab.Name, off/width)
			}
			if w, ok := tableRelocs[f.Arch][r.Type]; !ok || w != width {
				return errorf(f.Name, at, ErrCorrupt, "%s entry %d has unexpected relocation type %s", tab.Name, off/width, f.RelocTypeName(r.Type))
			}
			sym := &f.Symbols[r.Sym]
			if sym.Section == elf.SHN_UNDEF || sym.Section >= elf.SHN_LORESERVE {
				return errorf(f.Name, at, ErrCorrupt, "%s entry %d refers to symbol %q, which is not defined in a section", tab.Name, off/width, sym.Name)
			}
			sec = f.Sections[sym.Section]
			pos = sym.Value + uint64(r.Addend)
		} else {
			// A linked file: the entry holds the site's address, or,
			// in a position-independent file, a RELATIVE dynamic
			// relocation supplies it (load address 0).
			addr := raw
			if r := dyn[off]; r != nil {
				if want := relativeRelocs[f.Arch]; r.Type != want {
					return errorf(f.Name, at, ErrCorrupt, "%s entry %d has dynamic relocation %s, not %s", tab.Name, off/width, f.RelocTypeName(r.Type), f.RelocTypeName(want))
				}
				addr = uint64(r.Addend)
				if width == 4 {
					addr = uint64(uint32(addr))
				}
			} else if f.Type == elf.ET_DYN {
				why := ""
				if f.relr {
					why = " (packed SHT_RELR relocations are not supported)"
				}
				return errorf(f.Name, at, ErrCorrupt, "%s entry %d (%#x) of a position-independent file has no %s dynamic relocation%s", tab.Name, off/width, raw, f.RelocTypeName(relativeRelocs[f.Arch]), why)
			}
			sec = fd.sectionAt(addr)
			if sec == nil {
				return errorf(f.Name, at, ErrCorrupt, "%s entry %d (%#x) is not inside an executable section", tab.Name, off/width, addr)
			}
			pos = addr - sec.Addr
		}
		if f.Arch == ArchARM {
			pos &^= 1 // Thumb bit, as ftrace_call_adjust() clears it
		}
		if !sec.Executable() || sec.Data == nil {
			return errorf(f.Name, at, ErrCorrupt, "%s entry %d points into non-executable section %q", tab.Name, off/width, sec.Name)
		}
		if pos >= sec.Size {
			return errorf(f.Name, at, ErrCorrupt, "%s entry %d points at %#x, past the end of %q (size %#x)", tab.Name, off/width, pos, sec.Name, sec.Size)
		}
		fd.add(sec, pos, m)
	}
	return nil
}

// dynEntries maps the entries of site table tab to the dynamic relocation
// that fills each in. A dynamic relocation between entries, or two at one
// entry, is an error; R_*_NONE entries are ignored.
func (fd *finder) dynEntries(tab *Section, width uint64) (map[uint64]*Reloc, error) {
	f := fd.f
	dyn := map[uint64]*Reloc{}
	for i := range tab.DynRelocs {
		r := &tab.DynRelocs[i]
		if r.Type == 0 {
			continue
		}
		at := int64(tab.Offset + r.Offset)
		if r.Offset%width != 0 || r.Offset >= uint64(len(tab.Data)) {
			return nil, errorf(f.Name, at, ErrCorrupt, "dynamic relocation %s at %s+%#x is not at an entry", f.RelocTypeName(r.Type), tab.Name, r.Offset)
		}
		if dyn[r.Offset] != nil {
			return nil, errorf(f.Name, at, ErrCorrupt, "%s entry %d has two dynamic relocations", tab.Name, r.Offset/width)
		}
		dyn[r.Offset] = r
	}
	return dyn, nil
}

// sectionAt returns the executable section of a linked file holding addr.
func (fd *finder) sectionAt(addr uint64) *Section {
	for _, s := range fd.f.Sections {
		if s.Executable() && s.Flags&elf.SHF_ALLOC != 0 && s.Data != nil && addr >= s.Addr && addr-s.Addr < s.Size {
			return s
		}
	}
	return nil
}

// describe fills in the bytes, disassembly and ARM details of a site.
func (fd *finder) describe(sec *Section, s *Site, funcs *funcIndex) {
	f := fd.f
	off := s.SectionOffset
	if s.RelocType == "" {
		// A site found only through a table: name the hook relocation
		// that covers it, if any (objtool leaves R_X86_64_NONE there).
		i := sort.Search(len(sec.Relocs), func(i int) bool { return sec.Relocs[i].Offset >= off })
		for _, r := range sec.Relocs[i:] {
			if r.Offset >= off+8 {
				break
			}
			if IsHook(f.Arch, f.Symbols[r.Sym].Name) {
				s.RelocType, s.Target = f.RelocTypeName(r.Type), f.Symbols[r.Sym].Name
				break
			}
		}
	}
	if f.Arch == ArchARM {
		s.Thumb = funcs.thumb(sec, off, s.RelocType)
	}
	n := instLen(f.Arch, sec.Data[off:], s.Thumb, fd.forms[siteKey{sec.Index, off}].length)
	s.Bytes = append([]byte(nil), sec.Data[off:off+uint64(n)]...)
	s.Disasm = disasm(f.Arch, s.Bytes, s.Address, s.Thumb)
	if f.Arch == ArchARM {
		if s.Thumb {
			s.ARMPushLR = off >= 2 && f.ByteOrder.Uint16(sec.Data[off-2:]) == 0xb500
		} else {
			s.ARMPushLR = off >= 4 && f.ByteOrder.Uint32(sec.Data[off-4:]) == 0xe52de004
		}
	}
}

// funcIndex finds the function symbol and the ARM instruction set at an
// offset of a section.
type funcIndex struct {
	funcs map[int][]funcSym    // by section index, sorted by start
	maps  map[int][]mappingSym // ARM mapping symbols by section, sorted
}

type funcSym struct {
	start, size uint64 // section offsets
	name        string
	rank        int // lower is preferred among aliases: global, weak, local
	thumb       bool
}

type mappingSym struct {
	start uint64
	kind  byte // 'a', 't' or 'd'
}

func newFuncIndex(f *File) *funcIndex {
	fi := &funcIndex{funcs: map[int][]funcSym{}, maps: map[int][]mappingSym{}}
	for _, sym := range f.Symbols {
		if sym.Section == elf.SHN_UNDEF || sym.Section >= elf.SHN_LORESERVE || int(sym.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[sym.Section]
		if sec.Data == nil || sym.Value < sec.Addr || sym.Value-sec.Addr > sec.Size {
			continue
		}
		start := sym.Value - sec.Addr
		switch {
		case sym.Type == elf.STT_FUNC:
			rank := 2
			switch sym.Bind {
			case elf.STB_GLOBAL:
				rank = 0
			case elf.STB_WEAK:
				rank = 1
			}
			fi.funcs[sec.Index] = append(fi.funcs[sec.Index], funcSym{start, sym.Size, sym.Name, rank, sym.Thumb})
		case f.Arch == ArchARM && len(sym.Name) >= 2 && sym.Name[0] == '$' && strings.IndexByte("atd", sym.Name[1]) >= 0 && (len(sym.Name) == 2 || sym.Name[2] == '.'):
			fi.maps[sec.Index] = append(fi.maps[sec.Index], mappingSym{start &^ 1, sym.Name[1]})
		}
	}
	for _, fs := range fi.funcs {
		sort.Slice(fs, func(i, j int) bool {
			if fs[i].start != fs[j].start {
				return fs[i].start < fs[j].start
			}
			if fs[i].rank != fs[j].rank {
				return fs[i].rank < fs[j].rank
			}
			return fs[i].name < fs[j].name
		})
	}
	for _, ms := range fi.maps {
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	}
	return fi
}

// find returns the index of the function containing off, or -1. Among
// aliases it returns the best-ranked one.
func (fi *funcIndex) find(sec *Section, off uint64) int {
	fs := fi.funcs[sec.Index]
	i := sort.Search(len(fs), func(i int) bool { return fs[i].start > off }) - 1
	if i < 0 {
		return -1
	}
	start := fs[i].start
	for i > 0 && fs[i-1].start == start {
		i--
	}
	next := sec.Size // where the next function starts
	for j := i; j < len(fs); j++ {
		if fs[j].start != start {
			next = fs[j].start
			break
		}
	}
	for k := i; k < len(fs) && fs[k].start == start; k++ {
		end := start + fs[k].size
		if fs[k].size == 0 {
			end = next // no size: assume it runs to the next function
		}
		if off < end {
			return k
		}
	}
	return -1
}

// lookup attributes offset off of sec to a function. A site outside every
// function belongs to the next function when following is set (patchable
// NOPs before the symbol), otherwise to the previous one.
func (fi *funcIndex) lookup(sec *Section, off uint64, following bool) (string, int64) {
	fs := fi.funcs[sec.Index]
	i := fi.find(sec, off)
	if i < 0 {
		next := sort.Search(len(fs), func(i int) bool { return fs[i].start > off })
		switch {
		case following && next < len(fs):
			i = next
		case next > 0:
			i = next - 1
			for i > 0 && fs[i-1].start == fs[i].start {
				i--
			}
		case next < len(fs):
			i = next
		default:
			return "", 0
		}
	}
	return fs[i].name, int64(off) - int64(fs[i].start)
}

// thumb reports whether the ARM code at off of sec is Thumb: by the
// mapping symbols ($a, $t), else by the relocation type, else by the
// containing function's symbol.
func (fi *funcIndex) thumb(sec *Section, off uint64, relocType string) bool {
	ms := fi.maps[sec.Index]
	if i := sort.Search(len(ms), func(i int) bool { return ms[i].start > off }) - 1; i >= 0 && ms[i].kind != 'd' {
		return ms[i].kind == 't'
	}
	if strings.HasPrefix(relocType, "R_ARM_THM_") {
		return true
	}
	if i := fi.find(sec, off); i >= 0 {
		return fi.funcs[sec.Index][i].thumb
	}
	return false
}
