package objfile_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/objfile"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// shdr locates section header i of an ELF image: its offset and the field
// offsets of sh_type, sh_size, sh_link and sh_offset.
type shdr struct {
	at                         int
	typ, size, link, off, info int
	is64                       bool
}

func sectionHeader(t testing.TB, data []byte, name string) shdr {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	require.NoError(t, err)
	is64 := ef.Class == elf.ELFCLASS64
	var shoff, shentsize int
	if is64 {
		shoff, shentsize = int(binary.LittleEndian.Uint64(data[0x28:])), int(binary.LittleEndian.Uint16(data[0x3a:]))
	} else {
		shoff, shentsize = int(binary.LittleEndian.Uint32(data[0x20:])), int(binary.LittleEndian.Uint16(data[0x2e:]))
	}
	for i, s := range ef.Sections {
		if s.Name == name {
			at := shoff + i*shentsize
			if is64 {
				return shdr{at: at, typ: at + 4, off: at + 24, size: at + 32, link: at + 40, info: at + 44, is64: true}
			}
			return shdr{at: at, typ: at + 4, off: at + 16, size: at + 20, link: at + 24, info: at + 28}
		}
	}
	t.Fatalf("no section %s", name)
	return shdr{}
}

func (h shdr) put(data []byte, field int, v uint64) {
	if h.is64 && (field == h.size || field == h.off) {
		binary.LittleEndian.PutUint64(data[field:], v)
		return
	}
	binary.LittleEndian.PutUint32(data[field:], uint32(v))
}

func (h shdr) get(data []byte, field int) uint64 {
	if h.is64 && (field == h.size || field == h.off) {
		return binary.LittleEndian.Uint64(data[field:])
	}
	return uint64(binary.LittleEndian.Uint32(data[field:]))
}

// load runs the loader and site discovery on an in-memory image.
func load(data []byte, name string) ([]objfile.Site, error) {
	f, err := objfile.NewFile(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	return f.Sites()
}

// TestSitesBadInput feeds malformed files and checks for a clear,
// one-line, typed error.
func TestSitesBadInput(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		mutate  func(t *testing.T, data []byte) []byte
		is      error
		reason  string
	}{
		{name: "empty", mutate: func(*testing.T, []byte) []byte { return nil }, is: objfile.ErrNotELF, reason: "not an ELF file"},
		{name: "text", mutate: func(*testing.T, []byte) []byte { return []byte("int main(void) { return 0; }\n") }, is: objfile.ErrNotELF, reason: "not an ELF file"},
		{name: "magic only", mutate: func(*testing.T, []byte) []byte { return []byte("\x7fELF") }, is: objfile.ErrCorrupt, reason: "truncated ELF header"},
		{name: "bad class", fixture: "arm-pg.o", mutate: func(_ *testing.T, d []byte) []byte { d[elf.EI_CLASS] = 7; return d }, is: objfile.ErrCorrupt, reason: "unknown ELF class 7"},
		{name: "wrong class", fixture: "arm-pg.o", mutate: func(_ *testing.T, d []byte) []byte { d[elf.EI_CLASS] = byte(elf.ELFCLASS64); return d }, is: objfile.ErrUnsupportedMachine, reason: "unsupported machine EM_ARM (ELFCLASS64, ELFDATA2LSB)"},
		{name: "wrong class for x86-64", fixture: "x86-pg.o", mutate: func(_ *testing.T, d []byte) []byte { d[elf.EI_CLASS] = byte(elf.ELFCLASS32); return d }, is: objfile.ErrUnsupportedMachine, reason: "EM_X86_64 (ELFCLASS32"},
		{name: "bad data encoding", fixture: "x86-fentry.o", mutate: func(_ *testing.T, d []byte) []byte { d[elf.EI_DATA] = 3; return d }, is: objfile.ErrCorrupt, reason: "unknown ELF data encoding 3"},
		{name: "unsupported machine", fixture: "x86-fentry.o", mutate: func(_ *testing.T, d []byte) []byte {
			binary.LittleEndian.PutUint16(d[18:], uint16(elf.EM_MIPS))
			return d
		}, is: objfile.ErrUnsupportedMachine, reason: "unsupported machine EM_MIPS"},
		{name: "ARM machine in a 64-bit file", fixture: "x86-fentry.o", mutate: func(_ *testing.T, d []byte) []byte {
			binary.LittleEndian.PutUint16(d[18:], uint16(elf.EM_ARM))
			return d
		}, is: objfile.ErrUnsupportedMachine, reason: "EM_ARM (ELFCLASS64"},
		{name: "x86-64 machine in a 32-bit file", fixture: "arm-pg.o", mutate: func(_ *testing.T, d []byte) []byte {
			binary.LittleEndian.PutUint16(d[18:], uint16(elf.EM_X86_64))
			return d
		}, is: objfile.ErrUnsupportedMachine},
		{name: "no symbol table", fixture: "arm-marm-mloc.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".symtab")
			h.put(d, h.typ, uint64(elf.SHT_PROGBITS))
			return d
		}, is: objfile.ErrNoSymbols, reason: "no symbol table"},
		{name: "symbol table size not a multiple", fixture: "x86-fentry.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".symtab")
			h.put(d, h.size, h.get(d, h.size)-3)
			return d
		}, is: objfile.ErrCorrupt, reason: "symbol table"},
		{name: "symbol table past the end", fixture: "arm64-pfe2.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".symtab")
			h.put(d, h.off, uint64(len(d))-8)
			return d
		}, is: objfile.ErrCorrupt, reason: "runs past the end of the file"},
		{name: "symbol table without string table", fixture: "riscv64-pg.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".symtab")
			h.put(d, h.link, 0)
			return d
		}, is: objfile.ErrCorrupt, reason: "string table"},
		{name: "text past the end", fixture: "x86-pg.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".text")
			h.put(d, h.size, 1<<40)
			return d
		}, is: objfile.ErrCorrupt, reason: "runs past the end of the file"},
		{name: "relocation outside its section", fixture: "arm-pg.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".rel.text")
			binary.LittleEndian.PutUint32(d[h.get(d, h.off):], 0x100000) // r_offset of entry 0
			return d
		}, is: objfile.ErrCorrupt, reason: "points outside section \".text\""},
		{name: "relocation against a missing symbol", fixture: "x86-fentry.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".rela.text")
			binary.LittleEndian.PutUint32(d[h.get(d, h.off)+12:], 0xfffff) // r_info symbol of entry 0
			return d
		}, is: objfile.ErrCorrupt, reason: "refers to symbol 1048575"},
		{name: "relocation section for a missing section", fixture: "arm64-pg.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".rela.text")
			h.put(d, h.info, 999)
			return d
		}, is: objfile.ErrCorrupt, reason: "applies to section index 999"},
		{name: "mcount_loc entry outside text", fixture: "x86-fentry-mrecord.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".rela__mcount_loc")
			binary.LittleEndian.PutUint64(d[h.get(d, h.off)+16:], 0x7fff0000) // addend of entry 0
			return d
		}, is: objfile.ErrCorrupt, reason: "__mcount_loc entry 0 points at 0x7fff0000, past the end of \".text\""},
		{name: "mcount_loc entry without relocation", fixture: "arm-marm-mloc.o", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, ".rel__mcount_loc")
			binary.LittleEndian.PutUint32(d[h.get(d, h.off):], 2) // entry 0 now relocates a misaligned word
			return d
		}, is: objfile.ErrCorrupt, reason: "__mcount_loc entry 0 has no relocation"},
		{name: "patchable entry address outside text", fixture: "arm64-pfe2.exe", mutate: func(t *testing.T, d []byte) []byte {
			h := sectionHeader(t, d, objfile.PatchableEntrySection)
			binary.LittleEndian.PutUint64(d[h.get(d, h.off):], 0x10)
			return d
		}, is: objfile.ErrCorrupt, reason: "entry 0 (0x10) is not inside an executable section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			if tt.fixture != "" {
				data = readFixture(t, tt.fixture)
			}
			data = tt.mutate(t, data)
			_, err := load(data, "bad.o")
			require.Error(t, err)
			t.Log(err)
			var fe *objfile.FormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "bad.o", fe.File)
			assert.ErrorIs(t, err, tt.is)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.o: "), err.Error())
			assert.NotContains(t, err.Error(), "\n")
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}

