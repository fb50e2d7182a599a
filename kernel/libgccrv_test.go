package kernel

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/stretchr/testify/require"
)

// rvHelperLib is the riscv64 helper library alone, laid out at RISCVBase.
func rvHelperLib(t testing.TB) *Image {
	a := &asm{img: &Image{Arch: RISCV64, Base: RISCVBase, Align: 2}}
	rvText{a}.libgcc(func(string) bool { return false })
	img, err := a.finish()
	require.NoError(t, err)
	return img
}

// callRVHelper runs name with a0-a2 = args and returns a0, a1 and the
// instructions executed. The helpers touch no memory (a nil bus), and
// every register but a0-a2, t0-t2 and the zero register must be kept.
func callRVHelper(t testing.TB, img *Image, name string, args [3]uint64) ([2]uint64, int) {
	t.Helper()
	entry, ok := img.Symbol(name)
	require.True(t, ok, name)
	var r riscv.Regs
	for i := range r.X {
		r.X[i] = 0x1000 + uint64(i)
	}
	r.X[0] = 0
	copy(r.X[riscv.A0:], args[:])
	r.X[riscv.RA], r.PC = returnTag, entry
	saved := r.X
	n := 0
	for r.PC != returnTag {
		off := r.PC - img.Base
		require.True(t, r.PC >= img.Base && off+4 <= uint64(len(img.Text)), "%s: pc %#x outside the library", name, r.PC)
		inst := rvDecoded(t, img, off)
		_, err := riscv.Exec(inst, &r, nil)
		require.NoError(t, err, "%s at %s", name, img.Name(r.PC))
		if n++; n > 2000 {
			t.Fatalf("%s%v runs away", name, args)
		}
	}
	for i := range r.X {
		switch i {
		case riscv.A0, riscv.A1, riscv.A2, riscv.T0, riscv.T1, riscv.T2:
		default:
			require.Equal(t, saved[i], r.X[i], "%s clobbers x%d", name, i)
		}
	}
	return [2]uint64{r.X[riscv.A0], r.X[riscv.A1]}, n
}

var rvDecodedLib = map[*Image][]riscv.Inst{}

// rvDecoded returns the decoding of the (immutable) library's word at off,
// decoding the library once.
func rvDecoded(t testing.TB, img *Image, off uint64) *riscv.Inst {
	d, ok := rvDecodedLib[img]
	if !ok {
		for o := 0; o+4 <= len(img.Text); o += 4 {
			inst, err := riscv.Decode(img.Base+uint64(o), img.Text[o:o+4])
			require.NoError(t, err)
			d = append(d, inst)
		}
		rvDecodedLib[img] = d
	}
	return &d[off/4]
}

// rvHelperWant is what each helper returns for args (Go's math/bits), as
// the psABI leaves it in a0 (an int sign-extended) and a1.
func rvHelperWant(name string, args [3]uint64) [2]uint64 {
	x := args[0]
	sx := func(v int) [2]uint64 { return [2]uint64{uint64(int64(v)), 0} }
	u128 := func(lo, hi uint64) [2]uint64 { return [2]uint64{lo, hi} }
	s := uint(args[2])
	lo, hi := args[0], args[1]
	switch name {
	case "__clzdi2":
		return sx(bits.LeadingZeros64(x))
	case "__ctzdi2":
		if x == 0 {
			return sx(-1) // libgcc's
		}
		return sx(bits.TrailingZeros64(x))
	case "ffs":
		if uint32(x) == 0 {
			return sx(0)
		}
		return sx(bits.TrailingZeros32(uint32(x)) + 1)
	case "__ffsdi2":
		if x == 0 {
			return sx(0)
		}
		return sx(bits.TrailingZeros64(x) + 1)
	case "__popcountdi2":
		return sx(bits.OnesCount64(x))
	case "__paritydi2":
		return sx(bits.OnesCount64(x) & 1)
	case "__clrsbdi2":
		return sx(bits.LeadingZeros64(x^uint64(int64(x)>>63)) - 1)
	case "__bswapsi2":
		return [2]uint64{uint64(int64(int32(bits.ReverseBytes32(uint32(x))))), 0}
	case "__bswapdi2":
		return [2]uint64{bits.ReverseBytes64(x), 0}
	case "__ashlti3":
		switch {
		case s == 0:
			return u128(lo, hi)
		case s >= 64:
			return u128(0, lo<<(s-64))
		}
		return u128(lo<<s, hi<<s|lo>>(64-s))
	case "__lshrti3":
		switch {
		case s == 0:
			return u128(lo, hi)
		case s >= 64:
			return u128(hi>>(s-64), 0)
		}
		return u128(lo>>s|hi<<(64-s), hi>>s)
	case "__ashrti3":
		switch {
		case s == 0:
			return u128(lo, hi)
		case s >= 64:
			return u128(uint64(int64(hi)>>(s-64)), uint64(int64(hi)>>63))
		}
		return u128(lo>>s|hi<<(64-s), uint64(int64(hi)>>s))
	}
	panic(name)
}

