// Package cost answers "what does a dormant call site cost?" in two ways
// that do not depend on the simulator.
//
// For measurements that have noise (repeated benchmark runs), Compare puts
// two samples side by side the way benchstat does, with
// golang.org/x/perf/benchmath: medians with confidence intervals, the
// Mann-Whitney U test, a delta in percent, and a plain verdict that says
// when the runs cannot tell the two apart and about how many runs per side
// would be needed at the observed noise. ParseSample reads a sample (one
// number a line, or the Go benchmark format through
// golang.org/x/perf/benchfmt).
//
// For code that has no noise, Predict (and its short form Cycles) asks
// LLVM's scheduling model of a named CPU, through the llvm-mca tool, how
// many cycles a straight-line instruction sequence takes per iteration.
// CPUs lists the CPUs reported by default for each architecture: the ones
// whose LLVM 14 model schedules the instructions of every site form.
//
// Imports: the standard library and golang.org/x/perf (benchmath, benchfmt)
// only. The package never imports sched, explore, patch or any ISA leaf:
// the simulator's cost command sits above it, counts instructions by
// executing them, and hands this package the executed sequence as text.
package cost
