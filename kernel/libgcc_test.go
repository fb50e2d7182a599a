package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/stretchr/testify/require"
)

// helperLib is the helper library alone, laid out at ARMBase.
func helperLib(t testing.TB) *Image {
	a := &asm{img: &Image{Arch: ARM, Base: ARMBase, Align: 4}}
	armText{a}.libgcc(func(string) bool { return false })
	img, err := a.finish()
	require.NoError(t, err)
	return img
}

// stackBus is the memory a helper sees: a stack below stackTop.
type stackBus struct{ mem [256]byte }

const (
	stackTop  = 0x100000
	returnTag = 0x7ff0 // lr at entry: below the text, never executed
)

func (b *stackBus) slot(addr uint64, size int) ([]byte, error) {
	lo := uint64(stackTop - len(b.mem))
	if addr < lo || addr+uint64(size) > stackTop || addr%uint64(size) != 0 {
		return nil, isa.Detail(fmt.Sprintf("access at %#x", addr), isa.ErrMemory)
	}
	return b.mem[addr-lo : addr-lo+uint64(size)], nil
}

func (b *stackBus) Load(addr uint64, size int, _ uint8) (uint64, error) {
	s, err := b.slot(addr, size)
	if err != nil || size != 4 {
		return 0, isa.Detail("helper load", isa.ErrMemory)
	}
	return uint64(binary.LittleEndian.Uint32(s)), nil
}

func (b *stackBus) Store(addr uint64, size int, v uint64, _ uint8) error {
	s, err := b.slot(addr, size)
	if err != nil || size != 4 {
		return isa.Detail("helper store", isa.ErrMemory)
	}
	binary.LittleEndian.PutUint32(s, uint32(v))
	return nil
}

// callHelper runs name with r0-r3 = args and returns r0-r3 and the
// instructions executed. It fails the test if a callee-saved register or
// sp is not preserved.
func callHelper(t testing.TB, img *Image, name string, args [4]uint32) ([4]uint32, int) {
	t.Helper()
	entry, ok := img.Symbol(name)
	require.True(t, ok, name)
	var r arm.Regs
	copy(r.R[:4], args[:])
	for i := 4; i < 12; i++ {
		r.R[i] = 0x1000 + uint32(i)
	}
	r.R[arm.SP], r.R[arm.LR], r.R[arm.PC] = stackTop, returnTag, uint32(entry)
	saved := r.R
	var bus stackBus
	n := 0
	decoded := helperDecoded(t, img)
	for r.R[arm.PC] != returnTag {
		pc := uint64(r.R[arm.PC])
		if pc < img.Base || pc+4 > img.Base+uint64(len(img.Text)) {
			t.Fatalf("%s: pc %#x outside the library", name, pc)
		}
		_, err := arm.Exec(&decoded[(pc-img.Base)/4], &r, &bus)
		if err != nil {
			t.Fatalf("%s at %s: %v", name, img.Name(pc), err)
		}
		if n++; n > 5000 {
			t.Fatalf("%s%v runs away", name, args)
		}
	}
	for i := 4; i < 12; i++ {
		require.Equal(t, saved[i], r.R[i], "%s clobbers r%d", name, i)
	}
	require.Equal(t, saved[arm.SP], r.R[arm.SP], "%s moves sp", name)
	return [4]uint32(r.R[:4]), n
}

var decodedLib []arm.Inst

// helperDecoded decodes the (immutable) library once.
func helperDecoded(t testing.TB, img *Image) []arm.Inst {
	if decodedLib == nil {
		for off := 0; off < len(img.Text); off += 4 {
			inst, err := arm.Decode(uint32(img.Base)+uint32(off), binary.LittleEndian.Uint32(img.Text[off:]))
			require.NoError(t, err)
			decodedLib = append(decodedLib, inst)
		}
	}
	return decodedLib
}

func u32s(rng *rand.Rand) uint32 {
	switch rng.Intn(10) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return math.MaxUint32
	case 3:
		return 1 << 31
	case 4:
		return 1<<31 - 1
	case 5:
		return uint32(rng.Intn(16))
	case 6:
		return uint32(1) << rng.Intn(32)
	case 7:
		return rng.Uint32() >> rng.Intn(32)
	}
	return rng.Uint32()
}

