package objfile_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/objfile"
)

// dynReloc is one entry of a dynamic relocation section of a fixture: the
// file offsets of its fields.
type dynReloc struct {
	at, info, addend int // file offsets of r_offset, r_info and (RELA) r_addend
	offset           uint64
	is64, rela       bool
}

// dynRelocs returns the entries of the fixture's dynamic relocation
// section (.rela.dyn or .rel.dyn) whose r_offset falls inside table.
func dynRelocs(t testing.TB, data []byte, table string) []dynReloc {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	require.NoError(t, err)
	tab := ef.Section(table)
	require.NotNil(t, tab, table)
	is64 := ef.Class == elf.ELFCLASS64
	var out []dynReloc
	for _, s := range ef.Sections {
		if (s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL) || s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		rela := s.Type == elf.SHT_RELA
		ent := map[[2]bool]int{{false, false}: 8, {false, true}: 12, {true, false}: 16, {true, true}: 24}[[2]bool{is64, rela}]
		for at := int(s.Offset); at+ent <= int(s.Offset+s.Size); at += ent {
			r := dynReloc{at: at, is64: is64, rela: rela}
			if is64 {
				r.offset, r.info, r.addend = binary.LittleEndian.Uint64(data[at:]), at+8, at+16
			} else {
				r.offset, r.info, r.addend = uint64(binary.LittleEndian.Uint32(data[at:])), at+4, at+8
			}
			if r.offset >= tab.Addr && r.offset < tab.Addr+tab.Size {
				out = append(out, r)
			}
		}
	}
	sortByOffset(out)
	require.NotEmpty(t, out, "no dynamic relocations in %s", table)
	return out
}

func sortByOffset(rs []dynReloc) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].offset < rs[j-1].offset; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func (r dynReloc) setOffset(data []byte, v uint64) {
	if r.is64 {
		binary.LittleEndian.PutUint64(data[r.at:], v)
	} else {
		binary.LittleEndian.PutUint32(data[r.at:], uint32(v))
	}
}

func (r dynReloc) setType(data []byte, typ uint32) {
	if r.is64 {
		binary.LittleEndian.PutUint32(data[r.info:], typ) // low half of r_info
	} else {
		data[r.info] = byte(typ)
	}
}

// TestSitesPIE checks that the sites of the position-independent fixtures
// come from their RELATIVE dynamic relocations, not from the table words.
func TestSitesPIE(t *testing.T) {
	for _, tt := range []struct{ file, table string }{
		{"x86-fentry-mrecord-pie.exe", objfile.McountLocSection},
		{"arm64-pfe2-pie.exe", objfile.PatchableEntrySection},
		{"riscv64-pfe4-pie.exe", objfile.PatchableEntrySection},
	} {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			want, err := load(data, tt.file)
			require.NoError(t, err)
			// RELA: the words in the file do not matter.
			h := sectionHeader(t, data, tt.table)
			off, size := h.get(data, h.off), h.get(data, h.size)
			for i := off; i < off+size; i++ {
				data[i] = 0xa5
			}
			got, err := load(data, tt.file)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Len(t, dynRelocs(t, data, tt.table), len(want))
		})
	}
}

// TestSitesPIEStripped drops .symtab: sites are then attributed through
// .dynsym, which --export-dynamic filled with the global functions.
func TestSitesPIEStripped(t *testing.T) {
	data := readFixture(t, "arm64-pfe2-pie.exe")
	whole, err := load(data, "pie")
	require.NoError(t, err)
	h := sectionHeader(t, data, ".symtab")
	h.put(data, h.typ, uint64(elf.SHT_PROGBITS))
	f, err := objfile.NewFile(bytes.NewReader(data), "stripped")
	require.NoError(t, err)
	assert.Equal(t, ".dynsym", f.Sections[f.SymTab].Name)
	sites, err := f.Sites()
	require.NoError(t, err)
	require.Len(t, sites, len(whole))
	for i, s := range sites {
		assert.Equal(t, whole[i].Address, s.Address)
		if whole[i].Function == "helper_static" {
			// Local: not in .dynsym, so it belongs to the function before.
			assert.NotEqual(t, "helper_static", s.Function)
			continue
		}
		assert.Equal(t, whole[i].Function, s.Function)
		assert.Equal(t, whole[i].FunctionOffset, s.FunctionOffset)
	}

	// No .dynsym either.
	h = sectionHeader(t, data, ".dynsym")
	h.put(data, h.typ, uint64(elf.SHT_PROGBITS))
	_, err = load(data, "bare")
	require.ErrorIs(t, err, objfile.ErrNoSymbols)
	require.Contains(t, err.Error(), "no symbol table (.symtab or .dynsym)")
}

