package explore

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// AfterHazard is how many steps a replay goes on after the first hazard, to
// show its consequences (unless a fault or the end comes first).
const AfterHazard = 400

// Run is one replayed run with its trace.
type Run struct {
	Schedule    string          `json:"schedule"`
	Steps       int             `json:"steps"`
	Preemptions int             `json:"preemptions"`
	Hazards     []detect.Hazard `json:"hazards"`
	Trace       []sched.Event   `json:"trace"`
	// Omitted counts the instructions a long run's bounded trace dropped
	// (sched.TraceHead), from step OmittedFrom to OmittedTo: the trace is
	// then the run's start, its patch and scheduling events, and a window
	// of its last sched.TraceTail events around the hazard.
	Omitted     int `json:"omitted_events,omitempty"`
	OmittedFrom int `json:"omitted_from_step,omitempty"`
	OmittedTo   int `json:"omitted_to_step,omitempty"`
	// CutAt is the step after which a representative run was cut short
	// (RepresentativeSteps), or 0.
	CutAt       int        `json:"cut_at_step,omitempty"`
	Explanation []SitePass `json:"explanation,omitempty"`
	Tasks       int        `json:"tasks"`
	CPUs        int        `json:"cpus"`

	// What the reports draw besides the trace, taken from the machine
	// when the run ended: a Run is data, and keeps no machine.
	Image       *kernel.Image      `json:"-"` // the text's layout and symbols (immutable)
	Writes      []sched.Write      `json:"-"` // the patcher's writes, in order
	StackWrites []sched.StackWrite `json:"-"` // the stack stores of a recorded run
	Text        []byte             `json:"-"` // the text as the run left it
	Describe    sched.Describer    `json:"-"` // renders stored bytes with their disassembly
	OutOfSteps  bool               `json:"-"` // the run hit the machine's step limit
	BudgetText  string             `json:"-"` // why, when OutOfSteps
	LostEvents  [sched.NumCtx]int  `json:"-"` // a tracer's lost events per context
	Recursed    [sched.NumCtx]int  `json:"-"` // and its dropped recursions
	Results     *detect.Results    `json:"-"` // the workload's traced returns and data stores (wrong-result)
}

// Drawn reports whether the run carries what the reports draw (a run
// decoded from JSON does not: explore.WithRun replays it).
func (r *Run) Drawn() bool { return r != nil && r.Image != nil }

// Replay re-runs sc under schedule, recording everything.
func Replay(sc Scenario, schedule string, opts Options) (*Result, error) {
	sc = sc.WithDefaults()
	c, s, err := compileFor(sc, schedule)
	if err != nil {
		return nil, err
	}
	run, err := c.record(s, opts, 0)
	if err != nil {
		return nil, err
	}
	res := &Result{Mode: "replay", Space: space(sc, opts), Schedule: s.String(), Replay: run, Hazards: run.Hazards,
		Preemptions: run.Preemptions, Steps: run.Steps, Runs: 1}
	// A replayed run proves nothing about other schedules: Safe here only
	// means "no hazard in this run" (reports say so).
	res.Verdict = Safe
	if len(run.Hazards) > 0 {
		h := run.Hazards[0]
		res.Hazard = &h
		res.Verdict = Unsafe
	} else if run.OutOfSteps {
		res.Verdict = Incomplete
		res.Reason = run.BudgetText
	}
	res.Space.Description = "one schedule, replayed"
	if err := c.withReturns(res, opts.bound()); err != nil {
		return nil, err
	}
	tracerResult(res, sc, nil, run)
	return res, nil
}

// ErrSchedule is wrapped by errors about schedules that do not fit a scenario.
var ErrSchedule = fmt.Errorf("schedule does not fit the scenario")

func replay(sc Scenario, s Schedule, bound int, record, unreduced bool) (*Run, error) {
	c, err := compile(sc)
	if err != nil {
		return nil, err
	}
	return c.replay(s, bound, record, unreduced)
}

// compileFor parses schedule (as check prints it) and compiles sc: what a
// replay of it needs.
func compileFor(sc Scenario, schedule string) (*compiled, Schedule, error) {
	s, err := ParseSchedule(schedule)
	if err != nil {
		return nil, nil, err
	}
	c, err := compile(sc)
	if err != nil {
		return nil, nil, err
	}
	return c, s, nil
}

// record is the recorded run of s within opts' bound on the machine opts'
// reduction uses, cut after maxSteps steps if maxSteps > 0.
func (c *compiled) record(s Schedule, opts Options, maxSteps int) (*Run, error) {
	return c.replayUpTo(s, opts.bound(), true, !opts.Reduction.por(), maxSteps)
}

func (c *compiled) replay(s Schedule, bound int, record, unreduced bool) (*Run, error) {
	return c.replayUpTo(s, bound, record, unreduced, 0)
}

// RepresentativeSteps bounds the representative run of a SAFE or
// INCOMPLETE check that WithRun draws: a page shows its first steps, not a
// run of millions, and says so (Run.CutAt).
const RepresentativeSteps = 20_000

// upTo stops a run after max steps.
type upTo struct {
	*scheduleRun
	max int
	cut bool
}

func (u *upTo) enough(m *sched.Machine) bool {
	if u.max > 0 && m.Steps() >= u.max && !m.Done() {
		u.cut = true
		return true
	}
	return u.scheduleRun.enough(m)
}

// replayUpTo replays s, stopping after maxSteps steps (0: no limit).
func (c *compiled) replayUpTo(s Schedule, bound int, record, unreduced bool, maxSteps int) (*Run, error) {
	m, err := c.machine(record, unreduced)
	if err != nil {
		return nil, err
	}
	r := &scheduleRun{s: s, firstHazard: -1}
	u := &upTo{scheduleRun: r, max: maxSteps}
	if err := drive(m, bound, u, nil); err != nil {
		return nil, err
	}
	if r.next < len(s) && !u.cut {
		return nil, fmt.Errorf("%w: the run ended at step %d, before the schedule's step %d", ErrSchedule, m.Steps(), s[r.next].Step)
	}
	run := &Run{Schedule: s.String(), Steps: m.Steps(), Preemptions: m.Preemptions(), Hazards: m.Hazards(),
		Trace: m.Trace(), Tasks: m.Config().Tasks, CPUs: m.Config().CPUs,
		Image: m.Image(), Writes: m.Writes(), StackWrites: m.StackWrites(), Text: m.Text(), Describe: m.Describer(),
		OutOfSteps: m.OutOfSteps(), Results: m.Results()}
	if run.OutOfSteps {
		run.BudgetText = m.BudgetText()
	}
	run.LostEvents, run.Recursed = m.LostEvents()
	run.Omitted, run.OmittedFrom, run.OmittedTo = m.TraceOmitted()
	if u.cut {
		run.CutAt = m.Steps()
	}
	if len(m.Hazards()) > 0 {
		run.Explanation = explain(m, m.Hazards()[0])
	}
	return run, nil
}
