package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/sched"
)

//go:embed assets/timeline.html.tmpl assets/timeline.css assets/timeline.js
var assets embed.FS

var pageTemplate = template.Must(template.New("timeline.html.tmpl").Funcs(template.FuncMap{
	"hex": func(v uint64) string { return fmt.Sprintf("%#x", v) },
}).ParseFS(assets, "assets/timeline.html.tmpl"))

// HTML writes res, the result of checking or replaying sc under opts, as one
// self-contained HTML page (styles and script embedded, nothing fetched from
// the network): a timeline with a lane per CPU and per task, every step with
// its address, bytes and disassembly, the patcher's writes and its
// stop_machine and grace-period spans, preemptions and context switches, the
// hazard with its explanation, and controls to step through the schedule.
//
// An UNSAFE result shows its counterexample; a SAFE or INCOMPLETE one, the
// representative run that explore.WithRun attaches (and the page says so).
// HTML only draws: a result without a recorded run is an error (give it
// to explore.WithRun first).
//
// The page's script understands two URL fragments: #step=N shows step N and
// #step=hazard presses the page's own "hazard" button; #walk=hazard starts
// at the first step and presses "next" until the first hazard. When its
// script has run, the page's body carries data-status="ok" (or "error: …")
// and data-current-step, which tests read from a headless browser.
func HTML(w io.Writer, sc explore.Scenario, opts explore.Options, res *explore.Result) error {
	if res == nil {
		return fmt.Errorf("report: HTML of a nil result")
	}
	run := res.Replay
	if run == nil || run.Machine == nil {
		return fmt.Errorf("report: HTML needs a result with its recorded run (see explore.WithRun)")
	}
	page, err := buildPage(sc, opts, res, run, res.Representative)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, page)
}

// page is what the template renders.
type page struct {
	Title          string
	Config         Config
	Verdict        string
	VerdictClass   string
	Mode           string
	Description    string
	Searched       string
	Reason         string
	Schedule       string
	Command        string
	Note           string // what the command needs first (ReplayNote)
	Representative bool
	Omitted        string // what a long run's bounded trace leaves out (OmittedText)
	Steps          int
	Preemptions    int
	Lanes          []lane
	Rows           []row
	Hazards        []hazardView
	Passes         []passView
	Writes         []writeView
	Data           pageData
	CSS            template.CSS
	JS             template.JS
}

type lane struct {
	Name  string
	Kind  string // "cpu" or "task"
	Class string // colour class of a task lane, and "lane-idle" for a task with no event in the run
}

type row struct {
	ID      string
	Step    int
	CPU     string
	Kind    string
	Classes string
	Cells   []cell
}

type cell struct {
	Class string
	Label string // a CPU lane's task, when it changes
	Span  string // a span that starts here (patcher lane)
	Ev    *eventView
}

type eventView struct {
	Kind   string
	Addr   string
	Where  string
	Bytes  string
	Disasm string
	Text   string
	Note   string // the explanation of an explained site word, or a culprit write
	Goto   int    // a step the note links to
	Badge  string
}

type hazardView struct {
	First  bool
	Kind   string
	Step   int
	CPU    int
	Task   string
	PC     string
	Where  string
	Detail string
}

type passView struct {
	Task     string
	Function string
	Site     string
	Mixed    bool
	Insns    []insnView
}

// insnView is a row of a pass's explanation: an instruction the task
// executed in the site, or (Event set) something that happened meanwhile.
type insnView struct {
	Event      string
	Step       int
	CPU        int
	Off        int
	Bytes      string
	Disasm     string
	Writer     string
	WriterStep int // 0: boot or compiled
}

type writeView struct {
	ID      int
	Step    int
	CPU     int
	Label   string
	Where   string
	What    string
	Culprit bool
}

