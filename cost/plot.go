package cost

import (
	"errors"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Picture sizes.
const (
	plotWidth       = 8 * vg.Inch
	plotPanelHeight = 3.5 * vg.Inch
)

// series is one set of bars: a value per strategy.
type series struct {
	name   string
	values []float64
}

// PlotStrategies writes an SVG picture of the dormant cost (disabled minus
// baseline) per call of each measurement's strategy: one panel with the
// instructions, memory accesses and taken branches, one with llvm-mca's
// cycles for each CPU predicted for every strategy.
func PlotStrategies(w io.Writer, ms []*Measurement) error {
	if len(ms) == 0 {
		return errors.New("nothing to plot")
	}
	names := make([]string, len(ms))
	var ins, mem, br series
	ins.name, mem.name, br.name = "instructions", "memory accesses", "taken branches"
	ds := make([]Count, len(ms))
	for i, m := range ms {
		names[i] = m.Strategy
		ds[i] = m.Dormant()
		ins.values = append(ins.values, float64(ds[i].Instructions))
		mem.values = append(mem.values, float64(ds[i].MemoryAccesses))
		br.values = append(br.values, float64(ds[i].TakenBranches))
	}
	top, err := barPlot(fmt.Sprintf("Dormant cost per call of %s (%v): counts", ms[0].Function, ms[0].Arch), "per call", names, []series{ins, mem, br})
	if err != nil {
		return err
	}
	var cyc []series
	for _, cpu := range commonCPUs(ds) {
		s := series{name: cpu}
		for _, d := range ds {
			s.values = append(s.values, d.Cycles[cpu])
		}
		cyc = append(cyc, s)
	}
	panels := []*plot.Plot{top}
	if len(cyc) > 0 {
		bottom, err := barPlot("Dormant cost per call: llvm-mca cycles", "cycles", names, cyc)
		if err != nil {
			return err
		}
		panels = append(panels, bottom)
	}
	return writePanels(w, panels)
}

// PlotObject writes an SVG picture of an object's dormant cost: the total
// per strategy (one call of every measured function) and, per strategy,
// the distribution over functions of the dormant cost per call, as box
// plots. Cycles are those of the first CPU predicted for every function;
// without any, instructions.
func PlotObject(w io.Writer, o *ObjectCost) error {
	var ds [][]Count // per strategy, per measured function
	for si := range o.Strategies {
		var col []Count
		for _, f := range o.Functions {
			if f.Skipped == "" {
				col = append(col, f.Measurements[si].Dormant())
			}
		}
		ds = append(ds, col)
	}
	if len(o.Strategies) == 0 || len(ds[0]) == 0 {
		return errors.New("no measured function to plot")
	}
	var all []Count
	for _, col := range ds {
		all = append(all, col...)
	}
	cpus := commonCPUs(all)
	metric, unit := "instructions", "instructions"
	value := func(d Count) float64 { return float64(d.Instructions) }
	if len(cpus) > 0 {
		cpu := cpus[0]
		metric, unit = cpu+" cycles", "cycles"
		value = func(d Count) float64 { return d.Cycles[cpu] }
	}
	totals := []series{{name: "instructions"}}
	for _, cpu := range cpus {
		totals = append(totals, series{name: cpu + " cycles"})
	}
	for _, col := range ds {
		var ins float64
		cyc := make([]float64, len(cpus))
		for _, d := range col {
			ins += float64(d.Instructions)
			for i, cpu := range cpus {
				cyc[i] += d.Cycles[cpu]
			}
		}
		totals[0].values = append(totals[0].values, ins)
		for i := range cpus {
			totals[i+1].values = append(totals[i+1].values, cyc[i])
		}
	}
	top, err := barPlot(fmt.Sprintf("Dormant cost of %s (%v): %d functions called once", o.File, o.Arch, len(ds[0])), "total", o.Strategies, totals)
	if err != nil {
		return err
	}
	dist := plot.New()
	dist.Title.Text = "Dormant cost per call over functions: " + metric
	dist.Y.Label.Text = unit
	for si, col := range ds {
		vs := make(plotter.Values, len(col))
		for i, d := range col {
			vs[i] = value(d)
		}
		b, err := plotter.NewBoxPlot(vg.Points(20), float64(si), vs)
		if err != nil {
			return fmt.Errorf("box plot of %s: %v", o.Strategies[si], err)
		}
		b.FillColor = plotutil.Color(si)
		dist.Add(b)
	}
	dist.NominalX(o.Strategies...)
	return writePanels(w, []*plot.Plot{top, dist})
}

// commonCPUs returns the CPUs that have a prediction in every count, in
// sorted order.
func commonCPUs(ds []Count) []string {
	var out []string
	for _, cpu := range SortedCPUs(ds[0].Cycles) {
		ok := true
		for _, d := range ds {
			if _, has := d.Cycles[cpu]; !has {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, cpu)
		}
	}
	return out
}

// barPlot draws grouped bars: one group per name, one bar per series.
func barPlot(title, ylabel string, names []string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	width := vg.Points(float64(40 / max(1, len(ss))))
	top := 0.0
	for _, s := range ss {
		for _, v := range s.values {
			top = max(top, v)
		}
	}
	if top > 0 {
		p.Y.Max = top * 1.35 // room for the legend above the bars
	}
	for i, s := range ss {
		b, err := plotter.NewBarChart(plotter.Values(s.values), width)
		if err != nil {
			return nil, fmt.Errorf("bars of %s: %v", s.name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Color = color.Black
		b.LineStyle.Width = vg.Points(0.5)
		b.Offset = width * vg.Length(float64(i)-float64(len(ss)-1)/2)
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.4
	p.X.Tick.Label.XAlign = draw.XRight
	return p, nil
}

// writePanels stacks the plots vertically into one SVG.
func writePanels(w io.Writer, panels []*plot.Plot) error {
	c := vgsvg.New(plotWidth, plotPanelHeight*vg.Length(len(panels)))
	dc := draw.New(c)
	t := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	grid := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, t, dc)
	for i, p := range panels {
		p.Draw(canvases[i][0])
	}
	_, err := c.WriteTo(w)
	return err
}
