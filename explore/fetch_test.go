package explore

import (
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/sched"

	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// Honest fetch (model.md §1a): these strategies are what real hardware
// breaks, and the machine must break them too.

// tpbFile writes text_poke_bp's protocol as a scenario file, with each of
// its three sync_core() calls kept or removed, and bp_off either after the
// last sync (as Linux does) or right after byte 0 is restored.
func tpbFile(name string, sync [3]bool, earlyOff bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "strategy %s\narch x86\nstate enabled=enabled disabled=nop5\n", name)
	b.WriteString("form enabled 0: call ftrace_caller\nform nop5 0: nop5\nform int3 0: int3\nboot nop5\n")
	for _, tr := range []struct{ key, form string }{{"enable", "enabled"}, {"disable", "nop5"}} {
		line := func(s string) { fmt.Fprintf(&b, "%s %s\n", tr.key, s) }
		line("bp_on " + tr.form)
		line("write int3")
		if sync[0] {
			line("sync_core")
		}
		line("write " + tr.form + "@0[1:5]")
		if sync[1] {
			line("sync_core")
		}
		line("write " + tr.form + "@0[0:1]")
		if earlyOff {
			line("bp_off")
		}
		if sync[2] {
			line("sync_core")
		}
		if !earlyOff {
			line("bp_off")
		}
	}
	return b.String()
}

func parseStrategy(t testing.TB, text string) *patch.Strategy {
	t.Helper()
	f, err := patch.ParseFile("probe.strategy", strings.NewReader(text))
	require.NoError(t, err, text)
	return f.Strategy
}

func TestTextPokeBPNeedsEverySync(t *testing.T) {
	all := [3]bool{true, true, true}
	for _, c := range []struct {
		name   string
		sync   [3]bool
		early  bool
		want   Verdict
		kind   detect.Kind
		detail string
	}{
		{"as-linux", all, false, Safe, detect.None, ""},
		{"no-sync", [3]bool{}, false, Unsafe, detect.TornFetch, "assembled from different writes"},
		{"no-first-sync", [3]bool{false, true, true}, false, Unsafe, detect.TornFetch, "assembled from different writes"},
		{"no-second-sync", [3]bool{true, false, true}, false, Unsafe, detect.TornFetch, "assembled from different writes"},
		{"no-last-sync", [3]bool{true, true, false}, false, Unsafe, detect.Fault, "int3 with no handler table"},
		{"bp-off-before-last-sync", all, true, Unsafe, detect.Fault, "int3 with no handler table"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := Scenario{Strategy: parseStrategy(t, tpbFile(c.name, c.sync, c.early))}
			res, err := Check(sc, Options{})
			require.NoError(t, err)
			require.Equal(t, c.want, res.Verdict, res.Space.Description)
			if c.want != Unsafe {
				return
			}
			assert.Equal(t, c.kind, res.Hazard.Kind, res.Hazard.String())
			assert.Contains(t, res.Hazard.Detail, c.detail)
			// The counterexample replays to the same hazard.
			again, err := Replay(sc, res.Schedule, Options{})
			require.NoError(t, err)
			assert.Equal(t, *res.Hazard, *again.Hazard)
		})
	}
}

// The research protocol of examples/strategies: two-step-rcu-tasks with
// plain word stores breaks ARMv7's concurrent-modification rule.
func TestPlainWordStoresAreCMODX(t *testing.T) {
	f, err := patch.ReadFile(filepath.Join("..", "examples", "strategies", "rcu-tasks-plain-writes.strategy"))
	require.NoError(t, err)
	sc := Scenario{Strategy: f.Strategy}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	assert.Equal(t, detect.CMODX, res.Hazard.Kind)
	assert.Equal(t, 0, res.Preemptions, "no preemption is needed")
	assert.Regexp(t, `^cpu0 fetched ea000000 at f0\+0x4 while it changed from e1a00000 \(mov r0, r0\) to ea000000 \(b 0x802c\) \(write#3\(transition 1\)\), .*cpu0 last synchronized at step 0 \(boot\)$`, res.Hazard.Detail)
	again, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	assert.Equal(t, *res.Hazard, *again.Hazard)

	// A B <-> BL swap by a plain store is inside the set: no cmodx, and
	// (with the push left in place) nothing else goes wrong either.
	bl := parseStrategy(t, `strategy b-bl
arch arm
state enabled=enabled disabled=jump
form enabled 4: bl __gnu_mcount_nc
form jump 4: b .+4
boot jump
enable write enabled
disable write jump
`)
	res, err = Check(Scenario{Strategy: bl}, Options{})
	require.NoError(t, err)
	if res.Verdict == Unsafe {
		assert.NotEqual(t, detect.CMODX, res.Hazard.Kind, res.Hazard.String())
	}
}

// Every built-in keeps its verdict at the defaults (model.md §2).
func TestBuiltinVerdictsWithFetchViews(t *testing.T) {
	want := map[string]Verdict{
		"nop-nop": Unsafe, "two-step-sched": Unsafe, "plain-write": Unsafe,
		"jmp-over": Safe, "pop-lr": Safe, "add-sp": Safe, "two-step-rcu-tasks": Safe, "stop-machine": Safe, "text-poke-bp": Safe,
	}
	for _, st := range patch.Builtins() {
		w, ok := want[st.Name]
		if !ok {
			continue // other ISAs' built-ins have tests of their own
		}
		res, err := Check(Scenario{Strategy: st}, Options{})
		require.NoError(t, err)
		assert.Equal(t, w, res.Verdict, "%s: %s", st.Name, res.Space.Description)
	}
}

