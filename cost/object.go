package cost

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/objfile"
	"github.com/mcountsim/mcountsim/patch"
)

// ObjectStackWords is each task's stack when an object's function runs:
// the most package sched allows (16 KiB), since real frames (a buffer on
// the stack, nested calls) need more than the built-in text's 64 words.
const ObjectStackWords = 4096

// ObjectCost is the cost of the traced functions of one ELF object.
type ObjectCost struct {
	File string
	Arch kernel.Arch
	// Sites counts the object's call sites as objfile finds them (what
	// `mcountsim sites` prints), SiteBytes their bytes in the text.
	Sites     int
	SiteBytes int
	Functions []FunctionCost
	// Strategies are the names measured, in order.
	Strategies []string
}

// FunctionCost is one traced function of an object.
type FunctionCost struct {
	Function string
	Sites    int // the function's own call sites
	// Skipped, when not empty, says why the function was not measured
	// (it cannot be linked, or faults or does not return when called
	// with zero arguments); Measurements is then empty.
	Skipped      string
	Measurements []*Measurement // one per strategy, in ObjectCost.Strategies order
}

// Total is the dormant cost of one strategy over an object: the sum of
// the dormant per-call costs of its measured functions, each called once
// (a traced function that calls another counts that call's site in its
// own row and again in the callee's).
type Total struct {
	Strategy     string
	Functions    int // functions measured
	Instructions int
	Memory       int
	Cycles       map[string]float64 // CPUs predicted for every measured function
}

// Totals returns the dormant totals of every strategy.
func (o *ObjectCost) Totals() []Total {
	var out []Total
	for si, name := range o.Strategies {
		t := Total{Strategy: name, Cycles: map[string]float64{}}
		predicted := map[string]int{}
		for _, f := range o.Functions {
			if f.Skipped != "" {
				continue
			}
			d := f.Measurements[si].Dormant()
			t.Functions++
			t.Instructions += d.Instructions
			t.Memory += d.MemoryAccesses
			for cpu, c := range d.Cycles {
				t.Cycles[cpu] += c
				predicted[cpu]++
			}
		}
		for cpu, n := range predicted {
			if n != t.Functions {
				delete(t.Cycles, cpu) // not a total
			}
		}
		out = append(out, t)
	}
	return out
}

// ArgRegisters is how many zero arguments MeasureObject passes: every
// argument register of the workload's ABI (ARM r0-r3, x86-64 six).
func ArgRegisters(arch kernel.Arch) int {
	if arch == kernel.X86 {
		return 6
	}
	return 4
}

// MeasureObject measures every traced function of the ELF relocatable
// object raw (name is used in messages) under each strategy (default:
// the built-ins of the object's arch). Each function is linked as the
// workload's callee (kernel.LinkObject) and called with zero in every
// argument register; a function that cannot be linked, faults or does not
// return is skipped with the reason. The object's sites are found by
// objfile, as `mcountsim sites` finds them.
func MeasureObject(name string, raw []byte, strategies []*patch.Strategy, opts MeasureOptions) (*ObjectCost, error) {
	f, err := objfile.NewFile(bytes.NewReader(raw), name)
	if err != nil {
		return nil, err
	}
	sites, err := f.Sites()
	if err != nil {
		return nil, err
	}
	arch, ok := kernel.ObjectArch(f.Arch)
	if !ok || arch != kernel.ARM && arch != kernel.X86 {
		return nil, fmt.Errorf("%s: %w: arch %v (cost --object reads ARM A32 and x86-64 objects)", name, kernel.ErrUnsupportedObject, f.Arch)
	}
	if len(strategies) == 0 {
		strategies = Strategies(arch)
	}
	for _, st := range strategies {
		if st.Arch != arch {
			return nil, fmt.Errorf("strategy %s is for %v, but the object is %v", st.Name, st.Arch, arch)
		}
	}
	o := &ObjectCost{File: name, Arch: arch, Sites: len(sites)}
	for _, st := range strategies {
		o.Strategies = append(o.Strategies, st.Name)
	}
	perFunc := map[string]int{}
	var order []string
	for _, s := range sites {
		o.SiteBytes += siteLen(arch, s)
		if s.Function == "" {
			continue
		}
		if perFunc[s.Function] == 0 {
			order = append(order, s.Function)
		}
		perFunc[s.Function]++
	}
	if len(sites) == 0 {
		return o, nil
	}
	args := make([]int64, ArgRegisters(arch))
	for _, fn := range order {
		fc := FunctionCost{Function: fn, Sites: perFunc[fn]}
		obj, err := kernel.LinkObject(name, raw, kernel.ObjectConfig{Function: fn, Args: args, Iterations: DefaultIterations})
		if err != nil {
			fc.Skipped = "cannot link: " + oneLine(strings.TrimPrefix(err.Error(), name+": "))
			o.Functions = append(o.Functions, fc)
			continue
		}
		img := obj.Image
		for _, st := range strategies {
			sc := explore.Scenario{Arch: arch, Strategy: st, Image: func() (*kernel.Image, error) { return img, nil },
				StackWords: ObjectStackWords, Object: fmt.Sprintf("%s: %s", name, fn)}
			fo := opts
			fo.Function = fn
			m, err := Measure(sc, fo)
			if err != nil {
				fc.Skipped = skipReason(err)
				fc.Measurements = nil
				break
			}
			fc.Measurements = append(fc.Measurements, m)
		}
		o.Functions = append(o.Functions, fc)
	}
	return o, nil
}

// siteLen is the bytes a site takes: the 5-byte call on x86-64; on ARM
// the bl and, when the compiler pushed lr for __gnu_mcount_nc, the push.
func siteLen(arch kernel.Arch, s objfile.Site) int {
	if arch == kernel.X86 {
		return 5
	}
	if s.ARMPushLR {
		return 8
	}
	return 4
}

func skipReason(err error) string {
	msg := oneLine(strings.TrimPrefix(err.Error(), "cost: "))
	if errors.Is(err, ErrNoCall) {
		return "called with zero arguments, " + msg
	}
	return msg
}

// SortedRows returns (function, strategy index) pairs of the measured
// functions, the costliest dormant call first: by dormant cycles on cpu
// (when given and predicted), then dormant instructions, then name.
func (o *ObjectCost) SortedRows(cpu string) [][2]int {
	var rows [][2]int
	for fi, f := range o.Functions {
		for si := range f.Measurements {
			rows = append(rows, [2]int{fi, si})
		}
	}
	key := func(r [2]int) (float64, int, string) {
		d := o.Functions[r[0]].Measurements[r[1]].Dormant()
		return d.Cycles[cpu], d.Instructions, o.Functions[r[0]].Function + "\x00" + o.Strategies[r[1]]
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ci, ii, ni := key(rows[i])
		cj, ij, nj := key(rows[j])
		if ci != cj {
			return ci > cj
		}
		if ii != ij {
			return ii > ij
		}
		return ni < nj
	})
	return rows
}
