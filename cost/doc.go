// Package cost answers "what does a dormant call site cost?" in three
// ways: statistics for noisy measurements, llvm-mca predictions, and exact
// counts from the simulator's execution.
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
// For code, Measure counts what one call of a traced function executes
// with its call site in three forms — Baseline (the site's bytes absent),
// Disabled (the strategy's boot form) and Enabled (after the enable
// transition: call, trampoline, tracer hook) — by running the scenario in
// the simulator (one CPU, one task, no preemption, one enable transition)
// and reading the recorded execution: bytes, instructions, memory
// accesses, taken branches, 64-byte I-cache lines, and the cycles Predict
// gives for the executed sequence on each CPU. Nothing is looked up by a
// strategy's name. MeasureObject does the same for every traced function
// of an ELF object, and PlotStrategies and PlotObject draw the results as
// SVG with gonum.org/v1/plot.
//
// Imports: the standard library, golang.org/x/perf (benchmath, benchfmt),
// gonum.org/v1/plot, and for Measure the simulator's packages explore,
// patch, kernel, sched, isa and objfile (scenarios, strategies, images,
// the recorded events and their isa.Flow, ELF site discovery). The
// package sits above explore and below cmd: nothing in the simulator
// imports it, and Predict and the statistics need none of it.
package cost
