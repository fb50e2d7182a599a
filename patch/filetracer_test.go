package patch_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/patch"
)

// tracerScenarioOf is scenarioOf with the file's tracer section.
func tracerScenarioOf(f *patch.File) (explore.Scenario, explore.Options) {
	sc, opts := scenarioOf(f)
	sc.Tracer = f.Tracer
	c := f.Config
	if c.IRQBound != nil {
		sc.IRQBound = *c.IRQBound
		if *c.IRQBound == 0 {
			sc.IRQBound = explore.NoIRQs
		}
	}
	if c.Lossless != nil {
		sc.Lossless = *c.Lossless
	}
	if c.NMI != nil {
		sc.NMI = *c.NMI
	}
	return sc, opts
}

// Every file under examples/tracers gives the verdict of the README's
// table, with the lost and recursed events the files' comments claim.
func TestExampleTracerFiles(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	const dir = "../examples/tracers"
	paths, err := filepath.Glob(filepath.Join(dir, "*.strategy"))
	require.NoError(t, err)
	table := readmeVerdicts(t, dir)
	require.Len(t, table, len(paths), "the README's table lists every file")
	lost := map[string]explore.LostEvents{
		"nested-recursion.strategy":                {},
		"recursion-bits-preempt-schedule.strategy": {},
		"counter-lost.strategy":                    {IRQ: 1},
		"irqsave-nmi.strategy":                     {NMI: 1},
	}
	recursed := map[string]explore.LostEvents{
		"nested-recursion.strategy": {Normal: 1},
	}
	for _, path := range paths {
		base := filepath.Base(path)
		f, err := patch.ReadFile(path)
		require.NoError(t, err)
		require.NotNil(t, f.Tracer, base)
		want := table[base]
		sc, opts := tracerScenarioOf(f)
		res, err := explore.Check(sc, opts)
		require.NoError(t, err)
		assert.Equal(t, want[0], res.Verdict.String(), base)
		assert.Equal(t, want[1], hazardKind(res), base)
		if res.Verdict == explore.Unsafe {
			assert.Contains(t, res.Hazard.Detail, "without recording the", base)
			// Without lossless the same file is SAFE and counts the loss.
			sc.Lossless = false
			res, err = explore.Check(sc, opts)
			require.NoError(t, err)
			require.Equal(t, explore.Safe, res.Verdict, base)
		}
		assert.Equal(t, lost[base], *res.LostEvents, base)
		assert.Equal(t, recursed[base], *res.RecursedEvents, base)
	}
}

func TestTracerSection(t *testing.T) {
	strat, err := patch.ReadFile("../examples/strategies/add-sp.strategy")
	require.NoError(t, err)
	base := patch.Format(strat.Strategy)
	parse := func(text string) (*patch.File, error) {
		return patch.ParseFile("t.strategy", strings.NewReader(base+text))
	}
	lines := strings.Count(base, "\n")
	f, err := parse("tracer recursion-bits\ntraced preempt_schedule schedule\nconfig irq-bound=2 nmi=true\n")
	require.NoError(t, err)
	assert.Equal(t, "recursion-bits", f.Tracer.Name)
	assert.Equal(t, []string{"recursion_lock", "record_if_locked", "recursion_unlock"}, f.Tracer.Steps)
	assert.Equal(t, []string{"preempt_schedule", "schedule"}, f.Tracer.Traced)
	assert.Equal(t, 2, *f.Config.IRQBound)
	assert.True(t, *f.Config.NMI)
	out := patch.FormatFile(f)
	assert.Contains(t, out, "\ntracer   recursion-bits\ncallback recursion_lock\ncallback record_if_locked\ncallback recursion_unlock\ntraced   preempt_schedule schedule\n")
	again, err := patch.ParseFile("again.strategy", strings.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, f.Tracer, again.Tracer)
	assert.Equal(t, out, patch.FormatFile(again))

	for _, tt := range []struct{ text, want string }{
		{"tracer bogus\n", "tracer bogus: not a built-in (naive, no-resched, resched-read, irqsave, preempt-only, recursion-bits), and no callback lines"},
		{"tracer x\ncallback spin\n", `callback: unknown step "spin" (want one of preempt_disable,`},
		{"tracer x\ncallback call\n", `callback: unknown step "call"`},
		{"tracer x\ncallback call f0 f1\n", `callback: call: one name expected, got "f0 f1"`},
		{"tracer x\ntracer y\n", "second tracer line"},
		{"traced schedule\n", "traced: no tracer line"},
		{"callback record\n", "callback: no tracer line"},
		{"tracer naive\ntraced f0\n", `traced: cannot trace "f0"`},
		{"tracer naive\ntraced schedule schedule\n", "traced: schedule twice"},
		{"config lossless=true\n", "config: lossless applies with a tracer only"},
		{"tracer naive\nconfig nmi=maybe\n", `want true or false, got "maybe"`},
		{"tracer naive\nconfig irq-bound=300\n", "want an integer in 0..255"},
	} {
		_, err := parse(tt.text)
		require.Error(t, err, tt.text)
		assert.Contains(t, err.Error(), tt.want, tt.text)
		assert.Regexp(t, `^t\.strategy:\d+: `, err.Error())
		var fe *patch.FileError
		require.ErrorAs(t, err, &fe)
		assert.Greater(t, fe.Line, lines, tt.text)
	}
	x86 := strings.Replace(patch.Format(mustBuiltin(t, "text-poke-bp")), "", "", 1)
	_, err = patch.ParseFile("x.strategy", strings.NewReader(x86+"tracer naive\n"))
	require.ErrorContains(t, err, "tracer: the tracer kernel is laid out for arch arm only, not x86")
}

func mustBuiltin(t *testing.T, name string) *patch.Strategy {
	for _, b := range patch.Builtins() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no built-in %s", name)
	return nil
}
