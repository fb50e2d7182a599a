package explore

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
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
	Explanation []SitePass      `json:"explanation,omitempty"`
	Tasks       int             `json:"tasks"`
	CPUs        int             `json:"cpus"`
	Machine     *sched.Machine  `json:"-"`
}

// Replay re-runs sc under schedule, recording everything.
func Replay(sc Scenario, schedule string, opts Options) (*Result, error) {
	sc = sc.WithDefaults()
	s, err := ParseSchedule(schedule)
	if err != nil {
		return nil, err
	}
	run, err := replay(sc, s, opts.Bound, true, !opts.Reduction.por())
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
	}
	res.Space.Description = "one schedule, replayed"
	return res, nil
}

// ErrSchedule is wrapped by errors about schedules that do not fit a scenario.
var ErrSchedule = fmt.Errorf("schedule does not fit the scenario")

func replay(sc Scenario, s Schedule, bound int, record, unreduced bool) (*Run, error) {
	m, err := sc.Build(bound, record, unreduced)
	if err != nil {
		return nil, err
	}
	var buf []sched.Action
	next, firstHazard := 0, -1
	for !m.Done() {
		buf = m.Options(buf)
		step := m.Steps() + 1
		opt := 0
		if next < len(s) && s[next].Step == step {
			opt = s[next].Option
			next++
		}
		if len(buf) == 0 {
			m.Deadlock()
			break
		}
		if opt >= len(buf) {
			return nil, fmt.Errorf("%w: step %d has %d option(s), the schedule asks for option %d", ErrSchedule, step, len(buf), opt)
		}
		m.Apply(buf[opt])
		if len(m.Hazards()) > 0 && firstHazard < 0 {
			firstHazard = m.Steps()
		}
		if firstHazard >= 0 && m.Steps()-firstHazard >= AfterHazard && next >= len(s) {
			break
		}
	}
	if next < len(s) {
		return nil, fmt.Errorf("%w: the run ended at step %d, before the schedule's step %d", ErrSchedule, m.Steps(), s[next].Step)
	}
	run := &Run{Schedule: s.String(), Steps: m.Steps(), Preemptions: m.Preemptions(), Hazards: m.Hazards(),
		Trace: m.Trace(), Tasks: m.Config().Tasks, CPUs: m.Config().CPUs, Machine: m}
	if firstHazard >= 0 {
		run.Explanation = explain(m, m.Hazards()[0])
	}
	return run, nil
}
