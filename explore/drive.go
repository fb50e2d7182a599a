package explore

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// compiled is a scenario validated and built once: the image (the linked
// text, which may come from a real object) and the patcher's program.
// Machines only read both, so every machine of a check, on any goroutine,
// is built from the same compiled scenario; building a machine is then a
// copy of the text and a few tables.
type compiled struct {
	sc   Scenario // with defaults
	img  *kernel.Image
	prog *sched.Program
	// stats collects the tracer kernel's lost events over every machine
	// of the check (tracer.go).
	stats *sched.TracerStats
	// noSym turns off the machines' task symmetry (Options.NoSymmetry).
	noSym bool
	// ref is the uninstrumented reference run's results (results.go),
	// compared with every run when ref.Compared.
	ref *detect.Results
	// focus, when positive, makes the machines those of worker focus-1's
	// thread-modular check (modular.go, sched.Config.Focus).
	focus int
	// mirror, with focus 1, records whether worker 0's modular machine
	// stands for every worker's (sched.Mirror)
	mirror *sched.Mirror
	// env, with focus, is the round's value sets of the shared data
	// cells (sched.EnvCells, explore/modular.go)
	env *sched.EnvCells
}

// compile validates sc, links its text, compiles its strategy and makes
// the uninstrumented reference run (results.go).
func compile(sc Scenario) (*compiled, error) { return compileWith(sc, true) }

// compileWith is compile; ref says whether to make the reference run.
func compileWith(sc Scenario, ref bool) (*compiled, error) {
	sc = sc.WithDefaults()
	if sc.Strategy == nil {
		return nil, fmt.Errorf("scenario has no strategy")
	}
	build := func() (*kernel.Image, error) {
		return kernel.Build(sc.Arch, kernel.Config{Functions: sc.Functions, Iterations: sc.Iterations, Prologue: sc.Prologue, Tracer: sc.Tracer})
	}
	if sc.Image != nil {
		build = sc.Image
	}
	img, err := build()
	if err != nil {
		return nil, err
	}
	prog, err := patch.Compile(sc.Strategy, img, sc.Toggles)
	if err != nil {
		return nil, err
	}
	c := &compiled{sc: sc, img: img, prog: prog, stats: &sched.TracerStats{}}
	if _, err := c.machine(false, false); err != nil {
		return nil, err
	}
	if !ref {
		return c, nil
	}
	if c.ref, err = c.reference(); err != nil {
		return nil, err
	}
	return c, nil
}

// Machine builds the machine of s in its initial state, for callers that
// drive it themselves (record keeps a full trace of every step). The
// preemption bound is the driver's: see sched.Machine.OptionsWithin.
func (s Scenario) Machine(record bool) (*sched.Machine, error) {
	c, err := compile(s)
	if err != nil {
		return nil, err
	}
	return c.machine(record, false)
}

// machine builds a fresh machine in the initial state. record keeps a full
// trace; unreduced turns off the machine's partial-order reduction.
func (c *compiled) machine(record, unreduced bool) (*sched.Machine, error) {
	return sched.New(c.img, c.config(record, unreduced, false), c.prog)
}

// config is the machine configuration of c; results records the run's
// results (results.go).
func (c *compiled) config(record, unreduced, results bool) sched.Config {
	s := c.sc
	return sched.Config{
		CPUs: s.CPUs, Tasks: s.Tasks, Preempt: s.Preempt, Strict: s.Strict, Record: record, Unreduced: unreduced, NoSymmetry: c.noSym,
		NoInt3Emulation: s.NoInt3Emulation, NoQuiet: s.NoQuiet, NoStable: s.NoStable, KeepFreed: s.KeepFreed, KeepDead: s.KeepDead, NoMemo: s.NoMemo, MemoAll: s.MemoAll, MemoCheck: s.MemoCheck,
		StackWords: s.StackWords,
		IRQBound:   s.irqBound(), Lossless: s.Lossless, NMI: s.NMI && s.Tracer != nil, TracerStats: c.stats,
		Reference: c.ref, RecordResults: results, Focus: c.focus, Mirror: c.mirror, Env: c.env,
	}
}

// A chooser decides a run: at every step it picks one of the options the
// machine offers within the preemption bound (there is at least one), and
// it says when the run has gone far enough. Replay of a schedule or a
// path, fuzz input bytes, random and PCT runs and the default run are
// choosers; drive is the one loop that runs them.
type chooser interface {
	// choose returns the index of the option to take.
	choose(m *sched.Machine, opts []sched.Action) (int, error)
	// enough reports whether the run may stop before its end.
	enough(m *sched.Machine) bool
}

// drive runs m under c within bound until the run ends or c has enough. A
// state from which no CPU can move although the run is not over is a
// deadlock (a fault). path, when not nil, receives every option taken.
func drive(m *sched.Machine, bound int, c chooser, path *[]int32) error {
	var buf [16]sched.Action
	for !m.Done() && !c.enough(m) {
		opts := m.OptionsWithin(buf[:0], bound)
		if len(opts) == 0 {
			m.Deadlock()
			break
		}
		o, err := c.choose(m, opts)
		if err != nil {
			return err
		}
		if path != nil {
			*path = append(*path, int32(o))
		}
		m.Apply(opts[o])
	}
	return nil
}