// TestSitesTruncated cuts fixtures at every offset: each prefix must fail
// with a *FormatError, never panic and never succeed.
func TestSitesTruncated(t *testing.T) {
	for _, name := range []string{"arm-thumb-mloc.o", "x86-objtool.o", "arm64-pfe2.exe", "x86-fentry-mrecord-pie.exe", "arm-pfe2-pie.exe"} {
		t.Run(name, func(t *testing.T) {
			data := readFixture(t, name)
			for n := 0; n < len(data); n++ {
				_, err := load(data[:n], name)
				var fe *objfile.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("truncated at %d of %d: got %v, want a *FormatError", n, len(data), err)
				}
			}
			_, err := load(data, name)
			require.NoError(t, err)
		})
	}
}

// readerAtOnly hides Size, so the loader cannot check sizes up front.
type readerAtOnly struct{ r io.ReaderAt }

func (r readerAtOnly) ReadAt(p []byte, off int64) (int, error) { return r.r.ReadAt(p, off) }

// TestSitesTruncatedUnknownSize is TestSitesTruncated for a reader whose
// size is unknown: reads past the end must still become errors.
func TestSitesTruncatedUnknownSize(t *testing.T) {
	data := readFixture(t, "arm-pg.o")
	for n := 0; n < len(data); n += 7 {
		f, err := objfile.NewFile(readerAtOnly{bytes.NewReader(data[:n])}, "cut.o")
		if err == nil {
			_, err = f.Sites()
		}
		var fe *objfile.FormatError
		require.ErrorAs(t, err, &fe, "truncated at %d", n)
	}
	f, err := objfile.NewFile(readerAtOnly{bytes.NewReader(data)}, "whole.o")
	require.NoError(t, err)
	sites, err := f.Sites()
	require.NoError(t, err)
	require.Len(t, sites, len(traced))
}

// TestOpenErrors covers files that cannot be read at all.
func TestOpenErrors(t *testing.T) {
	_, err := objfile.Open(filepath.Join(t.TempDir(), "missing.o"))
	var fe *objfile.FormatError
	require.ErrorAs(t, err, &fe)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.True(t, strings.HasSuffix(err.Error(), "missing.o: no such file or directory"), err.Error())

	_, err = objfile.Open(t.TempDir())
	require.ErrorIs(t, err, objfile.ErrNotELF)
}
