package explore

import (
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/rv"
	"github.com/mcountsim/mcountsim/sched"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tracerScenario(t *testing.T, tracer string, traced ...string) Scenario {
	t.Helper()
	s, ok := patch.Lookup(kernel.ARM, "add-sp")
	require.True(t, ok)
	tr, err := patch.LookupTracer(tracer, traced)
	require.NoError(t, err)
	return Scenario{Arch: kernel.ARM, Strategy: s, Tracer: tr}
}

// small is the space the SAFE verdicts are exhausted in: one worker, one
// iteration, 2 CPUs (so that a remote wakeup can happen), preemption
// bound 1, interrupt bound 1.
func small(sc Scenario) Scenario {
	sc.Tasks, sc.Iterations = 1, 1
	return sc
}

// requireReplays checks that res is UNSAFE with kind and that its schedule
// replays to the same first hazard.
func requireReplays(t *testing.T, sc Scenario, res *Result, kind detect.Kind) *Result {
	t.Helper()
	require.Equal(t, Unsafe, res.Verdict, "%v", res.Hazard)
	require.Equal(t, kind, res.Hazard.Kind, "%v", res.Hazard)
	rep, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, rep.Verdict)
	require.Equal(t, *res.Hazard, *rep.Hazard)
	return rep
}

func TestTracerSchedRecursion(t *testing.T) {
	sc := tracerScenario(t, "naive", "preempt_schedule")
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	requireReplays(t, sc, res, detect.SchedRecursion)
	assert.Equal(t, "preempt_enable+0x2c", res.Hazard.Where)
	assert.Contains(t, res.Hazard.Detail, "preempt_schedule called again through the tracer: preempt_schedule (frame 4) -> trace_function (frame 6) -> preempt_schedule")
	assert.Equal(t, "naive", res.Space.Tracer)
	assert.Equal(t, []string{"preempt_schedule"}, res.Space.Traced)
	assert.Equal(t, 1, *res.Space.IRQBound)
	assert.Contains(t, res.Space.Scenario, "tracer naive (traced: preempt_schedule), irq bound 1")

	// preempt_schedule notrace: the same callback cannot recurse.
	sc = small(tracerScenario(t, "naive"))
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
}

func TestTracerMissedPreemption(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	for _, tr := range []string{"no-resched", "resched-read", "preempt-only"} {
		t.Run(tr, func(t *testing.T) {
			sc := tracerScenario(t, tr)
			res, err := Check(sc, Options{})
			require.NoError(t, err)
			rep := requireReplays(t, sc, res, detect.MissedPreemption)
			assert.Contains(t, res.Hazard.Detail, "preempt_count went to 0 with need_resched set and no reschedule IPI pending")
			if tr != "no-resched" {
				// 5168ae50a66e: the flag set by a remote CPU before the
				// callback read it, its IPI taken inside the callback.
				var texts []string
				for _, e := range rep.Replay.Trace {
					texts = append(texts, e.Text)
				}
				all := strings.Join(texts, "\n")
				assert.Contains(t, all, "a remote wakeup sets need_resched and sends a reschedule IPI")
				assert.Contains(t, all, "reschedule IPI: the CPU enters __irq_svc")
			}
		})
	}
}

// Acceptance: the modern recursion bits at the defaults (2 CPUs, 2 tasks,
// 2 iterations, 2 toggles, preemption bound 2, interrupt bound 1): SAFE,
// nothing lost, nothing recursed (no kernel function is traced). About
// 3.6M states, 50 s of CPU.
func TestTracerRecursionBitsDefaults(t *testing.T) {
	slow(t, "recursion-bits at the default space")
	sc := tracerScenario(t, "recursion-bits")
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{}, *res.LostEvents)
	assert.Equal(t, LostEvents{}, *res.RecursedEvents)
	assert.Equal(t, 2, res.Space.Bound)
	assert.Equal(t, 1, *res.Space.IRQBound)
	assert.Contains(t, res.Space.Description, "every schedule within preemption bound 2, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles, irq bound 1 (exhaustive)")
}