// TestSitesPIEBadInput corrupts the dynamic relocations of the
// position-independent fixtures.
func TestSitesPIEBadInput(t *testing.T) {
	x86, arm := "x86-fentry-mrecord-pie.exe", "arm-pfe2-pie.exe"
	mloc, pfe := objfile.McountLocSection, objfile.PatchableEntrySection
	tests := []struct {
		name, fixture, table string
		mutate               func(t *testing.T, data []byte, rs []dynReloc)
		reason               string
	}{
		{"other relocation type", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { rs[0].setType(d, uint32(elf.R_X86_64_64)) },
			"__mcount_loc entry 0 has dynamic relocation R_X86_64_64, not R_X86_64_RELATIVE"},
		{"other ARM relocation type", arm, pfe, func(_ *testing.T, d []byte, rs []dynReloc) { rs[1].setType(d, uint32(elf.R_ARM_ABS32)) },
			"__patchable_function_entries entry 1 has dynamic relocation R_ARM_ABS32, not R_ARM_RELATIVE"},
		{"no relocation", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { rs[2].setOffset(d, 0x10) },
			"__mcount_loc entry 2 (0x"},
		{"packed relative relocations", x86, mloc, func(t *testing.T, d []byte, rs []dynReloc) {
			rs[2].setOffset(d, 0x10)
			h := sectionHeader(t, d, ".dynstr") // any section: now a .relr.dyn
			h.put(d, h.typ, 19)
		}, "__mcount_loc entry 2 (0x1190) of a position-independent file has no R_X86_64_RELATIVE dynamic relocation (packed SHT_RELR relocations are not supported)"},
		{"relocation between entries", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { rs[0].setOffset(d, rs[0].offset+4) },
			"dynamic relocation R_X86_64_RELATIVE at __mcount_loc+0x4 is not at an entry"},
		{"two relocations at an entry", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { rs[1].setOffset(d, rs[0].offset) },
			"__mcount_loc entry 0 has two dynamic relocations"},
		{"relocation past the end of the table", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { rs[0].setOffset(d, rs[len(rs)-1].offset+4) },
			"runs past the end of \"__mcount_loc\""},
		{"addend outside text", x86, mloc, func(_ *testing.T, d []byte, rs []dynReloc) { binary.LittleEndian.PutUint64(d[rs[0].addend:], 0x10) },
			"__mcount_loc entry 0 (0x10) is not inside an executable section"},
		{"REL word outside text", arm, pfe, func(t *testing.T, d []byte, _ []dynReloc) {
			h := sectionHeader(t, d, pfe)
			binary.LittleEndian.PutUint32(d[h.get(d, h.off):], 0x10) // entry 0: the table starts at its address
		}, "__patchable_function_entries entry 0 (0x10) is not inside an executable section"},
		{"relocation section size", x86, mloc, func(t *testing.T, d []byte, _ []dynReloc) {
			h := sectionHeader(t, d, ".rela.dyn")
			h.put(d, h.size, h.get(d, h.size)-1)
		}, "relocation section 5 (\".rela.dyn\") size 0x107 is not a multiple of 24"},
		{"relocation section past the end", arm, pfe, func(t *testing.T, d []byte, _ []dynReloc) {
			h := sectionHeader(t, d, ".rel.dyn")
			h.put(d, h.off, uint64(len(d))-4)
		}, "runs past the end of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := readFixture(t, tt.fixture)
			tt.mutate(t, data, dynRelocs(t, data, tt.table))
			_, err := load(data, "bad.exe")
			require.Error(t, err)
			t.Log(err)
			var fe *objfile.FormatError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, objfile.ErrCorrupt)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.exe: "), err.Error())
			assert.NotContains(t, err.Error(), "\n")
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}
