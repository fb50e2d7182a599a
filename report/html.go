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
	if !run.Drawn() {
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

const (
	idle    = -1
	stopper = -2
)

func buildPage(sc explore.Scenario, opts explore.Options, res *explore.Result, run *explore.Run, representative bool) (*page, error) {
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
	for _, w := range run.StackWrites {
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
	img := run.Image
	for _, wr := range run.Writes {
		if wr.Store.Site < 0 || !explainedSites[img.Sites[wr.Store.Site].Addr] {
			continue
		}
		p.Writes = append(p.Writes, writeView{ID: int(wr.ID), Step: wr.Step, CPU: wr.CPU, Label: wr.Label,
			Where: img.Name(wr.Store.Addr), What: describe(run, wr.Store), Culprit: culprits[int(wr.ID)]})
	}

	tl := newTimeline(run)
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
			r.Cells[run.CPUs+t] = cell{Class: "st-" + tl.tasks[t].State}
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
		col, ev := eventCell(run, e)
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