// firstHazard makes a chooser stop at the run's first hazard.
type firstHazard struct{}

func (firstHazard) enough(m *sched.Machine) bool { return len(m.Hazards()) > 0 }

// defaultRun takes option 0 at every step: the CPU that stepped last goes
// on running its task.
type defaultRun struct{ firstHazard }

func (defaultRun) choose(*sched.Machine, []sched.Action) (int, error) { return 0, nil }

// toEnd runs a chooser to the end of the run, hazards or not.
type toEnd struct{ chooser }

func (toEnd) enough(*sched.Machine) bool { return false }

// pathRun replays a path of options, one per step, then stops.
type pathRun struct {
	path []int32
	next int
}

func (p *pathRun) choose(m *sched.Machine, opts []sched.Action) (int, error) {
	o := int(p.path[p.next])
	p.next++
	if o >= len(opts) {
		return 0, fmt.Errorf("internal error: path does not replay at step %d", m.Steps()+1)
	}
	return o, nil
}

func (p *pathRun) enough(*sched.Machine) bool { return p.next >= len(p.path) }

// scheduleRun replays a schedule string's choices (the default option at
// every other step) and goes on AfterHazard steps past the first hazard,
// so that its consequences show.
type scheduleRun struct {
	s           Schedule
	next        int
	firstHazard int // step of the first hazard, or -1
}

func (r *scheduleRun) choose(m *sched.Machine, opts []sched.Action) (int, error) {
	step := m.Steps() + 1
	opt := 0
	if r.next < len(r.s) && r.s[r.next].Step == step {
		opt = r.s[r.next].Option
		r.next++
	}
	if opt >= len(opts) {
		return 0, fmt.Errorf("%w: step %d has %d option(s), the schedule asks for option %d", ErrSchedule, step, len(opts), opt)
	}
	return opt, nil
}

func (r *scheduleRun) enough(m *sched.Machine) bool {
	if len(m.Hazards()) > 0 && r.firstHazard < 0 {
		r.firstHazard = m.Hazards()[0].Step
	}
	return r.firstHazard >= 0 && m.Steps()-r.firstHazard >= AfterHazard && r.next >= len(r.s)
}

// bytesRun takes its choices from fuzz input: one byte per step with more
// than one option (option b % n), the default once the bytes run out. It
// stops at the first hazard.
type bytesRun struct {
	firstHazard
	data []byte
}

func (b *bytesRun) choose(_ *sched.Machine, opts []sched.Action) (int, error) {
	if len(opts) < 2 || len(b.data) == 0 {
		return 0, nil
	}
	o := int(b.data[0]) % len(opts)
	b.data = b.data[1:]
	return o, nil
}

// Preflight runs sc's workload once, alone (one CPU, one task, every site
// in the strategy's boot form, no patching), and returns an error naming
// the fault if the workload cannot run at all: an instruction outside the
// executor's set (with function+offset, pc, bytes and disassembly), a wild
// pc or stack access, or a runaway that uses up the step budget. Such a
// workload (a real object's function, typically) is an input error, not a
// verdict about the strategy.
func Preflight(sc Scenario) error {
	sc = sc.WithDefaults()
	sc.CPUs, sc.Tasks, sc.Preempt = 1, 1, PreemptNone
	c, err := compileWith(sc, false)
	if err != nil {
		return err
	}
	if c.prog, err = patch.Compile(sc.Strategy, c.img, 0); err != nil { // no transition: every site stays in its boot form
		return err
	}
	m, err := c.machine(false, false)
	if err != nil {
		return err
	}
	if err := drive(m, 0, toEnd{defaultRun{}}, nil); err != nil {
		return err
	}
	for _, h := range m.Hazards() {
		if h.Kind == detect.Fault {
			return fmt.Errorf("cannot run even unpatched: %v", h)
		}
	}
	if m.OutOfSteps() {
		return fmt.Errorf("cannot run even unpatched: %s at pc %#x <%s>", m.BudgetText(), m.PC(0), m.Image().Name(m.PC(0)))
	}
	return nil
}

// WithRun returns res with a recorded run to draw or print step by step:
// the counterexample of an UNSAFE result or the run of a replay (replayed
// from its schedule when res carries none, as one decoded from JSON does),
// or, for a SAFE or INCOMPLETE check, one representative run: the default
// schedule "" (no preemption; each CPU keeps running what it runs), marked
// Representative.
func WithRun(sc Scenario, opts Options, res *Result) (*Result, error) {
	if res == nil {
		return nil, fmt.Errorf("no result")
	}
	if res.Replay.Drawn() {
		return res, nil
	}
	schedule := ""
	if res.Verdict == Unsafe || res.Mode == "replay" {
		schedule = res.Schedule
	}
	sc = AsSearched(sc, res)
	c, s, err := compileFor(sc, schedule)
	if err != nil {
		return nil, err
	}
	cap := 0
	if schedule == "" && res.Verdict != Unsafe && res.Mode != "replay" {
		cap = RepresentativeSteps
	}
	run, err := c.record(s, opts, cap)
	if err != nil {
		return nil, err
	}
	out := *res
	out.Representative = res.Replay == nil && schedule == "" && res.Verdict != Unsafe && res.Mode != "replay"
	out.Replay = run
	return &out, nil
}
