package explore

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/sched"
)

// The uninstrumented reference run of the wrong-result detector
// (detect/results.go, docs/model.md §3): made once per compiled scenario,
// shared, immutable, by every machine of the check.

// reference runs the workload of c with no patching at all: the image as
// compiled (every site calls its trampoline, which is transparent), no
// patcher operation, one CPU, no preemption, option 0 at every step (the
// tasks run one after another between their voluntary schedule points).
// It returns the results with Compared false and a reason when they
// cannot be compared: the tracer kernel (whose traced functions are the
// scheduler's and preempt_count's, run as often as interrupts and
// preemption make them), a reference run that does not finish cleanly, or
// the rule of detect/results.go.
func (c *compiled) reference() (*detect.Results, error) {
	if c.img.Tracer != nil {
		return &detect.Results{Why: "the tracer kernel's traced functions are kernel paths that run as often as interrupts and preemption make them: no reference"}, nil
	}
	s := c.sc
	m, err := sched.New(c.img, sched.Config{CPUs: 1, Tasks: s.Tasks, Preempt: sched.PreemptNone, StackWords: s.StackWords, RecordResults: true, KeepFreed: s.KeepFreed, KeepDead: s.KeepDead}, &sched.Program{})
	if err != nil {
		return nil, err
	}
	if err := drive(m, 0, toEnd{defaultRun{}}, nil); err != nil {
		return nil, err
	}
	ref := m.Results()
	switch {
	case len(m.Hazards()) > 0:
		ref.Compared, ref.Why = false, fmt.Sprintf("the uninstrumented reference run itself reaches %v", m.Hazards()[0])
	case m.OutOfSteps() || !m.Done():
		ref.Compared, ref.Why = false, "the uninstrumented reference run does not finish: "+m.BudgetText()
	}
	if ref.Compared {
		if a, ok := storesTo(c.prog, ref.TextReads); ok {
			ref.Compared, ref.Why = false, fmt.Sprintf("the workload reads text at %#x <%s> as data, and the strategy stores there: the results depend on the schedule", a, c.img.Name(a))
		}
	}
	return ref, nil
}

// storesTo returns an address of addrs (sorted) that a store of prog writes.
func storesTo(prog *sched.Program, addrs []uint64) (uint64, bool) {
	if len(addrs) == 0 {
		return 0, false
	}
	hit := func(s sched.Store) (uint64, bool) {
		for _, a := range addrs {
			if a >= s.Addr && a < s.Addr+uint64(len(s.Bytes)) {
				return a, true
			}
		}
		return 0, false
	}
	for _, s := range prog.Boot {
		if a, ok := hit(s); ok {
			return a, true
		}
	}
	for _, op := range prog.Ops {
		for _, s := range op.Stores {
			if a, ok := hit(s); ok {
				return a, true
			}
		}
	}
	return 0, false
}

// Return is one traced call's return: its value in the run a result shows
// and in the uninstrumented reference run. Call counts the task's traced
// returns from 1. A nil Value means the run shown did not make the call (a
// counterexample is replayed only to AfterHazard steps past its hazard),
// a nil Reference that the reference made no such call.
type Return struct {
	Task      int     `json:"task"`
	Call      int     `json:"call"`
	Function  string  `json:"function"`
	Caller    string  `json:"caller"` // where the call returned to
	Value     *uint64 `json:"value,omitempty"`
	Reference *uint64 `json:"reference,omitempty"`
	// Unknown: in the reference the return register held what the
	// instrumentation's last call left there (detect.Return.Unknown): the
	// value is not compared.
	Unknown bool `json:"unknown,omitempty"`
}

// Returns lists, task by task, the returns of run (a machine's recorded
// results; nil: the reference's values alone) beside the reference's.
func (c *compiled) returns(run *detect.Results) []Return {
	var out []Return
	for t := 0; t < c.sc.Tasks; t++ {
		var got, want []detect.Return
		if run != nil && t < len(run.Tasks) {
			got = run.Tasks[t].Returns
		}
		if t < len(c.ref.Tasks) {
			want = c.ref.Tasks[t].Returns
		}
		for k := 0; k < max(len(got), len(want)); k++ {
			r := Return{Task: t, Call: k + 1}
			var at detect.Return
			if k < len(want) {
				at = want[k]
				v := at.Value
				r.Reference, r.Unknown = &v, at.Unknown
			}
			if k < len(got) {
				at = got[k]
				v := at.Value
				r.Value = &v
			}
			r.Function = c.img.Name(at.Func)
			r.Caller = c.img.Name(at.Ret)
			out = append(out, r)
		}
	}
	return out
}

// withReturns fills in res.Stubs, res.Returns and res.ReturnsNote for a workload
// linked from an object (Scenario.Image): from the run res shows, or for
// a result without one from the default run (option 0 at every step),
// which every explored run equals when the check is SAFE.
func (c *compiled) withReturns(res *Result, bound int) error {
	if c.sc.Image != nil {
		res.Stubs = c.img.Stubs
	}
	if c.sc.Image == nil || c.ref == nil {
		return nil
	}
	var run *detect.Results
	note := ""
	switch {
	case res.Replay.Drawn():
		run = res.Replay.Results
		note = "values of the run shown"
		if res.Hazard != nil {
			note = fmt.Sprintf("values of the run shown, replayed until it ends or %d steps past its first hazard", AfterHazard)
		}
	default:
		m, err := sched.New(c.img, c.config(false, false, true), c.prog)
		if err != nil {
			return err
		}
		if err := drive(m, bound, toEnd{defaultRun{}}, nil); err != nil {
			return err
		}
		run = m.Results()
		note = "values of the default run, no preemption"
		if res.Verdict == Safe && c.ref.Compared {
			note += "; every explored run returned the reference's values"
		}
	}
	if !c.ref.Compared {
		note += "; not compared: " + c.ref.Why
	}
	res.Returns, res.ReturnsNote = c.returns(run), note
	return nil
}