// rvHelperArgs are the operands the tests use: edge values, then random
// ones (u64s), the 128-bit shifts with counts 0-127.
func rvHelperArgs(n int) [][3]uint64 {
	rng := rand.New(rand.NewSource(15))
	out := [][3]uint64{{0, 0, 0}, {1, 0, 1}, {1 << 63, 1 << 63, 63}, {^uint64(0), ^uint64(0), 64}, {0x80, 0x8000000000000000, 127},
		{0x7fffffff, 0xffffffff, 65}, {0xffffffff80000000, 1, 32}, {0x12345678, 0x9abcdef012345678, 96}}
	for len(out) < n {
		out = append(out, [3]uint64{u64s(rng), u64s(rng), uint64(rng.Intn(128))})
	}
	return out
}

// TestRISCVHelpers runs every riscv64 helper under the RV64 executor on
// 1,000 operands and compares with Go.
func TestRISCVHelpers(t *testing.T) {
	img := rvHelperLib(t)
	n := 1000
	if testing.Short() {
		n = 200
	}
	most := map[string]int{}
	for _, args := range rvHelperArgs(n) {
		for _, name := range bitHelpers(rvHelperNames) {
			got, steps := callRVHelper(t, img, name, args)
			most[name] = max(most[name], steps)
			want := rvHelperWant(name, args)
			if !strings.HasSuffix(name, "ti3") {
				got[1], want[1] = 0, 0 // a1 is not a result
			}
			require.Equal(t, want, got, "%s(%#x, %#x, %d)", name, args[0], args[1], args[2])
		}
	}
	t.Logf("most instructions per call: %v", most)
	for _, name := range RISCVHelpers() {
		require.True(t, IsRISCVHelper(name))
	}
	require.False(t, IsRISCVHelper("__udivti3"), "the 128-bit division stays a stub")
	require.Len(t, RISCVHelpers(), 23)
}

// bitHelpers are names without the mem* and str* routines
// (libgccmem_test.go).
func bitHelpers(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "mem") && !strings.HasPrefix(n, "str") && !strings.HasPrefix(n, "__aarch64_") {
			out = append(out, n)
		}
	}
	return out
}

// helperQuery is one helper call of the libgcc comparisons.
type helperQuery struct {
	name string
	args [3]uint64
}