// pageData is the JSON the page's script reads.
type pageData struct {
	Steps        []int       `json:"steps"`
	HazardSteps  []int       `json:"hazardSteps"`
	States       []stepState `json:"states"`
	CPUs         int         `json:"cpus"`
	Tasks        []string    `json:"tasks"`
	FirstHazard  int         `json:"firstHazard"`
	ExplainSteps []int       `json:"explainSteps"`
	// The stack panel: every store to a task's stack word, oldest first,
	// the slots hazards name (what the trampoline or the return expected
	// there), and the task the panel shows first.
	Stack     []stackView    `json:"stack"`
	Expected  []expectedSlot `json:"expected"`
	StackTask int            `json:"stackTask"`
}

// stackView is one stack store, as the stack panel shows it.
type stackView struct {
	Step   int    `json:"step"`
	Task   int    `json:"task"`
	Addr   string `json:"addr"`
	Value  string `json:"value"`
	Source string `json:"source"` // "written from r4"
	Insn   string `json:"insn"`   // "f0: push {r4, lr}" (empty: not an instruction of the task)
}

// expectedSlot is a stack slot a hazard names: the word a trampoline or a
// return loaded, expecting a saved return address there.
type expectedSlot struct {
	Step int    `json:"step"`
	Task int    `json:"task"`
	Addr string `json:"addr"`
	Note string `json:"note"`
}

type stepState struct {
	Step    int         `json:"step"`
	Summary string      `json:"summary"`
	CPUs    []string    `json:"cpus"`
	Tasks   []taskState `json:"tasks"`
	Sites   []siteWord  `json:"sites"`
}

type taskState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Where string `json:"where"`
}

type siteWord struct {
	Where   string `json:"where"`
	Bytes   string `json:"bytes"`
	Writer  string `json:"writer"`
	Changed bool   `json:"changed"`
}

const (
	idle    = -1
	stopper = -2
)