func TestTracerRecursionBits(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	sc := small(tracerScenario(t, "recursion-bits"))
	res, err := Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{}, *res.LostEvents)
	assert.Equal(t, LostEvents{}, *res.RecursedEvents)

	// A callback that calls a traced function inside its lock: the
	// nested call takes the transition bit once, the one below it is
	// dropped and counted, none is lost. (No interrupts: their nesting
	// on top would go past the 16 frames of the shadow stack.)
	sc.IRQBound = NoIRQs
	sc.Tracer = &kernel.Tracer{Name: "nested", Steps: []string{"recursion_lock", "return_if_unlocked", "call f0", "record", "recursion_unlock"}}
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{}, *res.LostEvents)
	assert.Equal(t, LostEvents{Normal: 1}, *res.RecursedEvents)
	assert.Equal(t, 0, *res.Space.IRQBound)
}

func TestTracerLostEvents(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	// Interrupts on and a per-CPU disabled counter (function_trace_call_preempt_only
	// without the resched read): an interrupt's event is dropped silently.
	sc := small(tracerScenario(t, "naive"))
	sc.Tracer = &kernel.Tracer{Name: "counter", Steps: []string{"preempt_disable_notrace", "disabled_inc", "record_if_first", "disabled_dec", "preempt_enable_notrace"}}
	res, err := Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{IRQ: 1}, *res.LostEvents)
	sc.Lossless = true
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	requireReplays(t, sc, res, detect.LostEvent)
	assert.Contains(t, res.Hazard.Detail, "without recording the irq-context event")

	// irqsave masks interrupts: nothing to lose.
	sc = small(tracerScenario(t, "irqsave"))
	sc.Lossless = true
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{}, *res.LostEvents)
	assert.Positive(t, *res.IRQsOffMaxSteps)
}

// randomRun drives m to its end by a seeded choice among the options
// within bound.
func randomRun(m *sched.Machine, bound int, seed uint64) {
	var buf []sched.Action
	for !m.Done() {
		opts := m.OptionsWithin(buf[:0], bound)
		if len(opts) == 0 {
			m.Deadlock()
			break
		}
		seed = seed*6364136223846793005 + 1442695040888963407
		m.Apply(opts[int(seed>>33)%len(opts)])
	}
}

func TestTracerRVMonitors(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	runs, checked := 0, 0
	for _, st := range []string{"nop-nop", "jmp-over", "pop-lr", "add-sp", "two-step-sched", "two-step-rcu-tasks"} {
		s, ok := patch.Lookup(kernel.ARM, st)
		require.True(t, ok)
		for _, tr := range []string{"naive", "irqsave", "recursion-bits", "no-resched", "resched-read", "preempt-only"} {
			sc := tracerScenario(t, tr)
			sc.Strategy = s
			for seed := uint64(1); seed <= 12; seed++ {
				m, err := sc.Machine(true)
				require.NoError(t, err)
				randomRun(m, 2, seed*0x9e3779b97f4a7c15)
				runs++
				if len(m.Hazards()) > 0 || m.OutOfSteps() {
					continue
				}
				checked++
				for _, v := range rv.CheckAll(m.RVEvents()) {
					t.Errorf("%s/%s seed %d: %v at %v", st, tr, seed, v, v.At)
				}
			}
		}
	}
	t.Logf("%d runs, %d hazard-free runs checked by %s", runs, checked, rv.Names())
	require.Greater(t, checked, runs/4)
}

func TestTracerRVRejectsWrongStream(t *testing.T) {
	m, err := tracerScenario(t, "irqsave").Machine(true)
	require.NoError(t, err)
	randomRun(m, 1, 7)
	ev := m.RVEvents()
	require.Empty(t, rv.CheckAll(ev))
	// Drop the preempt_disable before the second schedule_entry: the
	// scheduler is then entered with preemption on.
	seen := 0
	for i, e := range ev {
		if e.Kind == rv.ScheduleEntry {
			seen++
		}
		if seen == 2 {
			for j := i - 1; j >= 0; j-- {
				if ev[j].Kind == rv.PreemptDisable && ev[j].CPU == e.CPU {
					ev = append(append([]rv.Event{}, ev[:j]...), ev[j+1:]...)
					break
				}
			}
			break
		}
	}
	var msgs []string
	for _, v := range rv.CheckAll(ev) {
		msgs = append(msgs, v.Error())
	}
	assert.Contains(t, msgs, "rv: monitor scpd does not allow event schedule_entry on state cant_sched")
}

