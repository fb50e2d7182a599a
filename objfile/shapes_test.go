package objfile_test

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/objfile"
)

var (
	reloc = objfile.MethodReloc
	mloc  = objfile.MethodMloc
	pfe   = objfile.MethodPFE
)

// traced lists the functions of src/shapes.c that get a site under -pg;
// -fpatchable-function-entry also instruments untraced (gcc 12's
// no_instrument_function does not remove patchable NOPs).
var traced = []string{"big_frame", "cold_report", "helper_static", "init_fn", "leaf", "main",
	"sibling", "sum_va", "vla", "weak_hook", "with_unlikely"}

var tracedPFE = []string{"big_frame", "cold_report", "helper_static", "init_fn", "leaf", "main",
	"sibling", "sum_va", "untraced", "vla", "weak_hook", "with_unlikely"}

// TestSitesShapes pins what each fixture's sites look like: methods,
// relocation types, bytes, offsets from the function, ARM details.
func TestSitesShapes(t *testing.T) {
	tests := []struct {
		file    string
		arch    objfile.Arch
		methods []objfile.Method
		reloc   string   // RelocType of every site
		bytes   string   // hex bytes of every site
		funcs   []string // functions with a site
		funcOff int64    // FunctionOffset of every site, when >= -64
		linked  bool
		check   func(t *testing.T, f *objfile.File, s objfile.Site)
	}{
		{file: "arm-pg.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc}, reloc: "R_ARM_CALL", bytes: "feffffeb", funcs: traced, funcOff: -100, check: armPush(false)},
		{file: "arm-marm-pg.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc}, reloc: "R_ARM_CALL", bytes: "feffffeb", funcs: traced, funcOff: -100, check: armPush(false)},
		{file: "arm-apcs-pg.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc}, reloc: "R_ARM_CALL", bytes: "feffffeb", funcs: traced, funcOff: -100, check: armPush(false)},
		{file: "arm-thumb-pg.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc}, reloc: "R_ARM_THM_CALL", bytes: "fff7feff", funcs: traced, funcOff: -100, check: armPush(true)},
		{file: "arm-marm-mloc.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc, mloc}, reloc: "R_ARM_CALL", bytes: "feffffeb", funcs: traced, funcOff: -100, check: armPush(false)},
		{file: "arm-thumb-mloc.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc, mloc}, reloc: "R_ARM_THM_CALL", bytes: "fff7feff", funcs: traced, funcOff: -100, check: armPush(true)},

		// Made by the kernel's own scripts/recordmcount and objtool (6.1).
		{file: "arm-marm-recordmcount.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc, mloc}, reloc: "R_ARM_CALL", bytes: "feffffeb", funcs: traced, funcOff: -100, check: armPush(false)},
		{file: "arm-thumb-recordmcount.o", arch: objfile.ArchARM, methods: []objfile.Method{reloc, mloc}, reloc: "R_ARM_THM_CALL", bytes: "fff7feff", funcs: traced, funcOff: -100, check: armPush(true)},
		{file: "x86-pg-recordmcount.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc, mloc}, reloc: "R_X86_64_PLT32", bytes: "e800000000", funcs: traced, funcOff: -100},
		{file: "x86-fentry-recordmcount.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc, mloc}, reloc: "R_X86_64_PLT32", bytes: "e800000000", funcs: traced, funcOff: 0},
		{file: "x86-fentry-objtool.o", arch: objfile.ArchX86_64, methods: []objfile.Method{mloc}, reloc: "R_X86_64_NONE", bytes: "0f1f440000", funcs: traced, funcOff: 0,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Equal(t, "__fentry__", s.Target)
			}},
		{file: "arm64-pg-recordmcount.o", arch: objfile.ArchARM64, methods: []objfile.Method{reloc, mloc}, reloc: "R_AARCH64_CALL26", bytes: "00000094", funcs: traced, funcOff: -100},

		{file: "x86-pg-pie.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc}, reloc: "R_X86_64_GOTPCRELX", bytes: "ff1500000000", funcs: traced, funcOff: -100,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Positive(t, s.FunctionOffset, "mcount comes after the frame setup")
				assert.Equal(t, "mcount", s.Target)
			}},
		{file: "x86-pg.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc}, reloc: "R_X86_64_PLT32", bytes: "e800000000", funcs: traced, funcOff: -100},
		{file: "x86-fentry-pie.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc}, reloc: "R_X86_64_GOTPCRELX", bytes: "ff1500000000", funcs: traced, funcOff: 0},
		{file: "x86-fentry.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc}, reloc: "R_X86_64_PLT32", bytes: "e800000000", funcs: traced, funcOff: 0},
		{file: "x86-fentry-mrecord-pie.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc, mloc}, reloc: "R_X86_64_GOTPCRELX", bytes: "ff1500000000", funcs: traced, funcOff: 0},
		{file: "x86-fentry-mrecord.o", arch: objfile.ArchX86_64, methods: []objfile.Method{reloc, mloc}, reloc: "R_X86_64_PLT32", bytes: "e800000000", funcs: traced, funcOff: 0},
		{file: "x86-fentry-mrecord-nop.o", arch: objfile.ArchX86_64, methods: []objfile.Method{mloc}, reloc: "", bytes: "0f1f440000", funcs: traced, funcOff: 0},
		{file: "x86-objtool.o", arch: objfile.ArchX86_64, methods: []objfile.Method{mloc}, reloc: "R_X86_64_NONE", bytes: "0f1f440000", funcs: traced, funcOff: 0,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Equal(t, "__fentry__", s.Target)
				assert.Equal(t, "nopl (%rax,%rax)", s.Disasm)
			}},
		{file: "x86-fentry-mrecord.exe", arch: objfile.ArchX86_64, methods: []objfile.Method{mloc}, reloc: "", funcs: traced, funcOff: 0, linked: true,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Equal(t, byte(0xe8), s.Bytes[0])
				var fentry uint64
				for _, sym := range f.Symbols {
					if sym.Name == "__fentry__" {
						fentry = sym.Value
					}
				}
				assert.Equal(t, fmt.Sprintf("callq %#x", fentry), s.Disasm, "calls the stub __fentry__")
			}},
		// Position-independent: the tables are filled in by RELATIVE
		// dynamic relocations; the linker relaxed the GOT call.
		{file: "x86-fentry-mrecord-pie.exe", arch: objfile.ArchX86_64, methods: []objfile.Method{mloc}, reloc: "", bytes: "", funcs: traced, funcOff: 0, linked: true,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Equal(t, elf.ET_DYN, f.Type)
				require.Len(t, s.Bytes, 6, s.FunctionRef())
				assert.Equal(t, []byte{0x67, 0xe8}, s.Bytes[:2], "addr32 call")
				var fentry uint64
				for _, sym := range f.Symbols {
					if sym.Name == "__fentry__" {
						fentry = sym.Value
					}
				}
				assert.Equal(t, fmt.Sprintf("addr32 callq %#x", fentry), s.Disasm, "calls the stub __fentry__")
			}},

		{file: "arm64-pg.o", arch: objfile.ArchARM64, methods: []objfile.Method{reloc}, reloc: "R_AARCH64_CALL26", bytes: "00000094", funcs: traced, funcOff: -100},
		{file: "arm64-pfe2.o", arch: objfile.ArchARM64, methods: []objfile.Method{pfe}, bytes: "1f2003d5", funcs: tracedPFE, funcOff: 0},
		{file: "arm64-pfe4-2.o", arch: objfile.ArchARM64, methods: []objfile.Method{pfe}, bytes: "1f2003d5", funcs: tracedPFE, funcOff: -8},
		{file: "arm64-pfe2.exe", arch: objfile.ArchARM64, methods: []objfile.Method{pfe}, bytes: "1f2003d5", funcs: tracedPFE, funcOff: 0, linked: true},
		{file: "arm64-pfe2-pie.exe", arch: objfile.ArchARM64, methods: []objfile.Method{pfe}, bytes: "1f2003d5", funcs: tracedPFE, funcOff: 0, linked: true, check: pie},
		{file: "arm-pfe2-pie.exe", arch: objfile.ArchARM, methods: []objfile.Method{pfe}, bytes: "0000a0e1", funcs: tracedPFE, funcOff: 0, linked: true,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				pie(t, f, s)
				assert.False(t, s.Thumb)
				assert.Equal(t, "mov r0, r0", s.Disasm)
			}},

		{file: "riscv64-pg.o", arch: objfile.ArchRISCV64, methods: []objfile.Method{reloc}, reloc: "R_RISCV_CALL_PLT", bytes: "97000000e7800000", funcs: traced, funcOff: -100,
			check: func(t *testing.T, f *objfile.File, s objfile.Site) {
				assert.Equal(t, "auipc x1,0x0; jalr x1", s.Disasm)
			}},
		{file: "riscv64-pfe4.o", arch: objfile.ArchRISCV64, methods: []objfile.Method{pfe}, bytes: "0100", funcs: tracedPFE, funcOff: 0},
		{file: "riscv64-pfe4-pie.exe", arch: objfile.ArchRISCV64, methods: []objfile.Method{pfe}, bytes: "0100", funcs: tracedPFE, funcOff: 0, linked: true, check: pie},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			f, err := objfile.Open(filepath.Join("testdata", tt.file))
			require.NoError(t, err)
			require.Equal(t, tt.arch, f.Arch)
			sites, err := f.Sites()
			require.NoError(t, err)
			var funcs []string
			for _, s := range sites {
				funcs = append(funcs, s.Function)
				assert.Equal(t, tt.methods, s.Methods, s.FunctionRef())
				assert.Equal(t, tt.reloc, s.RelocType, s.FunctionRef())
				if tt.bytes != "" {
					assert.Equal(t, tt.bytes, hex.EncodeToString(s.Bytes), s.FunctionRef())
				}
				if tt.funcOff >= -64 {
					assert.Equal(t, tt.funcOff, s.FunctionOffset, s.FunctionRef())
				} else {
					assert.True(t, s.FunctionOffset >= 0 && s.FunctionOffset < 64, s.FunctionRef())
				}
				assert.NotEmpty(t, s.Disasm)
				assert.NotContains(t, s.Disasm, "(bad)")
				assert.Equal(t, filepath.Join("testdata", tt.file), s.File)
				assert.Equal(t, tt.arch, s.Arch)
				if tt.linked {
					assert.NotEqual(t, s.SectionOffset, s.Address)
				} else {
					assert.Equal(t, s.SectionOffset, s.Address)
					// Sections gcc puts these functions in.
					switch s.Function {
					case "cold_report":
						assert.Equal(t, ".text.unlikely", s.Section)
					case "init_fn":
						assert.Equal(t, ".init.text", s.Section)
					case "main":
						assert.Equal(t, ".text.startup", s.Section)
					default:
						assert.Equal(t, ".text", s.Section)
					}
				}
				if tt.check != nil {
					tt.check(t, f, s)
				}
			}
			sort.Strings(funcs)
			require.Equal(t, tt.funcs, funcs, "one site per traced function; none for notrace, .cold or fake_push")
		})
	}
	for _, p := range fixtures(t) {
		assert.True(t, seen[filepath.Base(p)], "fixture %s has no shape test", p)
	}
}

// pie checks that a fixture is position-independent and that its sites
// lie at their link-time addresses, in .text (init_fn in .init.text).
func pie(t *testing.T, f *objfile.File, s objfile.Site) {
	assert.Equal(t, elf.ET_DYN, f.Type)
	sec := f.Sections[s.SectionIndex]
	if s.Function == "init_fn" {
		assert.Equal(t, ".init.text", sec.Name)
	} else {
		assert.Equal(t, ".text", sec.Name)
	}
	assert.Equal(t, sec.Addr+s.SectionOffset, s.Address)
}

// armPush checks the ARM details of a -pg site.
func armPush(thumb bool) func(t *testing.T, f *objfile.File, s objfile.Site) {
	return func(t *testing.T, _ *objfile.File, s objfile.Site) {
		assert.Equal(t, thumb, s.Thumb)
		assert.True(t, s.ARMPushLR, "push {lr} before %s", s.FunctionRef())
		assert.Equal(t, "__gnu_mcount_nc", s.Target)
		if thumb {
			assert.Regexp(t, `^bl 0x[0-9a-f]+ \(thumb\)$`, s.Disasm, "the Thumb-2 BL disassembled")
		} else {
			assert.True(t, strings.HasPrefix(s.Disasm, "bl "), s.Disasm)
		}
	}
}

// TestSitesConcurrent runs discovery on the ARM fixtures from several
// goroutines: armasm.Decode is not safe for concurrent use, so this fails
// under -race unless objfile serializes it.
func TestSitesConcurrent(t *testing.T) {
	var files []*objfile.File
	for _, name := range []string{"arm-pg.o", "arm-marm-mloc.o", "arm-apcs-pg.o"} {
		f, err := objfile.Open(filepath.Join("testdata", name))
		require.NoError(t, err)
		files = append(files, f)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(files))
	for i := 0; i < 8; i++ {
		for _, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.Sites()
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