func buildPage(sc explore.Scenario, opts explore.Options, res *explore.Result, run *explore.Run, representative bool) (*page, error) {
	m := run.Machine
	cfg := ConfigOf(sc, opts)
	p := &page{
		Config: cfg, Mode: res.Mode, Verdict: res.Verdict.String(), Description: res.Space.Description,
		Reason: res.Reason, Schedule: run.Schedule, Representative: representative, Omitted: OmittedText(run),
		Steps: run.Steps, Preemptions: run.Preemptions,
		CSS: template.CSS(mustAsset("assets/timeline.css")), JS: template.JS(mustAsset("assets/timeline.js")),
	}
	p.Title = fmt.Sprintf("mcountsim: %s %s — %s", cfg.Arch, cfg.Strategy, p.Verdict)
	p.VerdictClass = strings.ToLower(p.Verdict)
	if res.Mode == "replay" {
		p.Verdict = "no hazard in this run"
		p.VerdictClass = "safe"
		if res.Hazard != nil {
			p.Verdict = "UNSAFE: the schedule reaches a hazard"
			p.VerdictClass = "unsafe"
		}
		p.Title = fmt.Sprintf("mcountsim: %s %s — replay", cfg.Arch, cfg.Strategy)
	} else {
		p.Searched = Searched(res)
	}
	p.Command = ReplayCommand(sc, opts, run.Schedule)
	p.Note = ReplayNote(sc, run.Schedule)

	name := func(t int) string { return taskName(run, t) }
	for c := 0; c < run.CPUs; c++ {
		p.Lanes = append(p.Lanes, lane{Name: fmt.Sprintf("cpu%d", c), Kind: "cpu"})
	}
	for t := 0; t <= run.Tasks; t++ {
		p.Lanes = append(p.Lanes, lane{Name: name(t), Kind: "task", Class: taskClass(run, t)})
		p.Data.Tasks = append(p.Data.Tasks, name(t))
	}
	p.Data.CPUs = run.CPUs
	active := map[int]bool{}
	for _, e := range run.Trace {
		active[e.Task] = true
	}
	for i := run.CPUs; i < len(p.Lanes); i++ {
		if t := i - run.CPUs; t < run.Tasks && !active[t] {
			p.Lanes[i].Class += " lane-idle"
		}
	}
	for _, w := range m.StackWrites() {
		insn := ""
		if w.PC != 0 {
			insn = fmt.Sprintf("%s: %s", nameOr(w.Where, fmt.Sprintf("%#x", w.PC)), w.Disasm)
		}
		p.Data.Stack = append(p.Data.Stack, stackView{Step: w.Step, Task: w.Task, Addr: fmt.Sprintf("%#x", w.Addr),
			Value: fmt.Sprintf("%08x", w.Value), Source: w.Source, Insn: insn})
	}
	for _, h := range run.Hazards {
		if a := h.Slot; a != 0 {
			p.Data.Expected = append(p.Data.Expected, expectedSlot{Step: h.Step, Task: h.Task, Addr: fmt.Sprintf("%#x", a),
				Note: fmt.Sprintf("%s at step %d: %s loaded this slot expecting a saved return address (%s)",
					nameOr(h.Where, fmt.Sprintf("%#x", h.PC)), h.Step, taskName(run, h.Task), h.Kind)})
		}
	}

	for i, h := range run.Hazards {
		p.Hazards = append(p.Hazards, hazardView{First: i == 0, Kind: h.Kind.String(), Step: h.Step, CPU: h.CPU,
			Task: name(h.Task), PC: fmt.Sprintf("%#x", h.PC), Where: strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(where(h.PC, h.Where), " <"), ">")), Detail: h.Detail})
		p.Data.HazardSteps = append(p.Data.HazardSteps, h.Step)
	}
	if len(run.Hazards) > 0 {
		p.Data.FirstHazard = run.Hazards[0].Step
		if t := run.Hazards[0].Task; t >= 0 && t <= run.Tasks {
			p.Data.StackTask = t
		}
	}

	// The explanation: which site words the task executed, and the writes
	// that had put them there (culprits: writes during the run).
	explained := map[[2]int]explore.PassInsn{} // (step, task) -> insn
	culprits := map[int]bool{}                 // write id
	explainedSites := map[uint64]bool{}
	for _, sp := range run.Explanation {
		pv := passView{Task: name(sp.Task), Function: sp.Function, Site: fmt.Sprintf("%#x", sp.Site), Mixed: sp.Mixed}
		explainedSites[sp.Site] = true
		for _, in := range sp.Insns {
			pv.Insns = append(pv.Insns, insnView{Step: in.Step, CPU: in.CPU, Off: in.Off, Bytes: in.Bytes, Disasm: in.Disasm,
				Writer: in.Writer.String(), WriterStep: in.Writer.Step})
			explained[[2]int{in.Step, sp.Task}] = in
			p.Data.ExplainSteps = append(p.Data.ExplainSteps, in.Step)
			if in.Writer.ID != 0 && in.Writer.Transition != 0 {
				culprits[in.Writer.ID] = true
			}
		}
		for _, ev := range sp.During {
			pv.Insns = append(pv.Insns, insnView{Event: ev.Text, Step: ev.Step, CPU: ev.CPU})
		}
		sort.SliceStable(pv.Insns, func(i, j int) bool { return pv.Insns[i].Step < pv.Insns[j].Step })
		p.Passes = append(p.Passes, pv)
	}
	img := m.Image()
	for _, wr := range m.Writes() {
		if wr.Store.Site < 0 || !explainedSites[img.Sites[wr.Store.Site].Addr] {
			continue
		}
		p.Writes = append(p.Writes, writeView{ID: int(wr.ID), Step: wr.Step, CPU: wr.CPU, Label: wr.Label,
			Where: img.Name(wr.Store.Addr), What: m.DescribeStore(wr.Store), Culprit: culprits[int(wr.ID)]})
	}

	tl := newTimeline(run, m)
	// A long page shows the words of a few sites at every step (the
	// hazard's, else the first ones), so that its size stays bounded.
	if len(run.Trace)*len(img.Sites) > maxSiteStates && len(img.Sites) > maxPageSites {
		tl.showSite = map[int]bool{}
		for si, s := range img.Sites {
			if explainedSites[s.Addr] {
				tl.showSite[si] = true
			}
		}
		for si := 0; si < len(img.Sites) && len(tl.showSite) < maxPageSites; si++ {
			tl.showSite[si] = true
		}
		note := fmt.Sprintf("a long page: the site words of %d of the %d sites are shown at each step", len(tl.showSite), len(img.Sites))
		if p.Omitted != "" {
			note = p.Omitted + "; " + note
		}
		p.Omitted = note
	}
	lanes := len(p.Lanes)
	for i, e := range run.Trace {
		tl.apply(e)
		r := row{ID: fmt.Sprintf("e%d", i), Step: e.Step, Kind: e.Kind.String(), Cells: make([]cell, lanes)}
		r.CPU = "-"
		if e.CPU >= 0 {
			r.CPU = fmt.Sprintf("cpu%d", e.CPU)
		}
		classes := []string{"ev-" + e.Kind.String()}
		for c := 0; c < run.CPUs; c++ {
			cur := tl.cpu[c]
			cl := "band " + bandClass(run, cur)
			label := ""
			if cur != tl.shown[c] {
				label = bandName(run, cur)
				tl.shown[c] = cur
			}
			r.Cells[c] = cell{Class: cl, Label: label}
		}
		for t := 0; t <= run.Tasks; t++ {
			r.Cells[run.CPUs+t] = cell{Class: "st-" + tl.task[t]}
			if t < run.Tasks && !active[t] {
				r.Cells[run.CPUs+t].Class += " lane-idle"
			}
		}
		pl := &r.Cells[run.CPUs+run.Tasks]
		if tl.span != "" {
			pl.Class += " span span-" + tl.spanKind
			if tl.spanStart {
				pl.Span = tl.span
				pl.Class += " span-start"
			}
			if tl.spanEnd {
				pl.Class += " span-end"
			}
		}
		col, ev := eventCell(run, m, e)
		if e.Kind == sched.EvPreempt && byStopper(run.Trace, i) {
			ev.Text = fmt.Sprintf("preempted on cpu%d by its stopper (stop_machine)", e.CPU)
		}
		switch e.Kind {
		case sched.EvHazard:
			classes = append(classes, "hazard")
			if e.Step == p.Data.FirstHazard {
				classes = append(classes, "first-hazard")
			}
		case sched.EvPreempt:
			classes = append(classes, "preempt")
		case sched.EvSwitch, sched.EvStopperIn:
			classes = append(classes, "switch")
		case sched.EvStore:
			if culprits[e.Write] {
				classes = append(classes, "culprit")
				ev.Note = fmt.Sprintf("write #%d: executed by %s later (see explanation)", e.Write, name(run.Explanation[0].Task))
			}
		case sched.EvExec:
			if in, ok := explained[[2]int{e.Step, e.Task}]; ok {
				classes = append(classes, "explained")
				ev.Note = fmt.Sprintf("site word +%d ← %s", in.Off, in.Writer)
				ev.Goto = in.Writer.Step
			}
			if e.Stale != "" {
				// The CPU's view of text was behind: say what it may still
				// see and since when it had not synchronized.
				classes = append(classes, "stale")
				if ev.Note != "" {
					ev.Note += "; "
				}
				ev.Note += "stale fetch: " + e.Stale
			}
		}
		r.Cells[col].Ev = ev
		r.Cells[col].Class += " has-ev"
		r.Classes = strings.Join(classes, " ")
		p.Rows = append(p.Rows, r)
		tl.endRow()
		if i+1 == len(run.Trace) || run.Trace[i+1].Step != e.Step {
			p.Data.Steps = append(p.Data.Steps, e.Step)
			p.Data.States = append(p.Data.States, tl.state(e.Step, summary(run, e)))
		}
	}
	return p, nil
}

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// taskClass is the colour class of task t (the stopper is drawn as the patcher's).
func taskClass(run *explore.Run, t int) string {
	switch {
	case t == stopper:
		return "c-stopper"
	case t == idle:
		return "c-idle"
	case t == run.Tasks:
		return "c-patcher"
	}
	return fmt.Sprintf("c-w%d", t%8)
}