// The tracer kernel's thread_info accesses taken as local (sched's
// tiLocal; soundness in the package doc) change no verdict, hazard kind or
// count: every built-in tracer, and two written ones, against the search
// with the visited set alone.
func TestTracerReductionsAgree(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	written := map[string][]string{
		"counter": {"preempt_disable_notrace", "disabled_inc", "record_if_first", "disabled_dec", "preempt_enable_notrace"},
		"nested":  {"recursion_lock", "return_if_unlocked", "call f0", "record", "recursion_unlock"},
		"leaky":   {"preempt_disable_notrace", "record"},
	}
	names := []string{"naive", "no-resched", "resched-read", "irqsave", "preempt-only", "recursion-bits", "counter", "nested", "leaky", "irqsave+nmi", "recursion-bits+nmi"}
	quick := map[string]bool{"naive/preempt_schedule,schedule": true, "no-resched/": true, "nested/": true, "nested/preempt_schedule,schedule": true, "leaky/": true, "irqsave+nmi/": true}
	for _, full := range names {
		name, nmi := strings.CutSuffix(full, "+nmi")
		for _, traced := range [][]string{nil, {"preempt_schedule", "schedule"}} {
			t.Run(full+"/"+strings.Join(traced, ","), func(t *testing.T) {
				if !quick[full+"/"+strings.Join(traced, ",")] {
					slow(t, "comparing this tracer with the unreduced search")
				}
				sc := small(tracerScenario(t, "naive", traced...))
				if steps, ok := written[name]; ok {
					sc.Tracer = &kernel.Tracer{Name: name, Steps: steps, Traced: traced}
					if name == "nested" {
						sc.IRQBound = NoIRQs
					}
				} else {
					sc.Tracer.Name, sc.Tracer.Steps = name, tracerSteps(t, name)
				}
				sc.NMI = nmi
				full, err := Check(sc, Options{Bound: 1})
				require.NoError(t, err)
				weak, err := Check(sc, Options{Bound: 1, Reduction: ReduceStates, MaxStates: 5_000_000})
				require.NoError(t, err)
				require.NotEqual(t, Incomplete, weak.Verdict)
				require.Equal(t, weak.Verdict, full.Verdict)
				require.Equal(t, kindOf(weak), kindOf(full))
				if full.Verdict == Safe {
					assert.Equal(t, *weak.LostEvents, *full.LostEvents)
					assert.Equal(t, *weak.RecursedEvents, *full.RecursedEvents)
					assert.Equal(t, *weak.IRQsOffMaxSteps, *full.IRQsOffMaxSteps)
					assert.Equal(t, weak.Runs, full.Runs, "distinct end states")
				}
				t.Logf("%v %v: %d states reduced, %d with the visited set alone", full.Verdict, kindOf(full), full.States, weak.States)
			})
		}
	}
}

func tracerSteps(t *testing.T, name string) []string {
	for _, b := range patch.TracerBuiltins {
		if b.Name == name {
			return b.Steps
		}
	}
	t.Fatalf("no tracer %s", name)
	return nil
}

// NMIs (Scenario.NMI) arrive even with interrupts masked: the 2008
// irqsave callback, whose per-CPU disabled counter is taken when the NMI's
// callback runs, drops the NMI's event; the recursion bits, with a bit
// for NMI context, lose none.
func TestTracerNMI(t *testing.T) {
	if raceEnabled {
		t.Skip("tracer searches take minutes under -race; the plain run checks them")
	}
	sc := small(tracerScenario(t, "irqsave"))
	sc.NMI = true
	res, err := Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{NMI: 1}, *res.LostEvents)
	assert.True(t, res.Space.NMI)
	assert.Contains(t, res.Space.Scenario, "irq bound 1, nmi")
	sc.Lossless = true
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	rep := requireReplays(t, sc, res, detect.LostEvent)
	assert.Contains(t, res.Hazard.Detail, "without recording the nmi-context event")
	var texts []string
	for _, e := range rep.Replay.Trace {
		texts = append(texts, e.Text)
	}
	assert.Contains(t, strings.Join(texts, "\n"), "NMI: the CPU enters __nmi_svc")

	sc = small(tracerScenario(t, "recursion-bits"))
	sc.NMI, sc.Lossless = true, true
	res, err = Check(sc, Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
	assert.Equal(t, LostEvents{}, *res.LostEvents)
	assert.Equal(t, LostEvents{}, *res.RecursedEvents)
}
