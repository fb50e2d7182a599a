package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/sched"
)

// timeline follows the events to know, row by row, what every CPU runs,
// where every task is, the patcher's spans and the bytes of every site.
type timeline struct {
	run   *explore.Run
	cpu   []int // task on each CPU, idle or stopper
	shown []int // the task last labelled in each CPU lane
	tasks []taskState

	span, spanKind     string
	spanStart, spanEnd bool

	writes  []sched.Write // sorted by step
	nextW   int
	site    []byte   // current bytes of every site, concatenated
	prov    []uint16 // write id of each
	siteOff []int    // offset of each site in site
	changed map[int]bool
	// showSite, when set, is the sites whose words each step's state lists.
	showSite map[int]bool
}

// taskState is a task as the timeline follows it and as the page's state
// panel shows it at a step: its name, its state (runnable, running,
// preempted, blocked, exited) and where it is.
type taskState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Where string `json:"where"`
}

// A page lists at most maxSiteStates site states (steps times sites) in
// full, and otherwise the words of maxPageSites sites.
const (
	maxSiteStates = 1 << 17
	maxPageSites  = 8
)

func newTimeline(run *explore.Run) *timeline {
	tl := &timeline{run: run, cpu: make([]int, run.CPUs), shown: make([]int, run.CPUs), tasks: make([]taskState, run.Tasks+1)}
	for c := range tl.cpu {
		tl.cpu[c], tl.shown[c] = idle, idle
	}
	for t := range tl.tasks {
		tl.tasks[t] = taskState{Name: taskName(run, t), State: "runnable"}
	}
	img := run.Image
	for _, s := range img.Sites {
		tl.siteOff = append(tl.siteOff, len(tl.site))
		off := s.Addr - img.Base
		tl.site = append(tl.site, img.Text[off:off+uint64(s.Len)]...)
		tl.prov = append(tl.prov, make([]uint16, s.Len)...)
	}
	tl.writes = append([]sched.Write(nil), run.Writes...)
	sort.SliceStable(tl.writes, func(i, j int) bool { return tl.writes[i].Step < tl.writes[j].Step })
	tl.changed = map[int]bool{}
	tl.applyWrites(0)
	return tl
}

// applyWrites brings the site bytes up to the end of step.
func (tl *timeline) applyWrites(step int) {
	img := tl.run.Image
	for ; tl.nextW < len(tl.writes) && tl.writes[tl.nextW].Step <= step; tl.nextW++ {
		w := tl.writes[tl.nextW]
		for i, b := range w.Store.Bytes {
			a := w.Store.Addr + uint64(i)
			si := img.SiteAt(a)
			if si < 0 {
				continue
			}
			k := tl.siteOff[si] + int(a-img.Sites[si].Addr)
			tl.site[k], tl.prov[k] = b, w.ID
			if step > 0 {
				tl.changed[k] = true
			}
		}
	}
}

// move says that CPU c now runs task run (or idle), and that task t is in
// state at where.
func (tl *timeline) move(c, run, t int, state, where string) {
	tl.cpu[c] = run
	tl.tasks[t].State, tl.tasks[t].Where = state, where
}