// libgccNative runs every query through libgcc's own helper, linked
// statically by the cross compiler gcc and run under qemu (an LP64 target
// with __int128: riscv64 or arm64), and returns the result registers of
// each (a0/x0 and, for the 128-bit shifts, a1/x1).
func libgccNative(t *testing.T, gcc, qemu string, names []string, qs []helperQuery) [][2]uint64 {
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n#include <string.h>\n#include <strings.h>\n#include <stdlib.h>\n")
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "ti3"):
			fmt.Fprintf(&src, "extern __int128 %s(__int128, int);\n", n)
		case strings.HasPrefix(n, "__bswap"):
			fmt.Fprintf(&src, "extern long %s(long);\n", n)
		case n == "ffs": // <strings.h> declares it
		default:
			fmt.Fprintf(&src, "extern int %s(long);\n", n)
		}
	}
	src.WriteString(`int main(void) {
	char name[32]; unsigned long a, b; int s;
	while (scanf("%31s %lx %lx %d", name, &a, &b, &s) == 4) {
		unsigned __int128 v = ((unsigned __int128)b << 64) | a, r = 0;
`)
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "ti3"):
			fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"%s\")) r = (unsigned __int128)%s((__int128)v, s);\n", n, n)
		case n == "__bswapsi2":
			fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"%s\")) r = (unsigned long)(long)(int)%s((long)(int)a);\n", n, n)
		case n == "ffs":
			fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"ffs\")) r = (unsigned long)(long)ffs((int)a);\n")
		case strings.HasPrefix(n, "__bswap"):
			fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"%s\")) r = (unsigned long)%s((long)a);\n", n, n)
		default:
			fmt.Fprintf(&src, "\t\tif (!strcmp(name, \"%s\")) r = (unsigned long)(long)%s((long)a);\n", n, n)
		}
	}
	src.WriteString(`		printf("%lx %lx\n", (unsigned long)r, (unsigned long)(r >> 64));
	}
	return 0;
}
`)
	dir := t.TempDir()
	c, exe := filepath.Join(dir, "h.c"), filepath.Join(dir, "h")
	require.NoError(t, os.WriteFile(c, []byte(src.String()), 0o644))
	out, err := exec.Command(gcc, "-static", "-O1", "-o", exe, c).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var in strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&in, "%s %x %x %d\n", q.name, q.args[0], q.args[1], int(q.args[2]))
	}
	cmd := exec.Command(qemu, exe)
	cmd.Stdin = strings.NewReader(in.String())
	res, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(res)), "\n")
	require.Len(t, lines, len(qs))
	var vals [][2]uint64
	for _, line := range lines {
		f := strings.Fields(line)
		require.Len(t, f, 2)
		lo, err1 := strconv.ParseUint(f[0], 16, 64)
		hi, err2 := strconv.ParseUint(f[1], 16, 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		vals = append(vals, [2]uint64{lo, hi})
	}
	return vals
}

// helperQueries are the 400 operands of each helper of names that the
// libgcc comparisons use (an int argument sign-extended, as the psABIs
// pass it).
func helperQueries(names []string) []helperQuery {
	var qs []helperQuery
	for _, args := range rvHelperArgs(400) {
		for _, n := range names {
			if n == "__bswapsi2" || n == "ffs" {
				args[0] = uint64(int64(int32(args[0])))
			}
			qs = append(qs, helperQuery{n, args})
		}
	}
	return qs
}

// TestRISCVHelpersQEMU compares the helpers with libgcc's own (gcc 12's
// libgcc.a for riscv64-linux-gnu, run under qemu-riscv64) on 400
// operands, zero included: the values C leaves undefined (clz and ctz of
// 0) are libgcc's.
func TestRISCVHelpersQEMU(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a harness")
	}
	gcc := oracle.Tool(t, "gcc-riscv64-linux-gnu", "the riscv64 helpers against libgcc (kernel)", "riscv64-linux-gnu-gcc")
	qemu := oracle.Tool(t, "qemu-user", "the riscv64 helpers against libgcc (kernel)", "qemu-riscv64")
	qs := helperQueries(bitHelpers(rvHelperNames))
	want := libgccNative(t, gcc, qemu, bitHelpers(rvHelperNames), qs)
	img := rvHelperLib(t)
	for i, q := range qs {
		got, _ := callRVHelper(t, img, q.name, q.args)
		if !strings.HasSuffix(q.name, "ti3") {
			got[1] = 0
		}
		require.Equal(t, want[i], got, "%s(%#x, %#x, %d): libgcc %#x", q.name, q.args[0], q.args[1], q.args[2], want[i])
	}
}

// The library decodes to instructions the executor supports.
func TestRISCVHelperDecodes(t *testing.T) {
	img := rvHelperLib(t)
	for off := 0; off < len(img.Text); off += 4 {
		inst, err := riscv.Decode(img.Base+uint64(off), img.Text[off:off+4])
		require.NoError(t, err, "at %s", img.Name(img.Base+uint64(off)))
		require.True(t, inst.Supported(), "at %s: %08x", img.Name(img.Base+uint64(off)), binary.LittleEndian.Uint32(img.Text[off:]))
	}
}
