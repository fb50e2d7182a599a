package kernel

import (
	"encoding/binary"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa/arm64"
)

func arm64Words(img *Image, addr, n uint64) []uint32 {
	var out []uint32
	for a := addr; a < addr+n; a += 4 {
		out = append(out, binary.LittleEndian.Uint32(img.Text[a-img.Base:]))
	}
	return out
}

func symAddr(t *testing.T, img *Image, name string) uint64 {
	t.Helper()
	a, ok := img.Symbol(name)
	require.True(t, ok, name)
	return a
}

// The three layouts: where each site is, what it holds as compiled, and
// the data ftrace_caller loads.
func TestARM64Layouts(t *testing.T) {
	for _, c := range []struct {
		prologue       string
		site, siteLen  uint64
		call           uint64
		compiled       []uint32
		f0             uint64
		data           []string // symbol: the symbol its first word points at
		dataAddr, next uint64
	}{
		{ARM64PFE2, 0x400028, 8, 0x40002c, []uint32{0xd503201f, 0xd503201f}, 0x400028,
			[]string{"function_trace_op", "tracer_ops", "tracer_ops", "trace_function"}, 0x401000, 16},
		{ARM64PFE42, 0x400028, 16, 0x400034, []uint32{0xd503201f, 0xd503201f, 0xd503201f, 0xd503201f}, 0x400030,
			[]string{"tracer_ops", "trace_function", "ftrace_nop_ops", "ftrace_stub"}, 0x401000, 16},
		{ARM64PG, 0x400040, 4, 0x400040, []uint32{0x94000000 | (0x400088-0x400040)>>2}, 0x400028, nil, 0, 0},
	} {
		t.Run(c.prologue, func(t *testing.T) {
			img, err := Build(ARM64, Config{Prologue: c.prologue})
			require.NoError(t, err)
			assert.Equal(t, ARM64, img.Arch)
			assert.Equal(t, 4, img.Align)
			assert.Equal(t, uint64(ARM64Base), img.Entry)
			require.Len(t, img.Sites, 1)
			s := img.Sites[0]
			assert.Equal(t, Site{Func: "f0", Addr: c.site, Len: int(c.siteLen), Call: c.call}, s)
			assert.Equal(t, c.f0, symAddr(t, img, "f0"))
			assert.Equal(t, c.compiled, arm64Words(img, s.Addr, c.siteLen))
			if c.prologue == ARM64PFE42 {
				assert.Zero(t, s.Addr%8, "the ops literal is 8-byte aligned")
				assert.Equal(t, s.Addr+8, c.f0, "the literal is the two words before the symbol")
			}
			if c.prologue == ARM64PG {
				assert.Equal(t, "bl 0x400088", arm64.DisasmWord(s.Call, c.compiled[0]))
				assert.Equal(t, uint64(0x400088), symAddr(t, img, "_mcount"))
			}
			if c.data == nil {
				assert.Empty(t, img.Data)
				return
			}
			require.Len(t, img.Data, 1)
			seg := img.Data[0]
			assert.Equal(t, c.dataAddr, seg.Addr)
			for i := 0; i < len(c.data); i += 2 {
				at := symAddr(t, img, c.data[i])
				assert.Equal(t, c.dataAddr+uint64(i/2)*c.next, at)
				assert.Equal(t, symAddr(t, img, c.data[i+1]), binary.LittleEndian.Uint64(seg.Bytes[at-seg.Addr:]), c.data[i])
			}
			// Every word of text decodes and executes.
			for a := img.Base; a < img.Base+uint64(len(img.Text)); a += 4 {
				inst, err := arm64.Decode(a, binary.LittleEndian.Uint32(img.Text[a-img.Base:]))
				require.NoError(t, err, "%#x", a)
				require.True(t, inst.Supported(), "%#x: %s", a, arm64.Disasm(&inst, a, img.Name))
			}
		})
	}
	_, err := Build(ARM64, Config{Prologue: "fentry"})
	assert.EqualError(t, err, `kernel: unknown arm64 prologue "fentry" (want pfe2, pfe4-2 or pg)`)
}