func (tl *timeline) apply(e sched.Event) {
	t := e.Task
	switch e.Kind {
	case sched.EvSwitch:
		tl.move(e.CPU, t, t, "running", e.Where)
	case sched.EvStopperIn:
		tl.cpu[e.CPU] = stopper
	case sched.EvPreempt:
		tl.move(e.CPU, idle, t, "preempted", e.Where)
	case sched.EvYield:
		tl.move(e.CPU, idle, t, "runnable", e.Where)
	case sched.EvExit:
		tl.cpu[e.CPU] = idle
		tl.tasks[t].State = "exited"
	case sched.EvExec:
		tl.tasks[t].Where = e.Where
	case sched.EvPatch:
		switch e.Op {
		case "stop_machine":
			tl.openSpan("stop", "stop_machine")
			tl.move(e.CPU, idle, t, "blocked", "sleeping in stop_machine()")
		case "synchronize_sched", "synchronize_rcu_tasks":
			what := e.Op + "()"
			tl.openSpan("gp", what)
			tl.move(e.CPU, idle, t, "blocked", "waiting in "+what)
		case "sync_core", "flush_icache_all":
			tl.openSpan("gp", e.Op+"()")
		}
	case sched.EvStopperOut:
		for c := range tl.cpu {
			if tl.cpu[c] == stopper {
				tl.cpu[c] = idle
			}
		}
		p := &tl.tasks[tl.run.Tasks]
		p.State, p.Where = "runnable", "stop_machine() returned"
		tl.closeSpan()
	case sched.EvWaitDone:
		if p := &tl.tasks[tl.run.Tasks]; p.State == "blocked" {
			p.State, p.Where = "runnable", e.Text
		}
		tl.closeSpan()
	}
	if e.Kind == sched.EvPatch && e.Text == "patcher done" {
		tl.tasks[t].State = "exited"
	}
}

func (tl *timeline) openSpan(kind, label string) {
	tl.span, tl.spanKind, tl.spanStart, tl.spanEnd = label, kind, true, false
}

// closeSpan ends the span with the current row, which still shows it.
func (tl *timeline) closeSpan() {
	if tl.span != "" {
		tl.spanEnd = true
	}
}

// endRow is called after each row is drawn.
func (tl *timeline) endRow() {
	if tl.spanEnd {
		tl.span, tl.spanEnd = "", false
	}
	tl.spanStart = false
}

// siteWord is one word of a site (x86: a whole site) at a step: its
// bytes, the writes that put them there, and whether that step changed it.
type siteWord struct {
	Where   string `json:"where"`
	Bytes   string `json:"bytes"`
	Writer  string `json:"writer"`
	Changed bool   `json:"changed"`
}

// stepState is the machine as of the end of a step, as the page's state
// panel shows it.
type stepState struct {
	Step    int         `json:"step"`
	Summary string      `json:"summary"`
	CPUs    []string    `json:"cpus"`
	Tasks   []taskState `json:"tasks"`
	Sites   []siteWord  `json:"sites"`
}

// state is the machine as of the end of step: what each CPU runs, where
// each task is, and the bytes of every site word with their writers.
func (tl *timeline) state(step int, summary string) stepState {
	st := stepState{Step: step, Summary: summary}
	for _, c := range tl.cpu {
		st.CPUs = append(st.CPUs, bandName(tl.run, c))
	}
	st.Tasks = append([]taskState(nil), tl.tasks...)
	clear(tl.changed)
	tl.applyWrites(step)
	img := tl.run.Image
	unit := 1
	if img.Align == 4 {
		unit = 4
	}
	for si, s := range img.Sites {
		if tl.showSite != nil && !tl.showSite[si] {
			continue
		}
		n := unit
		if unit == 1 {
			n = s.Len // x86: the whole site is one instruction
		}
		for off := 0; off+n <= s.Len; off += n {
			k := tl.siteOff[si] + off
			b := tl.site[k : k+n]
			w := siteWord{Where: img.Name(s.Addr + uint64(off)), Bytes: describe(tl.run, sched.Store{Addr: s.Addr + uint64(off), Bytes: b})}
			var ids []string
			seen := map[uint16]bool{}
			for i := 0; i < n; i++ {
				id := tl.prov[k+i]
				if tl.changed[k+i] {
					w.Changed = true
				}
				if !seen[id] {
					seen[id] = true
					ids = append(ids, tl.writerName(id))
				}
			}
			w.Writer = strings.Join(ids, " + ")
			st.Sites = append(st.Sites, w)
		}
	}
	return st
}

func (tl *timeline) writerName(id uint16) string {
	if id == 0 {
		return "compiled"
	}
	for _, w := range tl.writes {
		if w.ID == id {
			if w.Transition == 0 {
				return fmt.Sprintf("write #%d at boot", id)
			}
			return fmt.Sprintf("write #%d, step %d (%s)", id, w.Step, w.Label)
		}
	}
	return fmt.Sprintf("write #%d", id)
}
