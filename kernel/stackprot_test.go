package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// TestStackProtector (issue 21): stackprot.c built with
// -fstack-protector-strong and the global guard on the four ISAs. The
// canary is the kernel's own __stack_chk_guard word, on a read-only page
// (not a stub: the object's loads read a value), and __stack_chk_fail is
// the kernel's panic: guarded(16, v) returns its value with every site
// disabled and enabled; guarded(17, v) overruns its array into the
// canary and faults in __stack_chk_fail, naming the function whose
// check failed.
func TestStackProtector(t *testing.T) {
	want := func(n, v int32) int32 {
		s := n
		for i := int32(0); i < 16; i++ {
			s = s*31 + v + i
		}
		return s
	}
	for _, fx := range []struct{ file, strategy string }{
		{"arm-stackprot.o", "jmp-over"},
		{"x86-fentry-stackprot.o", "text-poke-bp"},
		{"arm64-pfe2-stackprot.o", "arm64-nop-bl"},
		{"rv-atomic-stackprot.o", "rv-atomic"},
	} {
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "guarded", Args: []int64{16, 3}})
		require.NoError(t, err, fx.file)
		require.Empty(t, o.Stubs, fx.file)
		var guard *kernel.Segment
		for i, s := range o.Image.Data {
			if s.Name == "__stack_chk_guard" {
				guard = &o.Image.Data[i]
			}
		}
		require.NotNil(t, guard, "%s: no canary word", fx.file)
		require.True(t, guard.ReadOnly, fx.file)
		require.Zero(t, guard.Addr%4096, "%s: the canary's page is its own", fx.file)
		require.Zero(t, guard.Bytes[0], "%s: the canary's low byte is 0 (CANARY_MASK)", fx.file)
		fail, ok := o.Image.Symbol("__stack_chk_fail")
		require.True(t, ok, fx.file)

		for _, st := range []string{fx.strategy, fx.strategy + "+enabled"} {
			got, returned, _, m := runObject(t, fx.file, st, call{"guarded", []int64{16, 3}})
			require.Empty(t, m.Hazards(), "%s under %q", fx.file, st)
			require.True(t, returned, "%s under %q", fx.file, st)
			require.Equal(t, want(16, 3), got, "%s under %q", fx.file, st)

			_, returned, _, m = runObject(t, fx.file, st, call{"guarded", []int64{17, 3}})
			require.False(t, returned, "%s under %q: returned past an overwritten canary", fx.file, st)
			require.Len(t, m.Hazards(), 1, "%s under %q", fx.file, st)
			h := m.Hazards()[0]
			require.Equal(t, detect.Fault, h.Kind, "%s: %v", fx.file, h)
			require.Equal(t, fail, h.PC, "%s: %v", fx.file, h)
			require.Contains(t, h.Detail, "kernel panic: __stack_chk_fail called from guarded: stack-protector", fx.file)
		}
	}
}