func u64s(rng *rand.Rand) uint64 {
	switch rng.Intn(6) {
	case 0:
		return uint64(u32s(rng))
	case 1:
		return uint64(u32s(rng)) << 32
	case 2:
		return math.MaxUint64 >> rng.Intn(64)
	case 3:
		return 1 << 63
	}
	return uint64(u32s(rng))<<32 | uint64(u32s(rng))
}

func split(v uint64) (uint32, uint32) { return uint32(v), uint32(v >> 32) }
func join(lo, hi uint32) uint64       { return uint64(hi)<<32 | uint64(lo) }

// TestARMHelpers runs every helper under the A32 executor on 10,000
// random operands (edge values weighted in, a zero divisor among them)
// and compares with Go.
func TestARMHelpers(t *testing.T) {
	img := helperLib(t)
	rng := rand.New(rand.NewSource(21))
	n := 10000
	if testing.Short() {
		n = 300
	}
	maxSteps := map[string]int{}
	run := func(name string, args [4]uint32) [4]uint32 {
		out, steps := callHelper(t, img, name, args)
		maxSteps[name] = max(maxSteps[name], steps)
		return out
	}
	for i := 0; i < n; i++ {
		a, d := u32s(rng), u32s(rng)
		var q, m uint32 // division by zero: quotient 0, remainder the dividend (as Linux)
		if d == 0 {
			q, m = 0, a
		} else {
			q, m = a/d, a%d
		}
		for _, name := range []string{"__aeabi_uidiv", "__aeabi_uidivmod", "__udivsi3"} {
			out := run(name, [4]uint32{a, d})
			require.Equal(t, q, out[0], "%s(%#x, %#x)", name, a, d)
			if name == "__aeabi_uidivmod" {
				require.Equal(t, m, out[1], "%s(%#x, %#x) remainder", name, a, d)
			}
		}
		require.Equal(t, m, run("__umodsi3", [4]uint32{a, d})[0], "__umodsi3(%#x, %#x)", a, d)

		sa, sd := int32(a), int32(d)
		var sq, sm int32
		if sd != 0 {
			sq, sm = sa/sd, sa%sd // Go: MinInt32 / -1 = MinInt32, as the helper
		} else {
			sm = sa
		}
		for _, name := range []string{"__aeabi_idiv", "__aeabi_idivmod", "__divsi3"} {
			out := run(name, [4]uint32{a, d})
			require.Equal(t, sq, int32(out[0]), "%s(%d, %d)", name, sa, sd)
			if name == "__aeabi_idivmod" {
				require.Equal(t, sm, int32(out[1]), "%s(%d, %d) remainder", name, sa, sd)
			}
		}
		require.Equal(t, sm, int32(run("__modsi3", [4]uint32{a, d})[0]), "__modsi3(%d, %d)", sa, sd)

		x, y := u64s(rng), u64s(rng)
		if rng.Intn(20) == 0 {
			y = 0
		}
		var uq, um uint64 = 0, x
		if y != 0 {
			uq, um = x/y, x%y
		}
		xl, xh := split(x)
		yl, yh := split(y)
		for _, name := range []string{"__aeabi_uldivmod", "__udivdi3"} {
			out := run(name, [4]uint32{xl, xh, yl, yh})
			require.Equal(t, uq, join(out[0], out[1]), "%s(%#x, %#x)", name, x, y)
			if name == "__aeabi_uldivmod" {
				require.Equal(t, um, join(out[2], out[3]), "%s(%#x, %#x) remainder", name, x, y)
			}
		}
		out := run("__umoddi3", [4]uint32{xl, xh, yl, yh})
		require.Equal(t, um, join(out[0], out[1]), "__umoddi3(%#x, %#x)", x, y)

		var lq, lm int64 = 0, int64(x)
		if y != 0 {
			lq, lm = int64(x)/int64(y), int64(x)%int64(y)
		}
		for _, name := range []string{"__aeabi_ldivmod", "__divdi3"} {
			out := run(name, [4]uint32{xl, xh, yl, yh})
			require.Equal(t, lq, int64(join(out[0], out[1])), "%s(%d, %d)", name, int64(x), int64(y))
			if name == "__aeabi_ldivmod" {
				require.Equal(t, lm, int64(join(out[2], out[3])), "%s(%d, %d) remainder", name, int64(x), int64(y))
			}
		}
		out = run("__moddi3", [4]uint32{xl, xh, yl, yh})
		require.Equal(t, lm, int64(join(out[0], out[1])), "__moddi3(%d, %d)", int64(x), int64(y))

		s := uint32(rng.Intn(64))
		if rng.Intn(8) == 0 {
			s = uint32(rng.Intn(256))
		}
		for _, c := range []struct {
			names []string
			want  uint64
		}{
			{[]string{"__aeabi_llsl", "__ashldi3"}, x << s},
			{[]string{"__aeabi_llsr", "__lshrdi3"}, x >> s},
			{[]string{"__aeabi_lasr", "__ashrdi3"}, uint64(int64(x) >> s)},
			{[]string{"__aeabi_lmul", "__muldi3"}, x * y},
		} {
			for _, name := range c.names {
				args := [4]uint32{xl, xh, s, 0xdead}
				if c.names[0] == "__aeabi_lmul" {
					args = [4]uint32{xl, xh, yl, yh}
				}
				out := run(name, args)
				require.Equal(t, c.want, join(out[0], out[1]), "%s(%#x, %d/%#x)", name, x, s, y)
			}
		}
	}
	t.Logf("most instructions per call: %v", maxSteps)
}

