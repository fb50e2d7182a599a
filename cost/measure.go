package cost

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// The forms a Count describes.
const (
	// Baseline is the traced function with its call site absent: the
	// instructions of the disabled call outside every site pass.
	Baseline = "baseline"
	// Disabled is the site in the strategy's boot (disabled) form.
	Disabled = "disabled"
	// Enabled is the site after the enable transition: the call, the
	// trampoline and the tracer hook.
	Enabled = "enabled"
)

// Forms lists the forms in the order Measure reports them.
var Forms = []string{Baseline, Disabled, Enabled}

// LineSize is the I-cache line size Count.ICacheLines counts in.
const LineSize = 64

// DefaultIterations is how many workload iterations Measure runs: the
// first call is made before the patcher starts (disabled form) and the
// first call after the patcher has finished is the enabled one; a
// strategy whose enable waits for grace periods needs a few iterations of
// the worker's schedule() to get there.
const DefaultIterations = 8

// ErrNoCall is wrapped when a run makes no call of the traced function in
// the form asked for (it faulted, or the patcher never finished).
var ErrNoCall = errors.New("no call of the traced function")

// Count is what one call of the traced function executes in one form,
// counted from the simulator's recorded execution (sched.EvExec events and
// the tracer hook's word), never from a table of strategies.
type Count struct {
	Strategy string
	Function string
	Form     string // Baseline, Disabled or Enabled
	// Bytes is the text the site costs in this form: 0 for Baseline, the
	// site's bytes for Disabled, and for Enabled the site's bytes plus the
	// distinct bytes of the code the call ran outside the function (the
	// trampoline and the tracer hook).
	Bytes int
	// Instructions executed by the call (the tracer hook's no-op word
	// counts as one).
	Instructions int
	// MemoryAccesses is the loads plus stores the instructions made (a
	// push or pop of n registers is n accesses).
	MemoryAccesses int
	// TakenBranches counts instructions that left the straight line: a
	// branch, call or return, or any whose next pc is not pc+length.
	TakenBranches int
	// ICacheLines is the number of distinct LineSize-byte lines holding
	// the executed instructions' bytes.
	ICacheLines int
	// SitePasses is how many passes through call sites the call made (its
	// own site and those of traced functions it calls); 0 for Baseline.
	SitePasses int
	// Asm is the executed sequence in GNU syntax as llvm-mca reads it
	// (symbol annotations stripped, see MCAText).
	Asm []string
	// Cycles maps a CPU to llvm-mca's predicted cycles for Asm;
	// CycleErrors a CPU without a prediction to the reason.
	Cycles      map[string]float64
	CycleErrors map[string]string
}

// Measurement is the three forms of one call of one traced function under
// one strategy.
type Measurement struct {
	Strategy string
	Arch     kernel.Arch
	Function string
	// Site is the function's own call site; Straddles reports whether its
	// bytes cross a LineSize boundary in the simulated layout.
	Site      kernel.Site
	Straddles bool
	Baseline  Count
	Disabled  Count
	Enabled   Count
	// CPUs are the CPUs cycles were asked for, in order (none with
	// NoCycles).
	CPUs []string
}

// Counts returns the three counts in the order of Forms.
func (m *Measurement) Counts() []Count { return []Count{m.Baseline, m.Disabled, m.Enabled} }

// Dormant returns Disabled minus Baseline: what the dormant site costs per
// call. Cycles holds the CPUs predicted for both.
func (m *Measurement) Dormant() Count {
	d := m.Disabled
	b := m.Baseline
	out := Count{Strategy: m.Strategy, Function: m.Function, Form: "dormant",
		Bytes: d.Bytes - b.Bytes, Instructions: d.Instructions - b.Instructions,
		MemoryAccesses: d.MemoryAccesses - b.MemoryAccesses, TakenBranches: d.TakenBranches - b.TakenBranches,
		ICacheLines: d.ICacheLines - b.ICacheLines, SitePasses: d.SitePasses,
		Cycles: map[string]float64{}, CycleErrors: map[string]string{}}
	for cpu, c := range d.Cycles {
		if bc, ok := b.Cycles[cpu]; ok {
			out.Cycles[cpu] = c - bc
		}
	}
	for _, errs := range []map[string]string{b.CycleErrors, d.CycleErrors} {
		for cpu, e := range errs {
			out.CycleErrors[cpu] = e
		}
	}
	return out
}

// MeasureOptions are Measure's settings; the zero value means the defaults.
type MeasureOptions struct {
	// CPUs to predict cycles for (default CPUs(arch)).
	CPUs []string
	// NoCycles skips llvm-mca: Cycles and CycleErrors stay empty.
	NoCycles bool
	// Function is the traced function to measure (default: the function
	// of the image's first site).
	Function string
}

