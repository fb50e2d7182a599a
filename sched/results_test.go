package sched_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// runToEnd takes option 0 at every step.
func runToEnd(m *sched.Machine, buf []sched.Action) []sched.Action {
	for !m.Done() {
		buf = m.OptionsWithin(buf[:0], 2)
		if len(buf) == 0 {
			break
		}
		m.Apply(buf[0])
	}
	return buf
}

// The reference run records each worker's traced returns with the return
// register: f0's values for the iterations (2, then 1) as each text
// computes them; the built-in text writes no data, so its results are
// compared. A run compared with it, through a correct strategy, allocates
// no more than one without it.
func TestResultsReference(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
		values   [2]uint64
	}{{kernel.ARM, "jmp-over", [2]uint64{3, 2}}, {kernel.X86, "text-poke-bp", [2]uint64{3, 2}},
		{kernel.ARM64, "arm64-nop-bl", [2]uint64{4, 3}}, {kernel.RISCV64, "rv-atomic", [2]uint64{5, 3}}} {
		t.Run(c.arch.String(), func(t *testing.T) {
			img, err := kernel.Build(c.arch, kernel.Config{})
			require.NoError(t, err)
			words := 0
			if c.arch == kernel.RISCV64 {
				words = 128
			}
			rec, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 2, Preempt: sched.PreemptNone, StackWords: words, RecordResults: true}, &sched.Program{})
			require.NoError(t, err)
			runToEnd(rec, nil)
			require.Empty(t, rec.Hazards())
			ref := rec.Results()
			require.NotNil(t, ref)
			assert.True(t, ref.Compared, ref.Why)
			f0, ok := img.Symbol("f0")
			require.True(t, ok)
			require.Len(t, ref.Tasks, 2)
			for _, tr := range ref.Tasks {
				require.Len(t, tr.Returns, 2)
				assert.Equal(t, []uint64{f0, f0, c.values[0], c.values[1]}, []uint64{tr.Returns[0].Func, tr.Returns[1].Func, tr.Returns[0].Value, tr.Returns[1].Value})
				assert.Empty(t, tr.Stores)
			}

			st, ok := patch.Lookup(c.arch, c.strategy)
			require.True(t, ok, c.strategy)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			allocs := func(ref *detect.Results) float64 {
				root, err := sched.New(img, sched.Config{StackWords: words, Reference: ref}, prog)
				require.NoError(t, err)
				m := root.Clone()
				buf := runToEnd(m, nil)
				assert.Empty(t, m.Hazards())
				return testing.AllocsPerRun(3, func() {
					m.CopyFrom(root)
					buf = runToEnd(m, buf)
				})
			}
			assert.Equal(t, allocs(nil), allocs(ref), "the detector allocates nothing in a run")
		})
	}
}

// A reference that is not compared (Compared false) turns the detector
// off: the same run with a reference whose values differ reports nothing.
func TestResultsNotCompared(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	f0, _ := img.Symbol("f0")
	wrong := &detect.Results{Tasks: []detect.TaskResults{{Returns: []detect.Return{{Func: f0, Value: 7}}}, {}}}
	for _, compared := range []bool{false, true} {
		wrong.Compared = compared
		m, err := sched.New(img, sched.Config{Reference: wrong}, &sched.Program{})
		require.NoError(t, err)
		runToEnd(m, nil)
		if !compared {
			assert.Empty(t, m.Hazards())
			continue
		}
		require.NotEmpty(t, m.Hazards())
		h := m.Hazards()[0]
		assert.Equal(t, detect.WrongResult, h.Kind)
		assert.Equal(t, "f0 (task 0's traced call 1 of 1, returning to 0x8010 <worker+0x10>) returned 0x3 (3); expected 0x7 (7), the uninstrumented reference run's value", h.Detail)
	}
}
