package cost

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotutil"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/objfile"
	"github.com/mcountsim/mcountsim/patch"
)

// counts is the integer part of a Count, for table tests.
type counts struct{ bytes, insns, mem, taken, lines, passes int }

func countsOf(c Count) counts {
	return counts{c.Bytes, c.Instructions, c.MemoryAccesses, c.TakenBranches, c.ICacheLines, c.SitePasses}
}

// TestMeasureBuiltins: every built-in strategy of ARM and x86, counted by
// executing the built-in text's f0. The baseline is the same function for
// every strategy; the disabled forms differ as their instructions do:
// mov r0,r0 twice (nop-nop, two-step-*), b .+8 (jmp-over: one taken
// branch), push {lr}; pop {lr} (pop-lr: a store and a load), push {lr};
// add sp,sp,#4 (add-sp: a store); the x86 nop5 is one instruction.
func TestMeasureBuiltins(t *testing.T) {
	armBase := counts{0, 4, 4, 1, 1, 0}
	armEnabled := counts{44, 15, 17, 5, 2, 1}
	x86Base := counts{0, 6, 3, 1, 1, 0}
	x86Enabled := counts{31, 18, 13, 5, 2, 1}
	want := map[string][3]counts{
		"arm/nop-nop":            {armBase, {8, 6, 4, 1, 1, 1}, armEnabled},
		"arm/jmp-over":           {armBase, {8, 5, 4, 2, 1, 1}, armEnabled},
		"arm/pop-lr":             {armBase, {8, 6, 6, 1, 1, 1}, armEnabled},
		"arm/add-sp":             {armBase, {8, 6, 5, 1, 1, 1}, armEnabled},
		"arm/two-step-sched":     {armBase, {8, 6, 4, 1, 1, 1}, armEnabled},
		"arm/two-step-rcu-tasks": {armBase, {8, 6, 4, 1, 1, 1}, armEnabled},
		"x86/plain-write":        {x86Base, {5, 7, 3, 1, 1, 1}, x86Enabled},
		"x86/stop-machine":       {x86Base, {5, 7, 3, 1, 1, 1}, x86Enabled},
		"x86/text-poke-bp":       {x86Base, {5, 7, 3, 1, 1, 1}, x86Enabled},
	}
	seen := 0
	for _, arch := range []kernel.Arch{kernel.ARM, kernel.X86} {
		for _, st := range Strategies(arch) {
			key := arch.String() + "/" + st.Name
			t.Run(key, func(t *testing.T) {
				m, err := Measure(explore.Scenario{Strategy: st}, MeasureOptions{NoCycles: true})
				require.NoError(t, err)
				w, ok := want[key]
				require.True(t, ok, "a built-in without expected counts: add it to the table")
				seen++
				assert.Equal(t, "f0", m.Function)
				assert.Equal(t, w[0], countsOf(m.Baseline), "baseline")
				assert.Equal(t, w[1], countsOf(m.Disabled), "disabled")
				assert.Equal(t, w[2], countsOf(m.Enabled), "enabled")
				assert.False(t, m.Straddles)
				assert.Equal(t, []string{Baseline, Disabled, Enabled}, []string{m.Baseline.Form, m.Disabled.Form, m.Enabled.Form})
				assert.Equal(t, len(m.Baseline.Asm), m.Baseline.Instructions)
				assert.Empty(t, m.Disabled.Cycles, "NoCycles runs no llvm-mca")
			})
		}
	}
	assert.Equal(t, len(want), seen)
}

// TestMeasureDisabledFormChanges: jmp-over with its disabled form replaced
// by two NOPs costs one more instruction and one taken branch less, and
// with the site's second word a pop {lr} two memory accesses more; the
// counts follow the bytes, not the strategy's name.
func TestMeasureDisabledFormChanges(t *testing.T) {
	jmp, ok := patch.Lookup(kernel.ARM, "jmp-over")
	require.True(t, ok)
	variant := func(form patch.Form) *patch.Strategy {
		s, _ := patch.Lookup(kernel.ARM, "jmp-over") // same name on purpose
		s.Forms[1] = form
		s.Boot = []patch.Ref{{Form: form.Name}}
		s.Enable = []patch.Step{{Kind: patch.StopMachine, Writes: []patch.Ref{{Form: "enabled"}}}}
		s.Disable = []patch.Step{{Kind: patch.StopMachine, Writes: []patch.Ref{{Form: form.Name}}}}
		s.Disabled = form.Name
		return s
	}
	cases := []struct {
		name string
		st   *patch.Strategy
		want counts
	}{
		{"b .+8", jmp, counts{8, 5, 4, 2, 1, 1}},
		{"two nops", variant(patch.Form{Name: "nops", Pieces: []patch.Piece{{Off: 0, Insn: "mov r0, r0"}, {Off: 4, Insn: "mov r0, r0"}}}), counts{8, 6, 4, 1, 1, 1}},
		{"push; pop", variant(patch.Form{Name: "pop", Pieces: []patch.Piece{{Off: 4, Insn: "pop {lr}"}}}), counts{8, 6, 6, 1, 1, 1}},
		{"three nops' worth: b .+4; nop", variant(patch.Form{Name: "b4", Pieces: []patch.Piece{{Off: 0, Insn: "b .+4"}, {Off: 4, Insn: "mov r0, r0"}}}), counts{8, 6, 4, 2, 1, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Measure(explore.Scenario{Strategy: tc.st}, MeasureOptions{NoCycles: true})
			require.NoError(t, err)
			assert.Equal(t, "jmp-over", m.Strategy)
			assert.Equal(t, tc.want, countsOf(m.Disabled))
			assert.Equal(t, counts{0, 4, 4, 1, 1, 0}, countsOf(m.Baseline))
		})
	}
}

