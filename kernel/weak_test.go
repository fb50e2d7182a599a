package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// weakFixtures are weak.c's objects (testdata/obj/build.sh), with the
// harness arch and the strategy of their layout.
var weakFixtures = []struct{ file, arch, strategy string }{
	{"arm-weak.o", "arm", "jmp-over"},
	{"x86-fentry-weak.o", "x86", "text-poke-bp"},
	{"arm64-pfe2-weak.o", "arm64", "arm64-nop-bl"},
	{"rv-atomic-weak.o", "riscv64", "rv-atomic"},
}

// TestWeakSymbols (issue 21, corpus4's g_weak): an undefined weak symbol
// resolves to 0, as a static link (the kernel's) resolves it, not to a
// stub: w_weak tests the hook for NULL and takes the other branch, and
// w_null sees both addresses (a function's and a variable's) NULL; the
// weak w_hook the object defines is the object's. On arm64 gcc loads the
// addresses from the GOT (ADR_GOT_PAGE, LD64_GOT_LO12_NC), which
// LinkObject synthesizes. jmp-over is SAFE on w_weak, nop-nop UNSAFE. The values are qemu-user's (4 and 23; checked
// again when the cross tools are installed).
func TestWeakSymbols(t *testing.T) {
	calls := []struct {
		c    call
		want int32
	}{
		{call{"w_weak", []int64{6, 9}}, 6*5 + 1 - 9*3},
		{call{"w_null", []int64{5}}, 1 + 2 + 5*4},
	}
	for _, fx := range weakFixtures {
		var nat map[string]int32
		if haveTools(t, "the values qemu returned", fx.arch) {
			var cs []call
			for _, c := range calls {
				cs = append(cs, c.c)
			}
			nat = native(t, fx.arch, "weakharness.c", fx.file, cs, nil)
		}
		for _, c := range calls {
			o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: c.c.fn, Args: c.c.args})
			require.NoError(t, err, fx.file)
			require.Empty(t, o.Stubs, "%s: an undefined weak symbol is not a stub", fx.file)
			for _, st := range []string{fx.strategy, fx.strategy + "+enabled"} {
				got, returned, _, m := runObject(t, fx.file, st, c.c)
				require.Empty(t, m.Hazards(), "%s %v under %q", fx.file, c.c, st)
				require.True(t, returned, "%s %v under %q never returned", fx.file, c.c, st)
				require.Equal(t, c.want, got, "%s %v under %q", fx.file, c.c, st)
			}
			if nat != nil {
				require.Equal(t, c.want, nat[fx.file+" "+c.c.String()], "%s %v natively", fx.file, c.c)
			}
		}
	}
	// The verdicts, at the CLI's defaults (milliseconds on ARM).
	for _, v := range []struct {
		strategy string
		want     explore.Verdict
	}{{"jmp-over", explore.Safe}, {"nop-nop", explore.Unsafe}} {
		got, what, _, err := corpusCheck(filepath.Join(objDir, "arm-weak.o"), kernel.ARM, v.strategy, calls[0].c)
		require.NoError(t, err)
		require.Equal(t, v.want, got, "arm-weak.o w_weak under %s: %s", v.strategy, what)
	}
}
