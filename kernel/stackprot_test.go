package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// TestStackProtector (issue 21): stackprot.c built with
// -fstack-protector-strong, with the global guard on the four ISAs and
// with the per-task guards of arm64 (sp_el0), RISC-V (tp) and x86-64 (gs)
// kernels. The canary is the kernel's own __stack_chk_guard word, on a read-only page
// (not a stub: the object's loads read a value), or a word of the
// read-only task_struct stand-in sp_el0 and tp point to, and x86-64's gs
// base (Image.Current: %gs:40, %gs:__ref_stack_chk_guard);
// __stack_chk_fail is the kernel's panic: guarded(16, v) returns its
// value with every site disabled and enabled; guarded(17, v) overruns its
// array into the canary and faults in __stack_chk_fail, naming the
// function whose check failed.
func TestStackProtector(t *testing.T) {
	want := func(n, v int32) int32 {
		s := n
		for i := int32(0); i < 16; i++ {
			s = s*31 + v + i
		}
		return s
	}
	for _, fx := range []struct {
		file, strategy string
		perTask        bool
	}{
		{"arm-stackprot.o", "jmp-over", false},
		{"x86-fentry-stackprot.o", "text-poke-bp", false},
		{"arm64-pfe2-stackprot.o", "arm64-nop-bl", false},
		{"rv-atomic-stackprot.o", "rv-atomic", false},
		{"arm64-pfe2-stackprot-task.o", "arm64-nop-bl", true},
		{"rv-atomic-stackprot-task.o", "rv-atomic", true},
		{"x86-fentry-stackprot-gs.o", "text-poke-bp", true},
		{"x86-fentry-stackprot-sym.o", "text-poke-bp", true},
	} {
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "guarded", Args: []int64{16, 3}})
		require.NoError(t, err, fx.file)
		require.Empty(t, o.Stubs, fx.file)
		seg := map[string]*kernel.Segment{}
		for i, s := range o.Image.Data {
			seg[s.Name] = &o.Image.Data[i]
		}
		name := "__stack_chk_guard"
		if fx.perTask {
			name = "current"
			require.NotNil(t, seg[name], fx.file)
			require.Equal(t, seg[name].Addr, o.Image.Current, fx.file)
			require.Nil(t, seg["__stack_chk_guard"], fx.file)
		} else {
			require.Zero(t, o.Image.Current, "%s: reads no current pointer", fx.file)
			require.Nil(t, seg["current"], fx.file)
		}
		guard := seg[name]
		require.NotNil(t, guard, "%s: no canary word", fx.file)
		require.True(t, guard.ReadOnly, fx.file)
		require.Zero(t, guard.Addr%4096, "%s: the canary's page is its own", fx.file)
		require.Zero(t, guard.Bytes[0], "%s: the canary's low byte is 0 (CANARY_MASK)", fx.file)
		if fx.perTask {
			require.Equal(t, guard.Bytes[:8], guard.Bytes[1400:1408], "%s: the canary at the object's offset", fx.file)
		}
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

// TestShadowCallStackRefused: an arm64 object built with
// -fsanitize=shadow-call-stack is refused, naming the first function that
// pushes x30 through x18 (the machine keeps no per-task shadow stack).
func TestShadowCallStackRefused(t *testing.T) {
	_, err := kernel.LoadObject(filepath.Join(objDir, "arm64-pfe2-scs.o"), kernel.ObjectConfig{Function: "guarded", Args: []int64{16, 3}})
	require.ErrorIs(t, err, kernel.ErrUnsupportedObject)
	require.EqualError(t, err, filepath.Join(objDir, "arm64-pfe2-scs.o")+": unsupported object: guarded+0x8: str x30, [x18], #8 pushes the return address on a shadow call stack (-fsanitize=shadow-call-stack, CONFIG_SHADOW_CALL_STACK), which is not modelled: build without it")
}