func bandClass(run *explore.Run, t int) string { return taskClass(run, t) }

func bandName(run *explore.Run, t int) string {
	switch t {
	case stopper:
		return "stopper"
	case idle:
		return "idle"
	}
	return taskName(run, t)
}

// eventCell says in which lane an event goes and what it shows there.
func eventCell(run *explore.Run, m *sched.Machine, e sched.Event) (int, *eventView) {
	lane := run.CPUs + e.Task
	if e.Task < 0 || e.Task > run.Tasks {
		lane = run.CPUs + run.Tasks // stopper events go to the patcher's lane
	}
	ev := &eventView{Kind: e.Kind.String(), Text: e.Text}
	if e.PC != 0 {
		ev.Addr = fmt.Sprintf("%#x", e.PC)
		ev.Where = e.Where
	}
	switch e.Kind {
	case sched.EvExec:
		ev.Bytes, ev.Disasm, ev.Text = e.Hex, e.Text, ""
	case sched.EvTrace:
		ev.Badge = "trace"
	case sched.EvYield:
		ev.Badge, ev.Text = "yield", "schedule(): voluntary switch"
	case sched.EvSwitch:
		ev.Badge, ev.Text = "switch", fmt.Sprintf("switched in on cpu%d", e.CPU)
	case sched.EvPreempt:
		ev.Badge, ev.Text = "preempted", fmt.Sprintf("timer interrupt: preempted on cpu%d", e.CPU)
	case sched.EvExit:
		ev.Badge, ev.Text = "exit", "exits"
	case sched.EvPatch:
		ev.Badge = "patch"
	case sched.EvStore:
		// write #3, enable #1, f0+0x4, e52de004 (push {lr}).
		ev.Badge, ev.Text = fmt.Sprintf("write #%d", e.Write), e.Label
		ev.Disasm = m.DescribeStore(sched.Store{Addr: e.PC, Bytes: e.Bytes})
	case sched.EvStopperIn:
		ev.Badge, ev.Text = "stopper", fmt.Sprintf("cpu%d enters its stopper", e.CPU)
	case sched.EvStopperOut:
		ev.Badge = "stopper"
	case sched.EvWaitDone:
		ev.Badge = "done"
	case sched.EvIPI:
		ev.Badge, ev.Text = "ipi", fmt.Sprintf("cpu%d takes the sync_core IPI", e.CPU)
	case sched.EvHazard:
		ev.Badge, ev.Text = "HAZARD "+e.Hazard, e.Detail
	}
	return lane, ev
}