// Measure counts one call of a traced function of sc in each form by
// running sc in the simulator: one CPU, one task, no preemption, one
// enable transition (sc's CPUs, Tasks, Preempt and Toggles are set so),
// Iterations DefaultIterations unless sc sets more. The worker's first
// call of the function, before the patcher starts, is the Disabled count;
// its first call after the patcher's last store is the Enabled count; the
// Baseline count is the Disabled call with every pass through a site left
// out. A pass through a site begins at the first instruction fetched in
// the site's bytes and ends at the first instruction back in the site's
// function outside them, so it includes what the site calls (the
// trampoline, when enabled). The baseline is therefore the function as
// compiled with the site's bytes absent; it does not undo other changes
// -pg makes (gcc keeps a frame for mcount on x86, e.g.).
func Measure(sc explore.Scenario, opts MeasureOptions) (*Measurement, error) {
	if sc.Strategy == nil {
		return nil, errors.New("cost: scenario has no strategy")
	}
	sc.CPUs, sc.Tasks, sc.Preempt, sc.Toggles = 1, 1, explore.PreemptNone, 1
	if sc.Iterations < DefaultIterations {
		sc.Iterations = DefaultIterations
	}
	res, err := explore.Replay(sc, "", explore.Options{})
	if err != nil {
		return nil, fmt.Errorf("cost: %s: %v", sc.Strategy.Name, err)
	}
	img := res.Replay.Image
	fn := opts.Function
	if fn == "" {
		if len(img.Sites) == 0 {
			return nil, fmt.Errorf("cost: %s: the text has no call site", sc.Strategy.Name)
		}
		fn = img.Sites[0].Func
	}
	t := newTracer(res.Replay)
	me := &Measurement{Strategy: sc.Strategy.Name, Arch: img.Arch, Function: fn}
	own := -1
	for i, s := range img.Sites {
		if s.Func == fn {
			own = i
			break
		}
	}
	if own < 0 {
		return nil, fmt.Errorf("cost: %s has no call site (not a traced function)", fn)
	}
	me.Site = img.Sites[own]
	me.Straddles = (me.Site.Addr / LineSize) != ((me.Site.Addr + uint64(me.Site.Len) - 1) / LineSize)
	calls, err := t.calls(fn)
	if err != nil {
		return nil, err
	}
	firstStore, lastStore := -1, -1
	for i, e := range t.trace {
		if e.Kind == sched.EvStore {
			if firstStore < 0 {
				firstStore = i
			}
			lastStore = i
		}
	}
	var dis, en *call
	for i := range calls {
		c := &calls[i]
		if dis == nil && (firstStore < 0 || c.end < firstStore) {
			dis = c
		}
		if en == nil && lastStore >= 0 && c.start > lastStore {
			en = c
		}
	}
	if dis == nil {
		return nil, fmt.Errorf("cost: %s: %w in the disabled form (the patcher ran first)", fn, ErrNoCall)
	}
	if en == nil {
		return nil, fmt.Errorf("cost: %s: %w after the enable transition finished (within %d iterations)", fn, ErrNoCall, sc.Iterations)
	}
	me.Baseline = t.count(dis, false)
	me.Disabled = t.count(dis, true)
	me.Enabled = t.count(en, true)
	for _, c := range []*Count{&me.Baseline, &me.Disabled, &me.Enabled} {
		c.Strategy, c.Function = me.Strategy, fn
	}
	me.Baseline.Form, me.Disabled.Form, me.Enabled.Form = Baseline, Disabled, Enabled
	if !opts.NoCycles {
		cpus := opts.CPUs
		if len(cpus) == 0 {
			if cpus, err = CPUs(img.Arch.String()); err != nil {
				return nil, err
			}
		}
		me.CPUs = cpus
		predictAll(img.Arch.String(), cpus, []*Count{&me.Baseline, &me.Disabled, &me.Enabled})
	}
	return me, nil
}

// insn is one executed instruction of a call.
type insn struct {
	pc    uint64
	n     int
	text  string
	flow  isa.Flow
	next  uint64
	mem   int
	site  int  // the site whose pass it belongs to, or -1
	outer bool // in a site pass but outside every site's bytes (trampoline, hook)
}

// call is one call of the traced function: trace indices [start, end] and
// the instructions between the function's entry and its return.
type call struct {
	start, end int
	insns      []insn
}

type tracer struct {
	run   *explore.Run
	img   *kernel.Image
	trace []sched.Event
	syms  map[string]kernel.Symbol
}

func newTracer(run *explore.Run) *tracer {
	t := &tracer{run: run, img: run.Image, trace: run.Trace, syms: map[string]kernel.Symbol{}}
	for _, s := range t.img.Symbols {
		if _, ok := t.syms[s.Name]; !ok {
			t.syms[s.Name] = s
		}
	}
	return t
}

