package objfile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sparseReader is data followed by zeros up to size: a huge file that
// costs nothing unless it is read.
type sparseReader struct {
	data []byte
	size int64
	read int64 // bytes returned by ReadAt
}

func (r *sparseReader) Size() int64 { return r.size }

func (r *sparseReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	n := len(p)
	if int64(n) > r.size-off {
		n = int(r.size - off)
	}
	for i := range p[:n] {
		p[i] = 0
	}
	if off < int64(len(r.data)) {
		copy(p[:n], r.data[off:])
	}
	r.read += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// header64 locates field of section header i (shoff and shentsize from the
// ELF header of a 64-bit little-endian image).
func header64(data []byte, i, field int) []byte {
	shoff := int(binary.LittleEndian.Uint64(data[0x28:]))
	return data[shoff+i*64+field:]
}

func requireLimitError(t *testing.T, err error, is error, reason string) {
	t.Helper()
	require.Error(t, err)
	t.Log(err)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	assert.ErrorIs(t, err, is)
	assert.Contains(t, err.Error(), reason)
	assert.NotContains(t, err.Error(), "\n")
}

// TestOpenRefusesNonRegular: a FIFO with no writer, a device and a
// directory are refused at once, the FIFO without blocking.
func TestOpenRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.o")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() {
		// Unblock an Open that waits for a writer, if the test failed.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	tests := []struct{ path, kind string }{
		{fifo, "a named pipe"},
		{"/dev/zero", "a character device"},
		{"/dev/null", "a character device"},
		{dir, "a directory"},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := Open(tt.path)
			done <- err
		}()
		select {
		case err := <-done:
			requireLimitError(t, err, ErrNotELF, tt.path+": not a regular file ("+tt.kind+")")
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) blocked", tt.path)
		}
	}
}

// TestOpenRefusesLargeFile: a sparse 2 GiB file is refused from its size,
// before anything is read.
func TestOpenRefusesLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.o")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.Write(tinyObjects[1].build())
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<30))
	require.NoError(t, f.Close())
	start := time.Now()
	_, err = Open(path)
	requireLimitError(t, err, ErrLimit, "big.o: 2147483648 bytes, larger than the limit of 256 MiB")
	assert.Less(t, time.Since(start), time.Second)
}

// TestLoadLimits: counts and sizes taken from the file are checked before
// anything is allocated or read for them.
func TestLoadLimits(t *testing.T) {
	x86 := tinyObjects[1]
	tests := []struct {
		name   string
		data   func() []byte
		size   int64 // of the sparse input; 0: len(data)
		is     error
		reason string
	}{
		{name: ".text claims 1.9 GiB", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 1, 32), 1900<<20)
			return d
		}, is: ErrCorrupt, reason: `section 1 (".text") at offset 0x40 size 0x76c00000 runs past the end of the file`},
		{name: ".text of 1.9 GiB in a sparse 2 GiB input", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 1, 32), 1900<<20)
			return d
		}, size: 2 << 30, is: ErrLimit, reason: `reading section 1 (".text"): section contents add up to more than the limit of 256 MiB`},
		{name: "extended section count", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint16(d[0x3c:], 0)                       // e_shnum: see section 0
			binary.LittleEndian.PutUint64(header64(d, 0, 32), MaxSections+1) // sh_size of section 0
			return d
		}, size: 1 << 30, is: ErrLimit, reason: "262145 sections, more than the limit of 262144"},
		{name: "section headers past the end", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint16(d[0x3c:], 0xfe00)
			return d
		}, is: ErrCorrupt, reason: "section header table at offset"},
		{name: "symbol count", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 3, 32), (MaxSymbols+1)*24)
			return d
		}, size: 1 << 30, is: ErrLimit, reason: "symbol table of 2097153 entries, more than the limit of 2097152"},
		{name: "relocation count", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 2, 32), (MaxRelocs+1)*24)
			return d
		}, size: 1 << 30, is: ErrLimit, reason: `relocation section 2 (".rela.text") brings the relocations read to more than the limit of 8388608`},
		{name: "symbol name past its string table", data: func() []byte {
			d := x86.build()
			symtab := binary.LittleEndian.Uint64(header64(d, 3, 24))
			binary.LittleEndian.PutUint32(d[symtab+24:], 0x7fff) // st_name of f
			return d
		}, is: ErrCorrupt, reason: "symbol 1's name offset 0x7fff is past the end of its string table"},
		{name: "section names multiply .shstrtab", data: func() []byte {
			long := strings.Repeat("n", 4000)
			secs := []testSection{{name: long, typ: elf.SHT_PROGBITS}}
			for i := 0; i < 20000; i++ {
				secs = append(secs, testSection{typ: elf.SHT_PROGBITS, nameOffset: 1})
			}
			return buildELF(elf.ELFCLASS64, elf.EM_X86_64, elf.ET_REL, secs)
		}, is: ErrLimit, reason: "section names take more than the limit of 64 MiB"},
		{name: "overlapping executable sections", data: func() []byte {
			d := x86.build()
			var secs []testSection
			for i := 0; i < 100; i++ {
				secs = append(secs, testSection{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, offset: 1, size: uint64(len(d)) * 4})
			}
			secs = append(secs, testSection{name: "pad", typ: elf.SHT_PROGBITS, data: make([]byte, len(d)*4)})
			return buildELF(elf.ELFCLASS64, elf.EM_X86_64, elf.ET_REL, secs)
		}, is: ErrLimit, reason: `reading section 4 (".text"): section contents add up to more than the file (overlapping sections)`},
		{name: "compressed section name table", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 5, 8), uint64(elf.SHF_COMPRESSED))
			return d
		}, is: ErrCorrupt, reason: "section name table (section 5) is compressed"},
		{name: "compressed symbol table", data: func() []byte {
			d := x86.build()
			binary.LittleEndian.PutUint64(header64(d, 3, 8), uint64(elf.SHF_COMPRESSED))
			return d
		}, is: ErrCorrupt, reason: `section 3 (".symtab") is compressed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data()
			size := tt.size
			if size == 0 {
				size = int64(len(data))
			}
			r := &sparseReader{data: data, size: size}
			f, err := NewFile(r, "bad.o")
			if err == nil {
				_, err = f.Sites()
			}
			requireLimitError(t, err, tt.is, "bad.o: "+tt.reason)
			assert.Less(t, r.read, int64(64<<20), "bytes read")
		})
	}
}

// TestLoadBudgetKeepsFixtures: the read budget (the file's size) admits
// every fixture.
func TestLoadBudgetKeepsFixtures(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.[oe]*")
	require.NoError(t, err)
	n := 0
	for _, p := range paths {
		if strings.HasSuffix(p, ".objdump") {
			continue
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := NewFile(bytes.NewReader(data), p)
		require.NoError(t, err, p)
		_, err = f.Sites()
		require.NoError(t, err, p)
		n++
	}
	require.Greater(t, n, 20)
}
