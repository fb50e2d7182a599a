package kernel_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// The bits.c fixtures (issue 21), built by testdata/obj/build.sh: bit
// functions through the libgcc helpers gcc calls on riscv64 without Zbb
// and on arm64 without SIMD, and the 128-bit shifts at -Os, linked to the
// helpers as real code (libgccrv.go, libgcca64.go).
var bitsFixtures = []struct {
	file, qemu        string
	strategy, enabled string // the layout's strategy, one booting the sites enabled
	helpers           []string
}{
	{"rv-atomic-bits.o", "riscv64", "rv-atomic", "rv-atomic+enabled", []string{"__bswapdi2", "__bswapsi2", "__clrsbdi2", "__clzdi2", "__ctzdi2", "__ffsdi2", "__paritydi2", "__popcountdi2"}},
	{"rv-pfe8-Os-bits.o", "riscv64", "rv-pfe8", "rv-pfe8-retarget", []string{"__ashlti3", "__ashrti3", "__bswapdi2", "__bswapsi2", "__clrsbdi2", "__clzdi2", "__ctzdi2", "__ffsdi2", "__lshrti3", "__paritydi2", "__popcountdi2"}},
	{"arm64-pfe2-bits.o", "arm64", "arm64-nop-bl", "arm64-nop-bl+enabled", []string{"__paritydi2", "__popcountdi2"}},
	{"arm64-pfe2-Os-bits.o", "arm64", "arm64-nop-bl", "arm64-nop-bl+enabled", []string{"__ashlti3", "__ashrti3", "__lshrti3", "__paritydi2", "__popcountdi2"}},
}

// TestBitsMatchQEMU: every bits.c call runs with its sites disabled and
// with them enabled (through the trampoline), with no hazard and no stub,
// and returns what it returns natively under QEMU (and what
// bitsexpected.txt says; -update rewrites it).
func TestBitsMatchQEMU(t *testing.T) {
	want := readExpected(t, "bitsexpected.txt")
	var nat map[string]int32
	if haveTools(t, "bitsexpected.txt", "riscv64", "arm64") {
		nat = map[string]int32{}
		for _, fx := range bitsFixtures {
			native(t, fx.qemu, "bitsharness.c", fx.file, callsFrom(t, "bitsargs.txt"), nat)
		}
	}
	var lines []string
	for _, fx := range bitsFixtures {
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "b_wide"})
		require.NoError(t, err)
		require.Empty(t, o.Stubs, fx.file)
		require.Equal(t, fx.helpers, o.Helpers, fx.file)
		for _, c := range callsFrom(t, "bitsargs.txt") {
			key := fx.file + " " + c.String()
			if nat != nil {
				lines = append(lines, fmt.Sprintf("%s %d", key, nat[key]))
			}
			got, returned, traced, m := runObject(t, fx.file, fx.enabled, c)
			require.Empty(t, m.Hazards(), "%s under %s", key, fx.enabled)
			require.True(t, returned && traced, "%s under %s: returned %v, traced %v", key, fx.enabled, returned, traced)
			on := got
			got, returned, traced, m = runObject(t, fx.file, fx.strategy, c)
			require.Empty(t, m.Hazards(), "%s", key)
			require.True(t, returned, "%s never returned", key)
			require.False(t, traced, "%s: a disabled site called the tracer", key)
			require.Equal(t, got, on, "%s: traced, it returns %d, untraced %d", key, on, got)
			if nat != nil {
				require.Equal(t, nat[key], got, "%s: mcountsim returned %d, QEMU %d", key, got, nat[key])
			}
			if !*update {
				w, ok := want[key]
				require.True(t, ok, "%s is missing from bitsexpected.txt (go test ./kernel -run BitsMatchQEMU -update)", key)
				require.Equal(t, w, got, "%s", key)
			}
		}
	}
	if *update {
		require.NotNil(t, nat, "-update needs qemu-riscv64, qemu-aarch64 and the compilers")
		writeExpected(t, "bitsexpected.txt", "bits.c under qemu-riscv64 / qemu-aarch64 (go test ./kernel -run BitsMatchQEMU -update)", lines)
	}
}

// TestRISCVAtomicUnaligned: gcc 12 ignores -falign-functions=4 at -Os, and
// the atomic layout's patchable entries must be 4-byte aligned (Linux
// builds no dynamic ftrace otherwise): LinkObject refuses the object,
// naming the first unaligned function, where it starts and the rule.
func TestRISCVAtomicUnaligned(t *testing.T) {
	_, err := kernel.LoadObject(filepath.Join(objDir, "rv-atomic-Os-bits.o"), kernel.ObjectConfig{Function: "b_clz"})
	require.ErrorIs(t, err, kernel.ErrUnsupportedObject)
	require.EqualError(t, err, "testdata/obj/rv-atomic-Os-bits.o: unsupported object: patchable function b_clrsb starts at 0x2001ca, 2 mod 4 (and 2 more patchable functions): "+
		"the atomic layout toggles the jalr word at entry+4 with one store, atomic for the fetch only when 4-byte aligned, and Linux requires every patchable function 4-byte aligned "+
		"(FUNCTION_ALIGNMENT_4B; without -fmin-function-alignment=4, gcc 14+, it builds an RVC kernel without dynamic ftrace, since -falign-functions=4 is ignored at -Os and for cold functions)")
	// The same code with every entry aligned links (-O2).
	_, err = kernel.LoadObject(filepath.Join(objDir, "rv-atomic-bits.o"), kernel.ObjectConfig{Function: "b_clz"})
	require.NoError(t, err)
}