// calls finds the worker's calls of fn: from the instruction at fn's entry
// after a call to it, up to the instruction whose next pc is the call's
// return address.
func (t *tracer) calls(fn string) ([]call, error) {
	sym, ok := t.syms[fn]
	if !ok {
		return nil, fmt.Errorf("cost: no symbol %s in the text", fn)
	}
	var out []call
	for i := 0; i < len(t.trace); i++ {
		e := t.trace[i]
		if e.Kind != sched.EvExec || e.Flow != isa.FlowCall || e.Next != sym.Addr {
			continue
		}
		ret := e.PC + uint64(len(e.Bytes))
		c := call{start: i + 1, end: -1}
		for j := i + 1; j < len(t.trace); j++ {
			f := t.trace[j]
			if f.Task != e.Task {
				continue
			}
			in, ok := t.insnOf(j)
			if !ok {
				if f.Kind == sched.EvExit {
					break
				}
				continue
			}
			c.insns = append(c.insns, in)
			if f.Kind == sched.EvExec && f.Next == ret {
				c.end = j
				break
			}
		}
		if c.end < 0 {
			break // the call never returned (a fault, or the run ended)
		}
		t.markPasses(&c)
		out = append(out, c)
		i = c.end
	}
	if len(out) == 0 {
		why := "it did not return"
		if hs := t.run.Hazards; len(hs) > 0 {
			h := hs[0]
			why = fmt.Sprintf("%s at %s (pc %#x): %s", h.Kind, h.Where, h.PC, h.Detail)
		}
		return nil, fmt.Errorf("cost: %s: %w that returned: %s", fn, ErrNoCall, why)
	}
	return out, nil
}

// insnOf returns the instruction event j executed: an EvExec, or the
// tracer hook's word (EvTrace: the machine performs the service instead of
// the no-op word at the hook and moves to the next instruction).
func (t *tracer) insnOf(j int) (insn, bool) {
	e := t.trace[j]
	switch e.Kind {
	case sched.EvExec:
		return insn{pc: e.PC, n: len(e.Bytes), text: e.Text, flow: e.Flow, next: e.Next, mem: e.Loads + e.Stores, site: -1}, true
	case sched.EvTrace:
		next := uint64(0)
		for k := j + 1; k < len(t.trace); k++ {
			if f := t.trace[k]; f.Task == e.Task && f.Kind == sched.EvExec {
				next = f.PC
				break
			}
		}
		if next <= e.PC || next-e.PC > 16 {
			return insn{}, false
		}
		n := int(next - e.PC)
		off := e.PC - t.img.Base
		text := t.run.Text
		if off+uint64(n) > uint64(len(text)) {
			return insn{}, false
		}
		b := append([]byte(nil), text[off:off+uint64(n)]...)
		desc := t.run.Describe(e.PC, b)
		asm := "nop"
		if i := strings.IndexByte(desc, '('); i >= 0 && strings.HasSuffix(desc, ")") {
			asm = desc[i+1 : len(desc)-1]
		}
		return insn{pc: e.PC, n: n, text: asm, flow: isa.FlowNext, next: next, site: -1}, true
	}
	return insn{}, false
}

// markPasses marks the instructions of c that belong to a site pass.
func (t *tracer) markPasses(c *call) {
	cur := -1
	for i := range c.insns {
		in := &c.insns[i]
		if cur >= 0 {
			s := t.img.Sites[cur]
			f := t.syms[s.Func]
			inFunc := in.pc >= f.Addr && in.pc < f.Addr+f.Size
			inSite := in.pc >= s.Addr && in.pc < s.Addr+uint64(s.Len)
			if inFunc && !inSite {
				cur = -1
			}
		}
		if si := t.img.SiteAt(in.pc); si >= 0 && si != cur {
			cur = si
			in.site = si
			continue
		}
		if cur >= 0 {
			in.site = cur
			in.outer = t.img.SiteAt(in.pc) < 0
		}
	}
}

// count sums c's instructions; withSites false leaves out the site passes.
func (t *tracer) count(c *call, withSites bool) Count {
	var out Count
	lines := map[uint64]bool{}
	outer := map[uint64]bool{} // bytes run in a pass outside every site
	passed := map[int]bool{}
	prev := -1
	for _, in := range c.insns {
		if in.site >= 0 && !withSites {
			continue
		}
		out.Instructions++
		out.MemoryAccesses += in.mem
		switch {
		case in.flow == isa.FlowBranch || in.flow == isa.FlowCall || in.flow == isa.FlowReturn:
			out.TakenBranches++
		case in.next != in.pc+uint64(in.n):
			out.TakenBranches++
		}
		for l := in.pc / LineSize; l <= (in.pc+uint64(max(in.n, 1))-1)/LineSize; l++ {
			lines[l] = true
		}
		if in.site >= 0 {
			if in.site != prev {
				out.SitePasses++ // a pass starts at its site's first instruction
			}
			passed[in.site] = true
			if in.outer {
				for b := 0; b < in.n; b++ {
					outer[in.pc+uint64(b)] = true
				}
			}
		}
		prev = in.site
		out.Asm = append(out.Asm, MCAText(t.img.Arch, in.text))
	}
	for si := range passed {
		out.Bytes += t.img.Sites[si].Len
	}
	out.Bytes += len(outer)
	out.ICacheLines = len(lines)
	return out
}