// byStopper reports whether the preemption trace[i] switched its CPU to
// the stopper rather than to another task.
func byStopper(trace []sched.Event, i int) bool {
	e := trace[i]
	for _, n := range trace[i+1:] {
		if n.Step != e.Step {
			break
		}
		if n.CPU == e.CPU && n.Kind == sched.EvStopperIn {
			return true
		}
	}
	return false
}

func summary(run *explore.Run, e sched.Event) string {
	who := taskName(run, e.Task)
	if e.Task < 0 {
		who = "stopper"
	}
	cpu := "-"
	if e.CPU >= 0 {
		cpu = fmt.Sprintf("cpu%d", e.CPU)
	}
	what := e.Text
	if e.Kind == sched.EvExec {
		what = fmt.Sprintf("%s: %s", shortWhere(e), e.Text)
	} else if what == "" {
		what = e.Kind.String()
	}
	return fmt.Sprintf("step %d · %s · %s · %s", e.Step, cpu, who, what)
}

// timeline follows the events to know, row by row, what every CPU runs,
// where every task is, the patcher's spans and the bytes of every site.
type timeline struct {
	run   *explore.Run
	m     *sched.Machine
	cpu   []int // task on each CPU, idle or stopper
	shown []int // the task last labelled in each CPU lane
	task  []string
	where []string

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

// A page lists at most maxSiteStates site states (steps times sites) in
// full, and otherwise the words of maxPageSites sites.
const (
	maxSiteStates = 1 << 17
	maxPageSites  = 8
)

func newTimeline(run *explore.Run, m *sched.Machine) *timeline {
	tl := &timeline{run: run, m: m, cpu: make([]int, run.CPUs), shown: make([]int, run.CPUs),
		task: make([]string, run.Tasks+1), where: make([]string, run.Tasks+1)}
	for c := range tl.cpu {
		tl.cpu[c], tl.shown[c] = idle, idle
	}
	for t := range tl.task {
		tl.task[t] = "runnable"
	}
	img := m.Image()
	for _, s := range img.Sites {
		tl.siteOff = append(tl.siteOff, len(tl.site))
		off := s.Addr - img.Base
		tl.site = append(tl.site, img.Text[off:off+uint64(s.Len)]...)
		tl.prov = append(tl.prov, make([]uint16, s.Len)...)
	}
	tl.writes = append([]sched.Write(nil), m.Writes()...)
	sort.SliceStable(tl.writes, func(i, j int) bool { return tl.writes[i].Step < tl.writes[j].Step })
	tl.changed = map[int]bool{}
	tl.applyWrites(0)
	return tl
}

// applyWrites brings the site bytes up to the end of step.
func (tl *timeline) applyWrites(step int) {
	img := tl.m.Image()
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

func (tl *timeline) apply(e sched.Event) {
	t := e.Task
	switch e.Kind {
	case sched.EvSwitch:
		tl.cpu[e.CPU] = t
		tl.task[t] = "running"
		tl.where[t] = e.Where
	case sched.EvStopperIn:
		tl.cpu[e.CPU] = stopper
	case sched.EvPreempt:
		tl.cpu[e.CPU] = idle
		tl.task[t] = "preempted"
		tl.where[t] = e.Where
	case sched.EvYield:
		tl.cpu[e.CPU] = idle
		tl.task[t] = "runnable"
		tl.where[t] = e.Where
	case sched.EvExit:
		tl.cpu[e.CPU] = idle
		tl.task[t] = "exited"
	case sched.EvExec:
		tl.where[t] = e.Where
	case sched.EvPatch:
		switch e.Op {
		case "stop_machine":
			tl.openSpan("stop", "stop_machine")
			tl.task[t] = "blocked"
			tl.where[t] = "sleeping in stop_machine()"
			tl.cpu[e.CPU] = idle
		case "synchronize_sched", "synchronize_rcu_tasks":
			what := e.Op + "()"
			tl.openSpan("gp", what)
			tl.task[t] = "blocked"
			tl.where[t] = "waiting in " + what
			tl.cpu[e.CPU] = idle
		case "sync_core", "flush_icache_all":
			tl.openSpan("gp", e.Op+"()")
		}
	case sched.EvStopperOut:
		for c := range tl.cpu {
			if tl.cpu[c] == stopper {
				tl.cpu[c] = idle
			}
		}
		tl.task[tl.run.Tasks] = "runnable"
		tl.where[tl.run.Tasks] = "stop_machine() returned"
		tl.closeSpan()
	case sched.EvWaitDone:
		if tl.task[tl.run.Tasks] == "blocked" {
			tl.task[tl.run.Tasks] = "runnable"
			tl.where[tl.run.Tasks] = e.Text
		}
		tl.closeSpan()
	}
	if e.Kind == sched.EvPatch && e.Text == "patcher done" {
		tl.task[t] = "exited"
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

// state is the machine as of the end of step: what each CPU runs, where
// each task is, and the bytes of every site word with their writers.
func (tl *timeline) state(step int, summary string) stepState {
	st := stepState{Step: step, Summary: summary}
	for _, c := range tl.cpu {
		st.CPUs = append(st.CPUs, bandName(tl.run, c))
	}
	for t := range tl.task {
		st.Tasks = append(st.Tasks, taskState{Name: taskName(tl.run, t), State: tl.task[t], Where: tl.where[t]})
	}
	clear(tl.changed)
	tl.applyWrites(step)
	img := tl.m.Image()
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
			w := siteWord{Where: img.Name(s.Addr + uint64(off)), Bytes: tl.m.DescribeStore(sched.Store{Addr: s.Addr + uint64(off), Bytes: b})}
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

func nameOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