// TestARMHelperSymbols: every helper name is a symbol of the library, and
// the library decodes to instructions the executor runs.
func TestARMHelperSymbols(t *testing.T) {
	img := helperLib(t)
	for _, n := range ARMHelpers() {
		_, ok := img.Symbol(n)
		require.True(t, ok, n)
		require.True(t, IsARMHelper(n))
	}
	require.False(t, IsARMHelper("ext_fn"))
	require.Len(t, ARMHelpers(), 43)
	for off := 0; off < len(img.Text); off += 4 {
		_, err := arm.Decode(uint32(img.Base)+uint32(off), binary.LittleEndian.Uint32(img.Text[off:]))
		require.NoError(t, err, "at %s", img.Name(img.Base+uint64(off)))
	}
}

// armBitHelpers are the bit helpers, each with its argument words (1: a
// 32-bit x in r0; 2: a 64-bit x in r1:r0) and result words (1 or 2).
var armBitHelpers = []struct {
	name     string
	in, outs int
}{
	{"__popcountsi2", 1, 1}, {"__popcountdi2", 2, 1}, {"__paritysi2", 1, 1}, {"__paritydi2", 2, 1},
	{"__ctzdi2", 2, 1}, {"__ffsdi2", 2, 1}, {"__clrsbsi2", 1, 1}, {"__clrsbdi2", 2, 1},
	{"__bswapsi2", 1, 1}, {"__bswapdi2", 2, 2},
}

// armBitWant is what helper name returns for x (Go's math/bits; for
// __ctzdi2(0), libgcc's 31).
func armBitWant(name string, x uint64) uint64 {
	lo := uint32(x)
	switch name {
	case "__popcountsi2":
		return uint64(bits.OnesCount32(lo))
	case "__popcountdi2":
		return uint64(bits.OnesCount64(x))
	case "__paritysi2":
		return uint64(bits.OnesCount32(lo) & 1)
	case "__paritydi2":
		return uint64(bits.OnesCount64(x) & 1)
	case "__ctzdi2":
		if x == 0 {
			return 31
		}
		return uint64(bits.TrailingZeros64(x))
	case "__ffsdi2":
		if x == 0 {
			return 0
		}
		return uint64(bits.TrailingZeros64(x) + 1)
	case "__clrsbsi2":
		return uint64(uint32(bits.LeadingZeros32(lo^uint32(int32(lo)>>31)) - 1))
	case "__clrsbdi2":
		return uint64(uint32(bits.LeadingZeros64(x^uint64(int64(x)>>63)) - 1))
	case "__bswapsi2":
		return uint64(bits.ReverseBytes32(lo))
	case "__bswapdi2":
		return bits.ReverseBytes64(x)
	}
	panic(name)
}

