package explore

import (
	"fmt"
	"sort"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/sched"
)

// SitePass explains one pass of a task through a call site: which
// instructions it executed there and which write had put their bytes in text.
type SitePass struct {
	Task     int        `json:"task"`
	Function string     `json:"function"`
	Site     uint64     `json:"site"`
	Start    int        `json:"start_step"`
	End      int        `json:"end_step"` // 0: still inside at the hazard
	Mixed    bool       `json:"mixed"`    // a combination of bytes the site never held
	Insns    []PassInsn `json:"insns"`
	// During lists what happened elsewhere between the pass's first and
	// last instruction: the task's preemptions and switches, grace periods
	// and stop_machine calls ending, and writes to this site.
	During []PassEvent `json:"during,omitempty"`
}

// PassEvent is something that happened while a task was inside a site.
type PassEvent struct {
	Step int    `json:"step"`
	CPU  int    `json:"cpu"`
	Text string `json:"text"`
}

// PassInsn is one instruction executed in a pass.
type PassInsn struct {
	Off    int       `json:"offset"`
	Step   int       `json:"step"` // when the task executed it
	CPU    int       `json:"cpu"`
	Bytes  string    `json:"bytes"`
	Disasm string    `json:"disasm"`
	Writer WriteInfo `json:"written_by"`
}

// WriteInfo is the provenance of text bytes.
type WriteInfo struct {
	ID         int    `json:"id"`         // 0: the compiled bytes
	Step       int    `json:"step"`       // 0: at boot
	CPU        int    `json:"cpu"`        // -1: at boot
	Transition int    `json:"transition"` // 0: boot
	Label      string `json:"label"`
	Form       string `json:"form,omitempty"`
}

func (w WriteInfo) String() string {
	switch {
	case w.ID == 0:
		return "compiled bytes"
	case w.Transition == 0:
		return fmt.Sprintf("write #%d at boot (%s form)", w.ID, w.Form)
	}
	return fmt.Sprintf("write #%d at step %d on cpu%d (%s, %s form)", w.ID, w.Step, w.CPU, w.Label, w.Form)
}

func writeInfo(m *sched.Machine, id uint16) WriteInfo {
	if id == 0 {
		return WriteInfo{CPU: -1, Label: "compiled"}
	}
	w := m.Writes()[id-1]
	return WriteInfo{ID: int(w.ID), Step: w.Step, CPU: w.CPU, Transition: w.Transition, Label: w.Label, Form: w.Store.Form}
}

// explain collects, for the task of hazard h, its latest pass through each
// site that began before the hazard.
func explain(m *sched.Machine, h detect.Hazard) []SitePass {
	latest := map[int16]sched.PassRecord{}
	for _, p := range m.Passes() {
		if p.Task == h.Task && p.Start <= h.Step {
			latest[p.Pass.Site] = p
		}
	}
	var out []SitePass
	img := m.Image()
	for site, p := range latest {
		s := img.Sites[site]
		sp := SitePass{Task: p.Task, Function: s.Func, Site: s.Addr, Start: p.Start, End: p.End, Mixed: p.Mixed}
		end := p.End
		if end == 0 {
			end = h.Step
		}
		for _, e := range m.Trace() {
			if e.Kind != sched.EvExec || e.Task != p.Task || e.Step < p.Start || e.Step > end {
				continue
			}
			if e.PC < s.Addr || e.PC >= s.Addr+uint64(s.Len) {
				continue
			}
			off := int(e.PC - s.Addr)
			sp.Insns = append(sp.Insns, PassInsn{Off: off, Step: e.Step, CPU: e.CPU, Bytes: e.Hex, Disasm: e.Text,
				Writer: writeInfo(m, p.Pass.Write[off])})
		}
		if n := len(sp.Insns); n > 1 {
			sp.During = during(m, p.Task, s.Addr, uint64(s.Len), sp.Insns[0].Step, sp.Insns[n-1].Step)
		}
		out = append(out, sp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// during collects the events between steps from and to (exclusive) that
// explain a pass: what happened to the task, the waits that ended, and the
// writes to the site.
func during(m *sched.Machine, task int, site, n uint64, from, to int) []PassEvent {
	var out []PassEvent
	for _, e := range m.Trace() {
		if e.Step <= from || e.Step >= to {
			continue
		}
		var text string
		switch {
		case e.Kind == sched.EvPreempt && e.Task == task:
			text = "the task is preempted by " + e.Text + "; it stays inside the site"
		case e.Kind == sched.EvSwitch && e.Task == task:
			text = fmt.Sprintf("the task is switched back in on cpu%d", e.CPU)
		case e.Kind == sched.EvWaitDone, e.Kind == sched.EvStopperOut:
			text = e.Text
		case e.Kind == sched.EvStore && e.PC >= site && e.PC < site+n:
			text = e.Text
		default:
			continue
		}
		out = append(out, PassEvent{Step: e.Step, CPU: e.CPU, Text: text})
	}
	return out
}