// TestMeasureCycles: the llvm-mca figures of the disabled and baseline
// sequences, on the default CPUs and on cortex-a8 (no model: an error
// string, never a number). Figures are LLVM 14.0.6's.
func TestMeasureCycles(t *testing.T) {
	llvm14 := needMCA(t)
	st, _ := patch.Lookup(kernel.ARM, "pop-lr")
	m, err := Measure(explore.Scenario{Strategy: st}, MeasureOptions{CPUs: []string{"cortex-a57", "cortex-r52", "cortex-a8"}})
	require.NoError(t, err)
	// pop {lr} assembles to e8bd4000, which disassembles as ldm sp!, {lr}.
	assert.Equal(t, []string{"push {r4, lr}", "push {lr}", "ldm sp!, {lr}", "mov r4, r0", "add r0, r4, #1", "pop {r4, pc}"}, m.Disabled.Asm)
	for _, c := range m.Counts() {
		assert.Contains(t, c.CycleErrors["cortex-a8"], "cortex-a8 has no scheduling model", c.Form)
		assert.NotContains(t, c.Cycles, "cortex-a8")
	}
	d := m.Dormant()
	require.Contains(t, d.Cycles, "cortex-a57")
	require.Contains(t, d.Cycles, "cortex-r52")
	assert.Greater(t, d.Cycles["cortex-r52"], 0.0)
	// The enabled sequence holds the tracer hook's nop (e320f000), which
	// cortex-r52's LLVM 14 model cannot schedule: said, not guessed.
	assert.Contains(t, m.Enabled.CycleErrors["cortex-r52"], `"nop": the CPU's scheduling model cannot schedule it`)
	if llvm14 {
		assert.InDelta(t, 5.05, m.Disabled.Cycles["cortex-a57"], 1e-9)
		assert.InDelta(t, 3.05, m.Baseline.Cycles["cortex-a57"], 1e-9)
		assert.InDelta(t, 21.0, d.Cycles["cortex-r52"], 1e-9)
		assert.InDelta(t, 12.04, m.Enabled.Cycles["cortex-a57"], 1e-9)
	}

	// Lei Wen's order (seed 000): jmp-over (the mcount fix) is cheaper than
	// pop-lr (what 3.0 booted with) on both models.
	jmp, _ := patch.Lookup(kernel.ARM, "jmp-over")
	mj, err := Measure(explore.Scenario{Strategy: jmp}, MeasureOptions{})
	require.NoError(t, err)
	for _, cpu := range []string{"cortex-a57", "cortex-r52"} {
		assert.Less(t, mj.Dormant().Cycles[cpu], d.Cycles[cpu], cpu)
	}

	x, _ := patch.Lookup(kernel.X86, "text-poke-bp")
	mx, err := Measure(explore.Scenario{Strategy: x}, MeasureOptions{})
	require.NoError(t, err)
	for _, cpu := range []string{"skylake", "znver3"} {
		for _, c := range mx.Counts() {
			assert.Contains(t, c.Cycles, cpu, c.Form)
		}
		assert.Greater(t, mx.Enabled.Cycles[cpu], mx.Disabled.Cycles[cpu])
	}
}

func TestMCAText(t *testing.T) {
	cases := []struct {
		arch       kernel.Arch
		text, want string
	}{
		{kernel.ARM, "bl 0x8038 <__gnu_mcount_nc>", "bl 0x8038"},
		{kernel.ARM, "bne 0x8008 <worker+0x8>", "bne 0x8008"},
		{kernel.ARM, "push {r4, lr}", "push {r4, lr}"},
		{kernel.X86, "callq 0x401035 <ftrace_caller>", "callq 0x401035"},
		{kernel.X86, "movsxd %edi,%rax", "movslq %edi,%rax"},
		{kernel.X86, "nopl (%rax,%rax) ", "nopl (%rax,%rax)"},
		{kernel.ARM, "movsxd r0", "movsxd r0"}, // only x86 mnemonics are renamed
		{kernel.RISCV64, "bnez t1,0x201180", "bnez t1, 0"},
		{kernel.RISCV64, "beq a0,a1,0x10 <f0+0x4>", "beq a0,a1, 0"},
		{kernel.RISCV64, "addi a0,a0,0x10", "addi a0,a0,0x10"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, MCAText(tc.arch, tc.text), tc.text)
	}
}

