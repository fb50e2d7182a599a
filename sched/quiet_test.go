package sched_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// quietRun runs arm-real.o's fn alone (1 CPU, 1 task) under strategy, with
// the reference run as recorded, edited by edit (nil: as it is).
func quietRun(t *testing.T, fn string, args []int64, strategy string, edit func(*detect.Results), noQuiet bool) *sched.Machine {
	t.Helper()
	o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", "arm-real.o"), kernel.ObjectConfig{Function: fn, Args: args, Iterations: 1})
	require.NoError(t, err)
	cfg := sched.Config{CPUs: 1, Tasks: 1, Preempt: sched.PreemptNone, StackWords: 256}
	rec := cfg
	rec.RecordResults = true
	m, err := sched.New(o.Image, rec, &sched.Program{})
	require.NoError(t, err)
	runDefault(m)
	ref := m.Results()
	require.True(t, ref.Compared, ref.Why)
	require.NotEmpty(t, ref.Text)
	if edit != nil {
		edit(ref)
	}
	st, ok := patch.Lookup(kernel.ARM, strategy)
	require.True(t, ok)
	prog, err := patch.Compile(st, o.Image, 2)
	require.NoError(t, err)
	cfg.Reference, cfg.NoQuiet = ref, noQuiet
	m, err = sched.New(o.Image, cfg, prog)
	require.NoError(t, err)
	runDefault(m)
	return m
}

func runDefault(m *sched.Machine) {
	var buf []sched.Action
	for !m.Done() {
		buf = m.Options(buf)
		if len(buf) == 0 {
			m.Deadlock()
			return
		}
		m.Apply(buf[0])
	}
}

// TestQuietPremiseChecked: a run that breaks the premise of the
// reductions of quiet.go ends without a verdict, saying why; with the
// reference as recorded, or with the reductions off, it runs to its end.
func TestQuietPremiseChecked(t *testing.T) {
	// bitcount stores to its .data bitmap: taken for a quiet page (the
	// reference's writes forgotten), the first store breaks the premise.
	m := quietRun(t, "bitcount", []int64{12345, 3}, "jmp-over", func(r *detect.Results) { r.Written = nil }, false)
	require.True(t, m.OutOfSteps())
	require.Empty(t, m.Hazards())
	require.Regexp(t, `^a store of 4 bytes at 0x[0-9a-f]+, on a quiet page, which the uninstrumented reference run never made`, m.BudgetText())
	for _, noQuiet := range []bool{false, true} {
		m := quietRun(t, "bitcount", []int64{12345, 3}, "jmp-over", nil, noQuiet)
		require.False(t, m.OutOfSteps(), m.BudgetText())
		require.Empty(t, m.Hazards())
	}
	// A reference that fetched nothing: the first fetch next to a site
	// breaks it.
	m = quietRun(t, "lcm", []int64{21, 6}, "jmp-over", func(r *detect.Results) { r.Text = nil }, false)
	require.True(t, m.OutOfSteps())
	require.Regexp(t, `^an instruction fetch at 0x[0-9a-f]+ <[^>]+>, which the uninstrumented reference run never made`, m.BudgetText())
	m = quietRun(t, "lcm", []int64{21, 6}, "jmp-over", func(r *detect.Results) { r.Text = nil }, true)
	require.False(t, m.OutOfSteps(), m.BudgetText())
}