// A run that uses up its step budget proves nothing: INCOMPLETE, never
// UNSAFE or SAFE.
func TestStepBudgetIsIncomplete(t *testing.T) {
	o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", "arm-runaway.o"), kernel.ObjectConfig{Function: "spin", Args: []int64{1}, Iterations: 1})
	require.NoError(t, err)
	sc := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 1, CPUs: 1, Image: func() (*kernel.Image, error) { return o.Image, nil }}
	res, err := Check(sc, Options{Bound: NoPreemptions})
	require.NoError(t, err)
	assert.Equal(t, Incomplete, res.Verdict)
	assert.Contains(t, res.Reason, "step budget of 4000000 steps used up")
	assert.Nil(t, res.Hazard)
	assert.ErrorContains(t, Preflight(sc), "step budget of 4000000 steps used up (runaway execution) at pc")
}

// A long but finite run is decided, not cut short by the step budget.
func TestLongRunsAreDecided(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a 15M-step search")
	}
	sc := Scenario{Strategy: builtin(t, "jmp-over"), CPUs: 2, Tasks: 1, Iterations: 255, Functions: 64, Preempt: PreemptNone, Toggles: 1}
	res, err := Check(sc, Options{Bound: NoPreemptions})
	require.NoError(t, err)
	assert.Equal(t, Safe, res.Verdict, res.Reason)
}

// The reduced search agrees with the unreduced ones on the example files
// and on the fetch probes (small machines, so that the weakest finishes).
func TestReductionsAgreeOnFilesAndProbes(t *testing.T) {
	if raceEnabled {
		t.Skip("slow under -race")
	}
	var strategies []*patch.Strategy
	paths, err := filepath.Glob(filepath.Join("..", "examples", "strategies", "*.strategy"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		f, err := patch.ReadFile(p)
		require.NoError(t, err)
		strategies = append(strategies, f.Strategy)
	}
	strategies = append(strategies,
		parseStrategy(t, tpbFile("no-sync", [3]bool{}, false)),
		parseStrategy(t, tpbFile("no-second-sync", [3]bool{true, false, true}, false)),
		parseStrategy(t, tpbFile("early-off", [3]bool{true, true, true}, true)))
	for _, st := range strategies {
		for _, bound := range []int{0, 1} {
			t.Run(fmt.Sprintf("%s/bound=%d", st.Name, bound), func(t *testing.T) {
				sc := Scenario{Strategy: st, Tasks: 1, Iterations: 1}
				full, err := Check(sc, Options{Bound: BoundOption(bound)})
				require.NoError(t, err)
				for _, weak := range []Reduction{ReduceStates, ReduceNone} {
					wsc := sc
					if weak == ReduceNone {
						if bound > 0 || st.Arch != kernel.ARM {
							continue // too many sequences (every x86 byte store interleaves)
						}
						wsc.Toggles = 1 // every sequence of one transition
						if full, err = Check(wsc, Options{Bound: NoPreemptions}); err != nil {
							t.Fatal(err)
						}
					}
					w, err := Check(wsc, Options{Bound: BoundOption(bound), Reduction: weak, MaxStates: 5_000_000})
					require.NoError(t, err)
					require.NotEqual(t, Incomplete, w.Verdict, "the weaker search must finish")
					assert.Equal(t, w.Verdict, full.Verdict, "%v", weak)
					assert.Equal(t, kindOf(w), kindOf(full), "%v", weak)
				}
			})
		}
	}
}

// Hazards carry typed fields: the stack slot of a foreign-slot load, and
// the error behind a fault.
func TestHazardsAreStructured(t *testing.T) {
	res, err := Check(Scenario{Strategy: builtin(t, "nop-nop")}, Options{})
	require.NoError(t, err)
	require.Equal(t, detect.ForeignSlot, res.Hazard.Kind)
	assert.NotZero(t, res.Hazard.Slot)
	assert.Contains(t, res.Hazard.Detail, fmt.Sprintf("stack slot %#x", res.Hazard.Slot))
	for _, e := range res.Replay.Trace {
		if e.Kind == sched.EvHazard {
			assert.Equal(t, "foreign-slot", e.Hazard)
			assert.Equal(t, res.Hazard.Detail, e.Detail)
			break
		}
	}

	o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", "arm-unsupported.o"), kernel.ObjectConfig{Function: "odd", Args: []int64{1}, Iterations: 1})
	require.NoError(t, err)
	sc := Scenario{Strategy: builtin(t, "jmp-over"), CPUs: 1, Tasks: 1, Image: func() (*kernel.Image, error) { return o.Image, nil }}
	rep, err := Replay(sc, "", Options{})
	require.NoError(t, err)
	require.NotNil(t, rep.Hazard)
	assert.Equal(t, detect.Fault, rep.Hazard.Kind)
	assert.ErrorIs(t, rep.Hazard.Err, isa.ErrUnsupported)
	var f *isa.Fault
	require.ErrorAs(t, rep.Hazard.Err, &f)
	assert.Equal(t, rep.Hazard.PC, f.PC)
}