const linuxRange = "testdata/linux-6.1-arm-range.o"

// TestMeasureObjectLinux: kernel/range.o of Linux 6.1, built by Kbuild for
// ARMv5 with the function tracer (build-linux.sh). Its 6 sites are the
// ones objfile (mcountsim sites) finds; cmp_range dereferences its
// arguments and is skipped with the fault; the other five run with zero
// arguments. It finishes well under 10 s.
func TestMeasureObjectLinux(t *testing.T) {
	raw, err := os.ReadFile(linuxRange)
	require.NoError(t, err)
	f, err := objfile.NewFile(bytes.NewReader(raw), linuxRange)
	require.NoError(t, err)
	sites, err := f.Sites()
	require.NoError(t, err)
	require.Len(t, sites, 6)

	start := time.Now()
	o, err := MeasureObject(linuxRange, raw, nil, MeasureOptions{NoCycles: testing.Short()})
	require.NoError(t, err)
	elapsed := time.Since(start)
	t.Logf("%d sites, %d functions in %v", o.Sites, len(o.Functions), elapsed)
	assert.Less(t, elapsed, 10*time.Second)
	assert.Equal(t, len(sites), o.Sites)
	assert.Equal(t, 48, o.SiteBytes)
	assert.Equal(t, kernel.ARM, o.Arch)
	var names []string
	for _, s := range Strategies(kernel.ARM) {
		names = append(names, s.Name)
	}
	assert.Equal(t, names, o.Strategies)

	byName := map[string]FunctionCost{}
	for _, fc := range o.Functions {
		byName[fc.Function] = fc
	}
	assert.Len(t, byName, 6)
	assert.Contains(t, byName["cmp_range"].Skipped, "memory fault")
	assert.Contains(t, byName["cmp_range"].Skipped, "called with zero arguments")
	for _, fn := range []string{"add_range", "add_range_with_merge", "subtract_range", "clean_sort_range", "sort_range"} {
		fc := byName[fn]
		require.Empty(t, fc.Skipped, fn)
		require.Len(t, fc.Measurements, len(names), fn)
		for i, m := range fc.Measurements {
			d := m.Dormant()
			assert.Equal(t, 8, d.Bytes, "%s %s", fn, m.Strategy)
			assert.Equal(t, 1, d.SitePasses, "%s %s", fn, m.Strategy)
			wantInsns := 2
			if names[i] == "jmp-over" {
				wantInsns = 1
			}
			assert.Equal(t, wantInsns, d.Instructions, "%s %s", fn, m.Strategy)
		}
	}
	tot := o.Totals()
	require.Len(t, tot, len(names))
	for i, tt := range tot {
		assert.Equal(t, 5, tt.Functions)
		switch names[i] {
		case "jmp-over":
			assert.Equal(t, 5, tt.Instructions)
			assert.Equal(t, 0, tt.Memory)
		case "pop-lr":
			assert.Equal(t, 10, tt.Instructions)
			assert.Equal(t, 10, tt.Memory)
		case "add-sp":
			assert.Equal(t, 5, tt.Memory)
		}
	}
	rows := o.SortedRows("")
	assert.Len(t, rows, 5*len(names))
	first := o.Functions[rows[0][0]].Measurements[rows[0][1]].Dormant()
	last := o.Functions[rows[len(rows)-1][0]].Measurements[rows[len(rows)-1][1]].Dormant()
	assert.GreaterOrEqual(t, first.Instructions, last.Instructions)
}

func TestMeasureObjectBadInput(t *testing.T) {
	_, err := MeasureObject("junk.o", []byte("not an ELF file"), nil, MeasureOptions{})
	require.Error(t, err)
	raw, err := os.ReadFile("../objfile/testdata/arm64-pg.o")
	require.NoError(t, err)
	_, err = MeasureObject("arm64-pg.o", raw, nil, MeasureOptions{})
	require.ErrorIs(t, err, kernel.ErrUnsupportedObject)
	raw, err = os.ReadFile(linuxRange)
	require.NoError(t, err)
	x, _ := patch.Lookup(kernel.X86, "stop-machine")
	_, err = MeasureObject(linuxRange, raw, []*patch.Strategy{x}, MeasureOptions{})
	require.EqualError(t, err, "strategy stop-machine is for x86, but the object is arm")
}

