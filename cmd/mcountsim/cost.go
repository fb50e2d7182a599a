package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcountsim/mcountsim/cost"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

const costUsage = `usage: mcountsim cost [--arch A] [--strategy S] [--json] [--svg FILE] [--cpus LIST]
       mcountsim cost --object FILE [--strategy S] [--json] [--svg FILE] [--cpus LIST]

What a call site costs, per call of one traced function, in three forms:
baseline (the function with the site's bytes absent), disabled (the
strategy's boot form) and enabled (after the enable transition: the call,
the trampoline and the tracer hook). Every count comes from executing the
text in the simulator (one CPU, one task, no preemption): bytes,
instructions, memory accesses (loads + stores), taken branches and the
64-byte I-cache lines the instructions touch. Cycles are llvm-mca's
prediction for the executed sequence on each CPU (default: the CPUs whose
LLVM scheduling model covers the site forms, see the cost package); a CPU
without a prediction shows why instead. The dormant overhead is disabled
minus baseline.

Without --object, every built-in strategy of --arch (default arm) is
measured on the built-in text's traced function f0. With --object, every
traced function of the ELF object (ARM A32 or x86-64 .o) is linked as the
workload's callee and called once with zero in every argument register; a
function that faults or does not return that way is skipped with the
reason. The table is sorted by dormant cost; totals add one call of every
measured function.

With --json: without --object, a list of objects with the keys arch,
strategy, function, form, bytes, instructions, memory_accesses,
taken_branches, icache_lines, site_passes, site_straddles_line, asm and
cycles (CPU to predicted cycles, or to the reason there is none); with
--object, one object with the keys file, arch, sites, site_bytes,
functions (each: function, sites, skipped, strategies: [{strategy, forms,
dormant}]) and totals.

--svg FILE writes a picture: the dormant cost of each strategy and, with
--object, the distribution over functions.

Exit status: 0 on success, 2 on bad input (one line on stderr).

Examples:
  mcountsim cost --arch arm
  mcountsim cost --arch x86 --strategy text-poke-bp --json
  mcountsim cost --object objfile/testdata/arm-marm-recordmcount.o --svg cost.svg

Flags:
`

// costRecord is one form of one call in --json output.
type costRecord struct {
	Arch           string         `json:"arch"`
	Strategy       string         `json:"strategy"`
	Function       string         `json:"function"`
	Form           string         `json:"form"`
	Bytes          int            `json:"bytes"`
	Instructions   int            `json:"instructions"`
	MemoryAccesses int            `json:"memory_accesses"`
	TakenBranches  int            `json:"taken_branches"`
	ICacheLines    int            `json:"icache_lines"`
	SitePasses     int            `json:"site_passes"`
	SiteStraddles  bool           `json:"site_straddles_line"`
	Cycles         map[string]any `json:"cycles"`
	Asm            []string       `json:"asm,omitempty"`
}

type costStrategyRecord struct {
	Strategy string       `json:"strategy"`
	Forms    []costRecord `json:"forms"`
	Dormant  costRecord   `json:"dormant"`
}

type costFunctionRecord struct {
	Function   string               `json:"function"`
	Sites      int                  `json:"sites"`
	Skipped    string               `json:"skipped,omitempty"`
	Strategies []costStrategyRecord `json:"strategies"`
}

type costTotalRecord struct {
	Strategy       string             `json:"strategy"`
	Functions      int                `json:"functions"`
	SiteBytes      int                `json:"site_bytes"`
	Instructions   int                `json:"instructions"`
	MemoryAccesses int                `json:"memory_accesses"`
	Cycles         map[string]float64 `json:"cycles"`
}

type costObjectRecord struct {
	File      string               `json:"file"`
	Arch      string               `json:"arch"`
	Sites     int                  `json:"sites"`
	SiteBytes int                  `json:"site_bytes"`
	Functions []costFunctionRecord `json:"functions"`
	Totals    []costTotalRecord    `json:"totals"`
}