// MCAText turns an instruction of arch as the simulator's disassemblers
// print it (golang.org/x/arch's GNU syntax) into what llvm-mca's
// assembler reads: the " <symbol+off>" annotation after a branch target
// is dropped, blanks are trimmed, on x86 the mnemonics x86asm spells in
// Intel's manual's way get their AT&T names (movsxd: movslq), and on
// riscv64 a conditional branch's absolute target becomes offset 0. It is
// the one place where trace text is fixed up for llvm-mca (Predict then
// rewrites calls, see there).
func MCAText(arch kernel.Arch, text string) string {
	if i := strings.Index(text, " <"); i >= 0 && strings.HasSuffix(text, ">") {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	op, rest, _ := strings.Cut(text, " ")
	switch arch {
	case kernel.X86:
		if att, ok := x86ATT[op]; ok {
			text = strings.TrimSpace(att + " " + rest)
		}
	case kernel.RISCV64:
		// The disassembler prints a branch's absolute target; the
		// assembler reads an offset (a 13-bit one). llvm-mca ignores
		// branch targets, so the offset becomes 0.
		if rvBranch[op] {
			if i := strings.LastIndexByte(text, ','); i >= 0 && strings.HasPrefix(strings.TrimSpace(text[i+1:]), "0x") {
				text = text[:i+1] + " 0"
			}
		}
	}
	return text
}

// rvBranch are the riscv64 conditional branches (and their aliases).
var rvBranch = map[string]bool{
	"beq": true, "bne": true, "blt": true, "bge": true, "bltu": true, "bgeu": true,
	"beqz": true, "bnez": true, "blez": true, "bgez": true, "bltz": true, "bgtz": true,
	"bgt": true, "ble": true, "bgtu": true, "bleu": true,
}

// x86ATT maps x86asm's GNU-syntax mnemonics that GNU as and LLVM do not
// accept to the AT&T ones they do.
var x86ATT = map[string]string{
	"movsxd": "movslq",
}

// mcaCache memoizes predictions by arch, CPU and sequence: the baseline
// and enabled sequences repeat across strategies.
var mcaCache sync.Map // key string -> mcaResult

type mcaResult struct {
	cycles float64
	err    string
}

func predictCached(arch, cpu string, asm []string) mcaResult {
	key := arch + "\x00" + cpu + "\x00" + strings.Join(asm, "\n")
	if r, ok := mcaCache.Load(key); ok {
		return r.(mcaResult)
	}
	c, err := Cycles(arch, cpu, asm)
	r := mcaResult{cycles: c}
	if err != nil {
		r = mcaResult{err: strings.Join(strings.Fields(err.Error()), " ")}
	}
	mcaCache.Store(key, r)
	return r
}

// predictAll fills in Cycles and CycleErrors of every count for every CPU,
// running llvm-mca on up to GOMAXPROCS sequences at once.
func predictAll(arch string, cpus []string, counts []*Count) {
	type job struct {
		c   *Count
		cpu string
	}
	var jobs []job
	for _, c := range counts {
		c.Cycles, c.CycleErrors = map[string]float64{}, map[string]string{}
		for _, cpu := range cpus {
			jobs = append(jobs, job{c, cpu})
		}
	}
	results := make([]mcaResult, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if len(j.c.Asm) == 0 {
				results[i] = mcaResult{err: "no instructions"}
				return
			}
			results[i] = predictCached(arch, j.cpu, j.c.Asm)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		if results[i].err != "" {
			j.c.CycleErrors[j.cpu] = results[i].err
		} else {
			j.c.Cycles[j.cpu] = results[i].cycles
		}
	}
}

// Strategies returns the built-in strategies of arch, in Builtins order.
func Strategies(arch kernel.Arch) []*patch.Strategy {
	var out []*patch.Strategy
	for _, s := range patch.Builtins() {
		if s.Arch == arch {
			out = append(out, s)
		}
	}
	return out
}

// SortedCPUs returns the keys of a cycles map, sorted.
func SortedCPUs(maps ...any) []string {
	set := map[string]bool{}
	for _, m := range maps {
		switch m := m.(type) {
		case map[string]float64:
			for k := range m {
				set[k] = true
			}
		case map[string]string:
			for k := range m {
				set[k] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
