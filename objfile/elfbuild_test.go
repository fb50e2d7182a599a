package objfile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testSection is one section of an ELF image built by buildELF.
type testSection struct {
	name        string
	typ         elf.SectionType
	flags       elf.SectionFlag
	data        []byte
	offset      uint64 // if nonzero, sh_offset as given (data is not laid out)
	size        uint64 // if nonzero, sh_size as given
	link, info  uint32
	entsize     uint64
	nameOffset  uint32 // if nonzero, sh_name as given
	noNameTable bool
}

// buildELF lays out a little-endian ELF image: the header, the sections'
// contents, a .shstrtab (the last section) and the section headers.
func buildELF(class elf.Class, machine elf.Machine, typ elf.Type, secs []testSection) []byte {
	is64 := class == elf.ELFCLASS64
	ehsize, shentsize := 52, 40
	if is64 {
		ehsize, shentsize = 64, 64
	}
	bo := binary.LittleEndian
	var names bytes.Buffer
	names.WriteByte(0)
	nameOf := func(n string) uint32 {
		off := uint32(names.Len())
		names.WriteString(n)
		names.WriteByte(0)
		return off
	}
	all := append([]testSection{{}}, secs...)
	all = append(all, testSection{name: ".shstrtab", typ: elf.SHT_STRTAB})
	nameOffs := make([]uint32, len(all))
	for i := 1; i < len(all); i++ {
		if all[i].nameOffset != 0 {
			nameOffs[i] = all[i].nameOffset
		} else {
			nameOffs[i] = nameOf(all[i].name)
		}
	}
	all[len(all)-1].data = names.Bytes()
	out := make([]byte, ehsize)
	offs := make([]uint64, len(all))
	for i := 1; i < len(all); i++ {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		offs[i] = uint64(len(out))
		if all[i].typ != elf.SHT_NOBITS {
			out = append(out, all[i].data...)
		}
	}
	for len(out)%8 != 0 {
		out = append(out, 0)
	}
	shoff := uint64(len(out))
	for i, s := range all {
		sh := make([]byte, shentsize)
		off, size := offs[i], uint64(len(s.data))
		if s.offset != 0 {
			off = s.offset
		}
		if s.size != 0 {
			size = s.size
		}
		if i == 0 {
			off, size = 0, 0
		}
		bo.PutUint32(sh[0:], nameOffs[i])
		bo.PutUint32(sh[4:], uint32(s.typ))
		if is64 {
			bo.PutUint64(sh[8:], uint64(s.flags))
			bo.PutUint64(sh[24:], off)
			bo.PutUint64(sh[32:], size)
			bo.PutUint32(sh[40:], s.link)
			bo.PutUint32(sh[44:], s.info)
			bo.PutUint64(sh[48:], 1)
			bo.PutUint64(sh[56:], s.entsize)
		} else {
			bo.PutUint32(sh[8:], uint32(s.flags))
			bo.PutUint32(sh[16:], uint32(off))
			bo.PutUint32(sh[20:], uint32(size))
			bo.PutUint32(sh[24:], s.link)
			bo.PutUint32(sh[28:], s.info)
			bo.PutUint32(sh[32:], 1)
			bo.PutUint32(sh[36:], uint32(s.entsize))
		}
		out = append(out, sh...)
	}
	copy(out, elf.ELFMAG)
	out[elf.EI_CLASS], out[elf.EI_DATA], out[elf.EI_VERSION] = byte(class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	bo.PutUint16(out[16:], uint16(typ))
	bo.PutUint16(out[18:], uint16(machine))
	bo.PutUint32(out[20:], uint32(elf.EV_CURRENT))
	if is64 {
		bo.PutUint64(out[0x28:], shoff)
		bo.PutUint16(out[0x34:], uint16(ehsize))
		bo.PutUint16(out[0x3a:], uint16(shentsize))
		bo.PutUint16(out[0x3c:], uint16(len(all)))
		bo.PutUint16(out[0x3e:], uint16(len(all)-1))
	} else {
		bo.PutUint32(out[0x20:], uint32(shoff))
		bo.PutUint16(out[0x28:], uint16(ehsize))
		bo.PutUint16(out[0x2e:], uint16(shentsize))
		bo.PutUint16(out[0x30:], uint16(len(all)))
		bo.PutUint16(out[0x32:], uint16(len(all)-1))
	}
	return out
}

// tinyObject describes the smallest relocatable object with one site of
// an architecture: f: the call to the hook (ARM: push {lr}; bl).
type tinyObject struct {
	arch    Arch
	class   elf.Class
	machine elf.Machine
	hook    string
	text    []byte
	siteOff uint64 // offset of the call in .text
	relocs  []Reloc
	rela    bool
}

var tinyObjects = []tinyObject{
	{arch: ArchARM, class: elf.ELFCLASS32, machine: elf.EM_ARM, hook: "__gnu_mcount_nc",
		text: []byte{0x04, 0xe0, 0x2d, 0xe5, 0xfe, 0xff, 0xff, 0xeb, 0x1e, 0xff, 0x2f, 0xe1}, siteOff: 4,
		relocs: []Reloc{{Offset: 4, Type: uint32(elf.R_ARM_CALL), Sym: 2}}},
	{arch: ArchX86_64, class: elf.ELFCLASS64, machine: elf.EM_X86_64, hook: "__fentry__",
		text: []byte{0xe8, 0, 0, 0, 0, 0xc3}, rela: true,
		relocs: []Reloc{{Offset: 1, Type: uint32(elf.R_X86_64_PLT32), Sym: 2, Addend: -4}}},
	{arch: ArchARM64, class: elf.ELFCLASS64, machine: elf.EM_AARCH64, hook: "_mcount",
		text: []byte{0x00, 0x00, 0x00, 0x94, 0xc0, 0x03, 0x5f, 0xd6}, rela: true,
		relocs: []Reloc{{Offset: 0, Type: uint32(elf.R_AARCH64_CALL26), Sym: 2}}},
	{arch: ArchRISCV64, class: elf.ELFCLASS64, machine: elf.EM_RISCV, hook: "_mcount",
		text: []byte{0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x00, 0x00, 0x67, 0x80, 0x00, 0x00}, rela: true,
		relocs: []Reloc{{Offset: 0, Type: uint32(elf.R_RISCV_CALL_PLT), Sym: 2}, {Offset: 0, Type: uint32(elf.R_RISCV_RELAX)}}},
}

// build returns the object: .text, its relocations, .symtab (null, the
// FUNC f, the undefined hook), .strtab and .shstrtab.
func (o tinyObject) build() []byte { return o.buildWith(false) }

// buildWith returns the object, with an __mcount_loc table (one entry,
// relocated against f plus the site's offset) if mloc is set.
func (o tinyObject) buildWith(mloc bool) []byte {
	bo := binary.LittleEndian
	is64 := o.class == elf.ELFCLASS64
	strtab := append([]byte("\x00f\x00"), o.hook...)
	strtab = append(strtab, 0)
	sym := func(name uint32, info byte, shndx uint16, value, size uint64) []byte {
		if is64 {
			e := make([]byte, 24)
			bo.PutUint32(e, name)
			e[4] = info
			bo.PutUint16(e[6:], shndx)
			bo.PutUint64(e[8:], value)
			bo.PutUint64(e[16:], size)
			return e
		}
		e := make([]byte, 16)
		bo.PutUint32(e, name)
		bo.PutUint32(e[4:], uint32(value))
		bo.PutUint32(e[8:], uint32(size))
		e[12] = info
		bo.PutUint16(e[14:], shndx)
		return e
	}
	var symtab []byte
	symtab = append(symtab, sym(0, 0, 0, 0, 0)...)
	symtab = append(symtab, sym(1, byte(elf.STB_GLOBAL)<<4|byte(elf.STT_FUNC), 1, 0, uint64(len(o.text)))...)
	symtab = append(symtab, sym(3, byte(elf.STB_GLOBAL)<<4|byte(elf.STT_NOTYPE), 0, 0, 0)...)
	encode := func(relocs []Reloc) []byte {
		var rel []byte
		for _, r := range relocs {
			switch {
			case is64:
				e := make([]byte, 24)
				bo.PutUint64(e, r.Offset)
				bo.PutUint64(e[8:], uint64(r.Sym)<<32|uint64(r.Type))
				bo.PutUint64(e[16:], uint64(r.Addend))
				rel = append(rel, e...)
			default:
				e := make([]byte, 8)
				bo.PutUint32(e, uint32(r.Offset))
				bo.PutUint32(e[4:], uint32(r.Sym)<<8|r.Type)
				rel = append(rel, e...)
			}
		}
		return rel
	}
	rel := encode(o.relocs)
	symEnt, relName, relType, relEnt := uint64(16), ".rel.text", elf.SHT_REL, uint64(8)
	if is64 {
		symEnt = 24
	}
	if o.rela {
		relName, relType, relEnt = ".rela.text", elf.SHT_RELA, 24
	}
	secs := []testSection{
		{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, data: o.text},
		{name: relName, typ: relType, flags: elf.SHF_INFO_LINK, data: rel, link: 3, info: 1, entsize: relEnt},
		{name: ".symtab", typ: elf.SHT_SYMTAB, data: symtab, link: 4, info: 2, entsize: symEnt},
		{name: ".strtab", typ: elf.SHT_STRTAB, data: strtab},
	}
	if mloc {
		table := make([]byte, 8)
		r := Reloc{Type: uint32(elf.R_X86_64_64), Sym: 1, Addend: int64(o.siteOff)}
		switch o.arch {
		case ArchARM:
			table = table[:4]
			bo.PutUint32(table, uint32(o.siteOff)) // REL: the addend is in the table
			r.Type = uint32(elf.R_ARM_ABS32)
		case ArchARM64:
			r.Type = uint32(elf.R_AARCH64_ABS64)
		case ArchRISCV64:
			r.Type = uint32(elf.R_RISCV_64)
		}
		secs = append(secs,
			testSection{name: McountLocSection, typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC, data: table},
			testSection{name: strings.Replace(relName, "text", McountLocSection, 1), typ: relType, flags: elf.SHF_INFO_LINK,
				data: encode([]Reloc{r}), link: 3, info: 5, entsize: relEnt})
	}
	return buildELF(o.class, o.machine, elf.ET_REL, secs)
}

// TestTinyObjects: the built objects load and have their one site, so the
// fuzz seeds made from them reach site discovery.
func TestTinyObjects(t *testing.T) {
	for _, o := range tinyObjects {
		t.Run(o.arch.String(), func(t *testing.T) {
			data := o.build()
			require.Less(t, len(data), 700)
			f, err := NewFile(bytes.NewReader(data), "tiny.o")
			require.NoError(t, err)
			require.Equal(t, o.arch, f.Arch)
			sites, err := f.Sites()
			require.NoError(t, err)
			require.Len(t, sites, 1)
			require.Equal(t, "f", sites[0].Function)
			require.Equal(t, o.siteOff, sites[0].SectionOffset)
			require.Equal(t, []Method{MethodReloc}, sites[0].Methods)
			require.Equal(t, o.hook, sites[0].Target)

			f, err = NewFile(bytes.NewReader(o.buildWith(true)), "tiny-mloc.o")
			require.NoError(t, err)
			sites, err = f.Sites()
			require.NoError(t, err)
			require.Len(t, sites, 1)
			require.Equal(t, o.siteOff, sites[0].SectionOffset)
			require.Equal(t, []Method{MethodReloc, MethodMloc}, sites[0].Methods)
		})
	}
}