// runCost implements `mcountsim cost` and returns the exit status.
func runCost(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcountsim cost: %s\n", strings.Join(strings.Fields(fmt.Sprintf(format, a...)), " "))
		return 2
	}
	fs := newFlagSet("cost")
	archFlag := fs.String("arch", "arm", "instruction set of the built-in text: arm, x86, ... (see mcountsim strategies)")
	strategy := fs.String("strategy", "", "measure only this built-in strategy (default: every one of the arch)")
	object := fs.String("object", "", "measure every traced function of this ELF `object`")
	jsonOut := fs.Bool("json", false, "write JSON")
	svg := fs.String("svg", "", "also write a picture of the costs to `file` (SVG)")
	cpus := fs.String("cpus", "", "comma-separated CPUs to predict cycles for (default: the arch's, see the cost package)")
	noCycles := fs.Bool("no-cycles", false, "do not run llvm-mca")
	set, status, ok := parseFlagsOnly(fs, args, stdout, costUsage, "", " (see mcountsim cost --help)", fail)
	if !ok {
		return status
	}
	opts := cost.MeasureOptions{NoCycles: *noCycles}
	if set["cpus"] {
		if *noCycles {
			return fail("--cpus and --no-cycles contradict each other")
		}
		for _, c := range strings.Split(*cpus, ",") {
			if c = strings.TrimSpace(c); c != "" {
				opts.CPUs = append(opts.CPUs, c)
			}
		}
		if len(opts.CPUs) == 0 {
			return fail("--cpus: no CPU named")
		}
	}
	if *object != "" {
		return costObject(*object, *archFlag, set["arch"], *strategy, *jsonOut, *svg, opts, stdout, stderr)
	}
	arch, err := kernel.ParseArch(*archFlag)
	if err != nil {
		return fail("--arch: %v", err)
	}
	strategies, err := costStrategies(arch, *strategy)
	if err != nil {
		return fail("%v", err)
	}
	var ms []*cost.Measurement
	for _, st := range strategies {
		m, err := cost.Measure(explore.Scenario{Arch: arch, Strategy: st}, opts)
		if err != nil {
			return fail("%v", err)
		}
		ms = append(ms, m)
	}
	if *jsonOut {
		var recs []costRecord
		for _, m := range ms {
			for _, c := range m.Counts() {
				recs = append(recs, costRecordOf(m, c, true))
			}
		}
		err = costJSON(stdout, recs)
	} else {
		err = costWriteText(stdout, ms)
	}
	if err != nil {
		return fail("%v", err)
	}
	if *svg != "" {
		if err := costSVGFile(*svg, func(w io.Writer) error { return cost.PlotStrategies(w, ms) }); err != nil {
			return fail("--svg: %v", err)
		}
	}
	return 0
}