// ftrace_caller (WITH_ARGS, CALL_OPS) as entry-ftrace.S has it.
func TestARM64FtraceCallerCallOps(t *testing.T) {
	img, err := Build(ARM64, Config{Prologue: ARM64PFE42})
	require.NoError(t, err)
	fc := symAddr(t, img, "ftrace_caller")
	var got []string
	for i, w := range arm64Words(img, fc, 0x84) {
		got = append(got, arm64.DisasmWord(fc+uint64(4*i), w))
	}
	assert.Equal(t, []string{
		"bti c", "mov x10, sp", "sub sp, sp, #0x90",
		"stp x0, x1, [sp]", "stp x2, x3, [sp, #16]", "stp x4, x5, [sp, #32]", "stp x6, x7, [sp, #48]", "str x8, [sp, #64]",
		"str x29, [sp, #80]", "str x9, [sp, #88]", "str x10, [sp, #96]", "str x30, [sp, #104]",
		"stp x29, x9, [sp, #128]", "add x29, sp, #0x80", "stp x29, x30, [sp, #112]", "add x29, sp, #0x70",
		"sub x0, x30, #0x4", "mov x1, x9", "mov x3, sp",
		"and x2, x30, #0xfffffffffffffff8", "ldur x2, [x2, #-16]", "ldr x4, [x2]", "blr x4",
		"ldp x0, x1, [sp]", "ldp x2, x3, [sp, #16]", "ldp x4, x5, [sp, #32]", "ldp x6, x7, [sp, #48]", "ldr x8, [sp, #64]",
		"ldr x29, [sp, #80]", "ldr x30, [sp, #88]", "ldr x9, [sp, #104]", "add sp, sp, #0x90", "ret x9",
	}, got)
}

var objdumpLine = regexp.MustCompile(`^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s`)

// The traced function of each layout is, word for word, what
// aarch64-linux-gnu-gcc -O2 emits for int f(int x) { return g(x) + 1; }
// (BL offsets aside: in the object they are relocations).
func TestARM64TracedShapeIsGCCs(t *testing.T) {
	oracle.Tool(t, "gcc-aarch64-linux-gnu", "the arm64 layout against gcc's (kernel)", "aarch64-linux-gnu-gcc")
	oracle.Tool(t, "binutils-aarch64-linux-gnu", "the arm64 layout against gcc's (kernel)", "aarch64-linux-gnu-objdump")
	dir := t.TempDir()
	src := filepath.Join(dir, "f.c")
	require.NoError(t, os.WriteFile(src, []byte("int g(int);\nint f(int x) { return g(x) + 1; }\n"), 0o644))
	for _, c := range []struct {
		prologue string
		flags    []string
		before   uint64 // words gcc emits before the symbol
	}{
		{ARM64PFE2, []string{"-fpatchable-function-entry=2"}, 0},
		{ARM64PFE42, []string{"-fpatchable-function-entry=4,2", "-falign-functions=8"}, 2},
		{ARM64PG, []string{"-pg"}, 0},
	} {
		t.Run(c.prologue, func(t *testing.T) {
			obj := filepath.Join(dir, c.prologue+".o")
			out, err := exec.Command("aarch64-linux-gnu-gcc", append([]string{"-O2", "-c", "-o", obj, src}, c.flags...)...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			out, err = exec.Command("aarch64-linux-gnu-objdump", "-d", obj).CombinedOutput()
			require.NoError(t, err, "%s", out)
			var want []uint32
			for _, line := range regexp.MustCompile(`\n`).Split(string(out), -1) {
				if m := objdumpLine.FindStringSubmatch(line); m != nil {
					w, _ := strconv.ParseUint(m[2], 16, 32)
					want = append(want, uint32(w))
				}
			}
			img, err := Build(ARM64, Config{Prologue: c.prologue})
			require.NoError(t, err)
			f0 := symAddr(t, img, "f0")
			got := arm64Words(img, f0-4*c.before, 4*uint64(len(want)))
			mask := func(ws []uint32) []uint32 {
				out := make([]uint32, len(ws))
				for i, w := range ws {
					if w&0xfc000000 == 0x94000000 {
						w = 0x94000000 // bl: the offset is a relocation in the object
					}
					out[i] = w
				}
				return out
			}
			assert.Equal(t, mask(want), mask(got))
		})
	}
}
