// Package params is the one table of the integer settings of a scenario
// and a search: their names (the CLI's flags and the scenario file's
// config keys), defaults, ranges and meaning. The machine (sched), the text
// builder (kernel), scenario files (patch), the explorer and the CLI all
// read it, so that a default or a limit is written once.
//
// Imports: the standard library only (every other package may import it).
package params

import "fmt"

// Param is one integer setting.
type Param struct {
	Name     string // flag and config key, e.g. "cpus"
	Default  int
	Min, Max int
	Usage    string
}

// Check reports a value outside the range, naming the setting as a flag.
func (p Param) Check(v int) error {
	if v < p.Min || v > p.Max {
		return fmt.Errorf("--%s must be %d..%d, got %d", p.Name, p.Min, p.Max, v)
	}
	return nil
}

// Or returns v, or the default when v is zero (the zero value of every
// setting that has a non-zero default means that default).
func (p Param) Or(v int) int {
	if v == 0 {
		return p.Default
	}
	return v
}

// Limits of one machine, as constants (the machine sizes arrays by them).
const (
	MaxCPUs  = 8
	MaxTasks = 16 // workers plus the patcher
)

// The settings.
var (
	CPUs       = Param{"cpus", 2, 1, MaxCPUs, "number of CPUs"}
	Tasks      = Param{"tasks", 2, 1, MaxTasks - 1, "number of worker tasks"}
	Iterations = Param{"iterations", 2, 1, 255, "workload iterations per task"}
	Toggles    = Param{"toggles", 2, 1, 64, "patch transitions (enable, disable, enable, ...)"}
	Functions  = Param{"functions", 1, 1, 64, "traced functions, each with its own call site"}
	Bound      = Param{"bound", 2, 0, 64, "preemption bound: most involuntary context switches per run"}
	MaxStates  = Param{"max-states", 0, 0, 1 << 62, "stop (INCOMPLETE) after this many states (0: no limit)"}
	// StackWords is in 4-byte words whatever the arch; 4096 (16 KiB) is
	// Linux's THREAD_SIZE on arm64, x86-64 and riscv64 (ARM's is 8 KiB).
	StackWords = Param{"stack-words", 64, 16, 4096, "each task's stack, in 4-byte words"}
)

// All lists the settings in the order scenario files write them.
var All = []*Param{&CPUs, &Tasks, &Iterations, &Toggles, &Functions, &Bound, &MaxStates, &StackWords}

// Lookup returns the setting named name.
func Lookup(name string) (*Param, bool) {
	for _, p := range All {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}