// costStrategies returns the built-in strategies of arch, or the one named.
func costStrategies(arch kernel.Arch, name string) ([]*patch.Strategy, error) {
	all := cost.Strategies(arch)
	if len(all) == 0 {
		return nil, fmt.Errorf("no built-in strategy for %v", arch)
	}
	if name == "" {
		return all, nil
	}
	var names []string
	for _, s := range all {
		if s.Name == name {
			return []*patch.Strategy{s}, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("--strategy: unknown %v strategy %q (want one of: %s)", arch, name, strings.Join(names, ", "))
}

func costObject(path, archFlag string, archSet bool, strategy string, jsonOut bool, svg string, opts cost.MeasureOptions, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcountsim cost: %s\n", strings.Join(strings.Fields(fmt.Sprintf(format, a...)), " "))
		return 2
	}
	raw, err := readInput(path, "--object", maxObjectSize)
	if err != nil {
		return fail("%v", err)
	}
	var strategies []*patch.Strategy
	if strategy != "" || archSet {
		arch, err := kernel.ParseArch(archFlag)
		if err != nil {
			return fail("--arch: %v", err)
		}
		if strategies, err = costStrategies(arch, strategy); err != nil {
			return fail("%v", err)
		}
	}
	o, err := cost.MeasureObject(path, raw, strategies, opts)
	if err != nil {
		return fail("--object %s: %v", path, strings.TrimPrefix(err.Error(), path+": "))
	}
	if jsonOut {
		err = costJSON(stdout, costObjectRecordOf(o))
	} else {
		err = costWriteObject(stdout, o)
	}
	if err != nil {
		return fail("%v", err)
	}
	if svg != "" {
		if err := costSVGFile(svg, func(w io.Writer) error { return cost.PlotObject(w, o) }); err != nil {
			return fail("--svg: %v", err)
		}
	}
	return 0
}

func costRecordOf(m *cost.Measurement, c cost.Count, asm bool) costRecord {
	r := costRecord{Arch: m.Arch.String(), Strategy: c.Strategy, Function: c.Function, Form: c.Form,
		Bytes: c.Bytes, Instructions: c.Instructions, MemoryAccesses: c.MemoryAccesses,
		TakenBranches: c.TakenBranches, ICacheLines: c.ICacheLines, SitePasses: c.SitePasses,
		SiteStraddles: m.Straddles, Cycles: map[string]any{}}
	for cpu, v := range c.Cycles {
		r.Cycles[cpu] = v
	}
	for cpu, e := range c.CycleErrors {
		r.Cycles[cpu] = e
	}
	if asm {
		r.Asm = c.Asm
	}
	return r
}

func costObjectRecordOf(o *cost.ObjectCost) costObjectRecord {
	rec := costObjectRecord{File: o.File, Arch: o.Arch.String(), Sites: o.Sites, SiteBytes: o.SiteBytes,
		Functions: []costFunctionRecord{}, Totals: []costTotalRecord{}}
	for _, f := range o.Functions {
		fr := costFunctionRecord{Function: f.Function, Sites: f.Sites, Skipped: f.Skipped, Strategies: []costStrategyRecord{}}
		for _, m := range f.Measurements {
			sr := costStrategyRecord{Strategy: m.Strategy}
			for _, c := range m.Counts() {
				sr.Forms = append(sr.Forms, costRecordOf(m, c, false))
			}
			sr.Dormant = costRecordOf(m, m.Dormant(), false)
			fr.Strategies = append(fr.Strategies, sr)
		}
		rec.Functions = append(rec.Functions, fr)
	}
	for _, t := range o.Totals() {
		rec.Totals = append(rec.Totals, costTotalRecord{Strategy: t.Strategy, Functions: t.Functions, SiteBytes: o.SiteBytes,
			Instructions: t.Instructions, MemoryAccesses: t.Memory, Cycles: t.Cycles})
	}
	return rec
}

func costJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// costCPUs returns the CPUs of the measurements, in the order they were
// asked for (the arch's defaults, or --cpus).
func costCPUs(ms []*cost.Measurement) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		for _, cpu := range m.CPUs {
			if !seen[cpu] {
				seen[cpu] = true
				out = append(out, cpu)
			}
		}
	}
	return out
}

// costNotes collects the reasons a CPU has no prediction, numbered once.
type costNotes struct {
	list []string
	num  map[string]int
}