// callARMBit runs a bit helper on x (garbage in the unused argument
// registers) and returns its result (r0, or r1:r0).
func callARMBit(t testing.TB, img *Image, name string, x uint64) uint64 {
	for _, h := range armBitHelpers {
		if h.name != name {
			continue
		}
		args := [4]uint32{uint32(x), uint32(x >> 32), 0xbad2, 0xbad3}
		if h.in == 1 {
			args[1] = 0xbad1
		}
		out, _ := callHelper(t, img, name, args)
		if h.outs == 2 {
			return join(out[0], out[1])
		}
		return uint64(out[0])
	}
	panic(name)
}

// TestARMBitHelpers runs every bit helper under the A32 executor on 3,000
// operands and compares with Go.
func TestARMBitHelpers(t *testing.T) {
	img := helperLib(t)
	rng := rand.New(rand.NewSource(7))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		x := u64s(rng)
		if i < 4 {
			x = []uint64{0, 1, 1 << 63, 1 << 32}[i]
		}
		for _, h := range armBitHelpers {
			v := x
			if h.in == 1 {
				v = uint64(uint32(x))
			}
			require.Equal(t, armBitWant(h.name, v), callARMBit(t, img, h.name, v), "%s(%#x)", h.name, v)
		}
	}
}

// TestARMBitHelpersQEMU compares the bit helpers with libgcc's own (gcc
// 12's libgcc.a for arm-linux-gnueabi, under qemu-arm) on 300 operands,
// zero included.
func TestARMBitHelpersQEMU(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a harness")
	}
	gcc := oracle.Tool(t, "gcc-arm-linux-gnueabi", "the ARM bit helpers against libgcc (kernel)", "arm-linux-gnueabi-gcc")
	qemu := oracle.Tool(t, "qemu-user", "the ARM bit helpers against libgcc (kernel)", "qemu-arm")
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n#include <string.h>\n")
	for _, h := range armBitHelpers {
		ret, arg := "int", "unsigned int"
		if h.in == 2 {
			arg = "unsigned long long"
		}
		if h.outs == 2 {
			ret = "unsigned long long"
		}
		fmt.Fprintf(&src, "extern %s %s(%s);\n", ret, h.name, arg)
	}
	src.WriteString("int main(void) {\n\tchar name[32]; unsigned long long x;\n\twhile (scanf(\"%31s %llx\", name, &x) == 2) {\n\t\tunsigned long long r = 0;\n")
	for _, h := range armBitHelpers {
		cast := "(unsigned int)x"
		if h.in == 2 {
			cast = "x"
		}
		res := "(unsigned int)"
		if h.outs == 2 {
			res = ""
		}
		fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"%s\")) r = %s%s(%s);\n", h.name, res, h.name, cast)
	}
	src.WriteString("\t\tprintf(\"%llx\\n\", r);\n\t}\n\treturn 0;\n}\n")
	dir := t.TempDir()
	c, exe := filepath.Join(dir, "h.c"), filepath.Join(dir, "h")
	require.NoError(t, os.WriteFile(c, []byte(src.String()), 0o644))
	out, err := exec.Command(gcc, "-static", "-O1", "-o", exe, c).CombinedOutput()
	require.NoError(t, err, "%s", out)
	rng := rand.New(rand.NewSource(8))
	type q struct {
		name string
		x    uint64
	}
	var qs []q
	var in strings.Builder
	for i := 0; i < 300; i++ {
		x := u64s(rng)
		if i < 3 {
			x = []uint64{0, 1 << 32, 0xffffffff}[i]
		}
		for _, h := range armBitHelpers {
			v := x
			if h.in == 1 {
				v = uint64(uint32(x))
			}
			qs = append(qs, q{h.name, v})
			fmt.Fprintf(&in, "%s %x\n", h.name, v)
		}
	}
	cmd := exec.Command(qemu, exe)
	cmd.Stdin = strings.NewReader(in.String())
	res, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Fields(string(res))
	require.Len(t, lines, len(qs))
	img := helperLib(t)
	for i, x := range qs {
		want, err := strconv.ParseUint(lines[i], 16, 64)
		require.NoError(t, err)
		require.Equal(t, want, callARMBit(t, img, x.name, x.x), "%s(%#x): libgcc %#x", x.name, x.x, want)
	}
}