// svgDoc is what the SVG tests read: every text and every filled path.
type svgDoc struct {
	texts []string
	fills map[string]int // fill colour -> paths
}

func parseSVG(t *testing.T, r io.Reader) svgDoc {
	t.Helper()
	doc := svgDoc{fills: map[string]int{}}
	dec := xml.NewDecoder(r)
	sawSVG := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "svg":
			sawSVG = true
		case "text":
			var s string
			require.NoError(t, dec.DecodeElement(&s, &se))
			doc.texts = append(doc.texts, strings.TrimSpace(s))
		case "path":
			for _, a := range se.Attr {
				if a.Name.Local != "style" {
					continue
				}
				for _, part := range strings.Split(a.Value, ";") {
					if fill, ok := strings.CutPrefix(part, "fill:"); ok && fill != "none" {
						doc.fills[strings.ToUpper(fill)]++
					}
				}
			}
		}
	}
	require.True(t, sawSVG, "an <svg> element")
	return doc
}

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return strings.ToUpper("#" + hex2(r>>8) + hex2(g>>8) + hex2(b>>8))
}

func hex2(v uint32) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>4&15], digits[v&15]})
}

// TestPlotStrategiesSVG renders the ARM strategies and reads the SVG back:
// every strategy's name is a label, and each series (instructions, memory
// accesses, taken branches) has one bar per strategy plus its legend swatch.
func TestPlotStrategiesSVG(t *testing.T) {
	var ms []*Measurement
	for _, st := range Strategies(kernel.ARM) {
		m, err := Measure(explore.Scenario{Strategy: st}, MeasureOptions{NoCycles: true})
		require.NoError(t, err)
		ms = append(ms, m)
	}
	var buf bytes.Buffer
	require.NoError(t, PlotStrategies(&buf, ms))
	doc := parseSVG(t, &buf)
	for _, m := range ms {
		assert.Contains(t, doc.texts, m.Strategy)
	}
	for _, s := range []string{"instructions", "memory accesses", "taken branches"} {
		assert.Contains(t, doc.texts, s)
	}
	for i := 0; i < 3; i++ {
		assert.Equal(t, len(ms)+1, doc.fills[hexColor(plotutil.Color(i))], "series %d: a bar per strategy and a legend swatch", i)
	}
	require.Error(t, PlotStrategies(io.Discard, nil))
}

// TestPlotObjectSVG: the object picture names every strategy and draws
// one bar per strategy for the instruction totals and one box per
// strategy for the distribution over functions.
func TestPlotObjectSVG(t *testing.T) {
	raw, err := os.ReadFile(linuxRange)
	require.NoError(t, err)
	o, err := MeasureObject(linuxRange, raw, nil, MeasureOptions{NoCycles: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, PlotObject(&buf, o))
	doc := parseSVG(t, &buf)
	for _, s := range o.Strategies {
		assert.Contains(t, doc.texts, s)
	}
	assert.Contains(t, doc.texts, "Dormant cost per call over functions: instructions")
	// Colour 0: the instruction totals (a bar per strategy, a swatch) and
	// the first strategy's box.
	assert.Equal(t, len(o.Strategies)+2, doc.fills[hexColor(plotutil.Color(0))])
	for i := 1; i < len(o.Strategies); i++ {
		assert.Equal(t, 1, doc.fills[hexColor(plotutil.Color(i))], "strategy %d's box", i)
	}
}

// TestMeasureEveryArch: every arch with built-in strategies (riscv64 and
// arm64 included, as they land) measures in all three forms: the disabled
// site costs at least one instruction over the baseline and the enabled
// one more than the disabled.
func TestMeasureEveryArch(t *testing.T) {
	n := 0
	for _, arch := range []kernel.Arch{kernel.ARM, kernel.X86, kernel.RISCV64, kernel.ARM64} {
		for _, st := range Strategies(arch) {
			n++
			m, err := Measure(explore.Scenario{Strategy: st}, MeasureOptions{NoCycles: true})
			require.NoError(t, err, "%v %s", arch, st.Name)
			d := m.Dormant()
			assert.GreaterOrEqual(t, d.Instructions, 1, "%v %s", arch, st.Name)
			assert.Greater(t, m.Enabled.Instructions, m.Disabled.Instructions, "%v %s", arch, st.Name)
			// At least the site's bytes: more when the "disabled" form
			// itself calls out (rv-pfe8-retarget's two states are both
			// calls, to ftrace_caller and ftrace_regs_caller).
			assert.GreaterOrEqual(t, d.Bytes, m.Site.Len, "%v %s", arch, st.Name)
		}
	}
	assert.GreaterOrEqual(t, n, 9)
}