func (n *costNotes) cell(c cost.Count, cpu string, signed bool) string {
	if v, ok := c.Cycles[cpu]; ok {
		if signed {
			return fmt.Sprintf("%+.2f", v)
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	e, ok := c.CycleErrors[cpu]
	if !ok {
		return "-"
	}
	if n.num == nil {
		n.num = map[string]int{}
	}
	if _, ok := n.num[e]; !ok {
		n.list = append(n.list, e)
		n.num[e] = len(n.list)
	}
	return fmt.Sprintf("n/a[%d]", n.num[e])
}

func (n *costNotes) write(w io.Writer) {
	for i, e := range n.list {
		fmt.Fprintf(w, "[%d] %s\n", i+1, e)
	}
}

// costTable starts a table on w with the header head and a column per
// CPU, named prefix+cpu.
func costTable(w io.Writer, head, prefix string, cpus []string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, cpu := range cpus {
		head += "\t" + prefix + cpu
	}
	fmt.Fprintln(tw, head)
	return tw
}

func costWriteText(w io.Writer, ms []*cost.Measurement) error {
	cpus := costCPUs(ms)
	var notes costNotes
	tw := costTable(w, "STRATEGY\tFORM\tBYTES\tINSNS\tMEM\tTAKEN\tLINES", "", cpus)
	for _, m := range ms {
		rows := append(m.Counts(), m.Dormant())
		for i, c := range rows {
			name := m.Strategy
			if i > 0 {
				name = ""
			}
			signed := c.Form == "dormant"
			num := func(v int) string {
				if signed {
					return fmt.Sprintf("%+d", v)
				}
				return strconv.Itoa(v)
			}
			line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", name, c.Form, num(c.Bytes), num(c.Instructions),
				num(c.MemoryAccesses), num(c.TakenBranches), num(c.ICacheLines))
			for _, cpu := range cpus {
				line += "\t" + notes.cell(c, cpu, signed)
			}
			fmt.Fprintln(tw, line)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(ms) > 0 {
		m := ms[0]
		straddle := "does not cross"
		if m.Straddles {
			straddle = "crosses"
		}
		fmt.Fprintf(w, "per call of %s; its site (%d bytes at %#x) %s a %d-byte line; dormant = disabled - baseline; cycles: llvm-mca\n",
			m.Function, m.Site.Len, m.Site.Addr, straddle, cost.LineSize)
	}
	notes.write(w)
	return nil
}

func costWriteObject(w io.Writer, o *cost.ObjectCost) error {
	var cpus []string
	for _, f := range o.Functions {
		for _, m := range f.Measurements {
			cpus = costCPUs([]*cost.Measurement{m})
			break
		}
		if cpus != nil {
			break
		}
	}
	sortCPU := ""
	if len(cpus) > 0 {
		sortCPU = cpus[0]
	}
	var notes costNotes
	tw := costTable(w, "FUNCTION\tSTRATEGY\tSITES\tBASE INSNS\t+INSNS\t+MEM\t+TAKEN", "+", cpus)
	for _, r := range o.SortedRows(sortCPU) {
		f := o.Functions[r[0]]
		m := f.Measurements[r[1]]
		d := m.Dormant()
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%+d\t%+d\t%+d", f.Function, m.Strategy, d.SitePasses, m.Baseline.Instructions,
			d.Instructions, d.MemoryAccesses, d.TakenBranches)
		for _, cpu := range cpus {
			line += "\t" + notes.cell(d, cpu, true)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = costTable(w, "TOTAL\tFUNCTIONS\tSITE BYTES\t+INSNS\t+MEM", "+", cpus)
	for _, t := range o.Totals() {
		line := fmt.Sprintf("%s\t%d\t%d\t%+d\t%+d", t.Strategy, t.Functions, o.SiteBytes, t.Instructions, t.Memory)
		for _, cpu := range cpus {
			if v, ok := t.Cycles[cpu]; ok {
				line += fmt.Sprintf("\t%+.2f", v)
			} else {
				line += "\t-"
			}
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	measured, skipped := 0, 0
	for _, f := range o.Functions {
		if f.Skipped != "" {
			skipped++
			fmt.Fprintf(w, "skipped %s: %s\n", f.Function, f.Skipped)
		} else {
			measured++
		}
	}
	fmt.Fprintf(w, "%s: %d sites in %d functions; %d measured, %d skipped; each called once with zero arguments; + is disabled - baseline per call\n",
		o.File, o.Sites, len(o.Functions), measured, skipped)
	notes.write(w)
	return nil
}

// costSVGFile writes a picture to path through a temporary file.
func costSVGFile(path string, draw func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := draw(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
