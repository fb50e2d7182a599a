package kernel

import (
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/stretchr/testify/require"
)

// a64HelperLib is the arm64 helper library alone, laid out at ARM64Base.
func a64HelperLib(t testing.TB) *Image {
	a := &asm{img: &Image{Arch: ARM64, Base: ARM64Base, Align: 4}}
	arm64Text{a}.libgcc(func(string) bool { return false })
	img, err := a.finish()
	require.NoError(t, err)
	return img
}

// callA64Helper runs name with x0-x2 = args and returns x0, x1 and the
// instructions executed. The helpers touch no memory (a nil bus), and
// every register but x0-x3 must be kept.
func callA64Helper(t testing.TB, img *Image, name string, args [3]uint64) ([2]uint64, int) {
	t.Helper()
	entry, ok := img.Symbol(name)
	require.True(t, ok, name)
	var r arm64.Regs
	for i := range r.X {
		r.X[i] = 0x1000 + uint64(i)
	}
	copy(r.X[:], args[:])
	if strings.HasSuffix(name, "ti3") {
		r.X[2] = args[2] | 0xdead<<32 // an int: the upper half is not part of it
	}
	r.SP, r.X[arm64.LR], r.PC = stackTop, returnTag, entry
	saved := r.X
	n := 0
	for r.PC != returnTag {
		off := r.PC - img.Base
		require.True(t, r.PC >= img.Base && off+4 <= uint64(len(img.Text)), "%s: pc %#x outside the library", name, r.PC)
		inst, err := arm64.Decode(r.PC, uint32(img.Text[off])|uint32(img.Text[off+1])<<8|uint32(img.Text[off+2])<<16|uint32(img.Text[off+3])<<24)
		require.NoError(t, err)
		require.True(t, inst.Supported(), "%s at %s", name, img.Name(r.PC))
		_, err = arm64.Exec(&inst, &r, nil)
		require.NoError(t, err, "%s at %s", name, img.Name(r.PC))
		if n++; n > 2000 {
			t.Fatalf("%s%v runs away", name, args)
		}
	}
	for i := range r.X {
		if i > 3 {
			require.Equal(t, saved[i], r.X[i], "%s clobbers x%d", name, i)
		}
	}
	require.Equal(t, uint64(stackTop), r.SP, "%s moves sp", name)
	return [2]uint64{r.X[0], r.X[1]}, n
}

// TestARM64Helpers runs every arm64 helper under the A64 executor on
// 1,000 operands and compares with Go (the same reference as riscv64's).
func TestARM64Helpers(t *testing.T) {
	img := a64HelperLib(t)
	n := 1000
	if testing.Short() {
		n = 200
	}
	for _, args := range rvHelperArgs(n) {
		for _, name := range bitHelpers(a64HelperNames) {
			got, _ := callA64Helper(t, img, name, args)
			want := rvHelperWant(name, args)
			if !strings.HasSuffix(name, "ti3") {
				got[1], want[1] = 0, 0
				got[0], want[0] = uint64(uint32(got[0])), uint64(uint32(want[0])) // an int in w0
			}
			require.Equal(t, want, got, "%s(%#x, %#x, %d)", name, args[0], args[1], args[2])
		}
	}
	for _, name := range ARM64Helpers() {
		require.True(t, IsARM64Helper(name))
	}
	require.False(t, IsARM64Helper("__udivti3"), "the 128-bit division stays a stub")
}

// TestARM64HelpersQEMU compares the helpers with libgcc's own (gcc 12's
// libgcc.a for aarch64-linux-gnu, under qemu-aarch64) on 400 operands.
func TestARM64HelpersQEMU(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a harness")
	}
	gcc := oracle.Tool(t, "gcc-aarch64-linux-gnu", "the arm64 helpers against libgcc (kernel)", "aarch64-linux-gnu-gcc")
	qemu := oracle.Tool(t, "qemu-user", "the arm64 helpers against libgcc (kernel)", "qemu-aarch64")
	qs := helperQueries(bitHelpers(a64HelperNames))
	want := libgccNative(t, gcc, qemu, bitHelpers(a64HelperNames), qs)
	img := a64HelperLib(t)
	for i, q := range qs {
		got, _ := callA64Helper(t, img, q.name, q.args)
		if !strings.HasSuffix(q.name, "ti3") {
			got[0], got[1] = uint64(int64(int32(got[0]))), 0 // the harness sign-extends the int
		}
		require.Equal(t, want[i], got, "%s(%#x, %#x, %d): libgcc %#x", q.name, q.args[0], q.args[1], q.args[2], want[i])
	}
}
