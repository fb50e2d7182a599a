package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/params"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/report"
)

const checkExamples = `
Examples:
  # the race of the 2011 LKML thread: push {lr} + bl patched to two nops
  mcountsim check --arch arm --strategy nop-nop

  # Steve's fix, proven safe with 3 tasks, as JSON
  mcountsim check --arch arm --strategy jmp-over --tasks 3 --json

  # re-run the counterexample that check printed
  mcountsim replay --arch arm --strategy nop-nop --schedule 8:2,10:1,14:1

  # probabilistic concurrency testing: 1000 runs, bug depth 3, fixed seed
  mcountsim check --strategy nop-nop --search pct --runs 1000 --depth 3 --seed 1

  # budgets (INCOMPLETE, exit 3, when one runs out) and progress on stderr
  mcountsim check --strategy jmp-over --tasks 3 --bound 3 --timeout 10m --max-memory 2GiB --progress

  # one shard of three (e.g. on three machines), then one verdict
  mcountsim check --strategy jmp-over --tasks 3 --shard 0/3 --json > shard-0.json
  mcountsim merge shard-*.json

Exit status: 0 SAFE, 1 UNSAFE, 2 usage or input error, 3 INCOMPLETE.
`

type checkFlags struct {
	arch, strategy, strategyFile, preempt, prologue, schedule string
	cpus, tasks, iterations, toggles, functions, bound        int
	maxStates, stackWords                                     int
	timeout                                                   time.Duration
	json, strict                                              bool
	html                                                      string
	object, function, args                                    string
	tracer, traced                                            string // tracer.go
	irqBound                                                  int
	lossless, nmi                                             bool
	fileTracer                                                *kernel.Tracer // the scenario file's tracer section

	// check only: the search.
	search, shard, maxMemory string
	exchange                 string
	runs, depth, workers     int
	seed                     uint64
	progress                 bool
	noSymmetry               bool
	noRefReductions          bool
	por                      bool
	modular                  string
}

func runCheck(args []string, stdout, stderr io.Writer, replay bool) int {
	start := time.Now()
	cmd := "check"
	if replay {
		cmd = "replay"
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcountsim %s: %s\n", cmd, fmt.Sprintf(format, a...))
		return 2
	}
	fs := newFlagSet(cmd)
	var f checkFlags
	fs.StringVar(&f.arch, "arch", "arm", "instruction set: arm or x86")
	fs.StringVar(&f.strategy, "strategy", "", "built-in strategy (see mcountsim strategies)")
	fs.StringVar(&f.strategyFile, "strategy-file", "", "read the strategy (and optionally the machine) from a scenario `file`")
	fs.StringVar(&f.preempt, "preempt", "full", "preemption model: none or full")
	fs.StringVar(&f.prologue, "prologue", "", "the built-in text's call-site `layout`: x86 fentry (default) or mcount; arm64 pfe2, pfe4-2 or pg; riscv64 atomic, mcount, pfe16 or pfe8 (default: the strategy's)")
	for _, p := range []struct {
		v *int
		p *params.Param
	}{{&f.cpus, &params.CPUs}, {&f.tasks, &params.Tasks}, {&f.iterations, &params.Iterations}, {&f.toggles, &params.Toggles},
		{&f.functions, &params.Functions}, {&f.bound, &params.Bound}, {&f.maxStates, &params.MaxStates}} {
		fs.IntVar(p.v, p.p.Name, p.p.Default, p.p.Usage)
	}
	fs.IntVar(&f.stackWords, params.StackWords.Name, 0, fmt.Sprintf("each task's stack, in 4-byte `words`, %d..%d (0: %d for the built-in text, 128 on riscv64, %d with --object, the tracer kernel's THREAD_SIZE with --tracer, which follows it and needs a power of two); Linux's THREAD_SIZE is 2048 words on ARM, 4096 on arm64, x86-64 and riscv64",
		params.StackWords.Min, params.StackWords.Max, params.StackWords.Default, explore.ObjectStackWords))
	fs.DurationVar(&f.timeout, "timeout", 0, "stop (INCOMPLETE) after this long, counting reading the inputs, the search and writing the reports (a search cut short still gets 10s, or a tenth of the budget, to write what it found; 0: no limit)")
	fs.BoolVar(&f.json, "json", false, "write the result as one JSON object")
	fs.BoolVar(&f.strict, "strict", false, "report a mixed-site pass as a hazard of its own")
	tracerFlagSet(fs, &f) // tracer.go
	fs.BoolVar(&f.noRefReductions, "no-reference-reductions", false, "turn off the reductions that rest on the uninstrumented reference run (quiet data pages, text no worker reached, stable data bytes): a slower search, the same verdict; a check turns them off by itself when a run breaks their premise, and its JSON says no_reference_reductions (replay such a schedule with this flag)")
	fs.StringVar(&f.html, "html", "", "also write the run as a self-contained HTML timeline to `file`")
	fs.StringVar(&f.object, "object", "", "run a function of this ELF `object` (ARM A32, x86-64, arm64 or riscv64 .o) instead of the built-in text")
	fs.StringVar(&f.function, "function", "", "with --object: the `name` of the function the workload calls")
	fs.StringVar(&f.args, "args", "", "with --object: its integer arguments, comma-separated (e.g. 1,-2,0x10); their number is not checked (objects carry no prototypes)")
	fs.StringVar(&f.maxMemory, "max-memory", "", "stop (INCOMPLETE) when the heap exceeds this `size`, e.g. 512MiB or 2GiB; 0: no limit (default: 2GiB, or half the process's memory limit or the machine's memory if less)")
	if replay {
		fs.StringVar(&f.schedule, "schedule", "", "the schedule to replay, as printed by check (required)")
	} else {
		fs.StringVar(&f.search, "search", "exhaustive", "search mode: exhaustive, pct or random")
		fs.IntVar(&f.runs, "runs", explore.DefaultRuns, "runs of a pct or random search")
		fs.IntVar(&f.depth, "depth", explore.DefaultDepth, "bug depth d that pct targets (d-1 priority change points per run)")
		fs.Uint64Var(&f.seed, "seed", 1, "seed of a pct or random search")
		fs.IntVar(&f.workers, "workers", 0, "goroutines that search (0: all CPUs); the verdict does not depend on it, the counts of a SAFE search may (older views)")
		fs.StringVar(&f.shard, "shard", "", "explore only part `i/n` (0 <= i < n) of the exhaustive space; combine with mcountsim merge")
		fs.StringVar(&f.exchange, "exchange", "", "with --shard: a `DIR` all shards share, run at the same time; each shard then expands only the states it owns")
		fs.BoolVar(&f.progress, "progress", false, "report progress on stderr (default: only when stderr is a terminal)")
		fs.BoolVar(&f.noSymmetry, "no-symmetry", false, "do not merge states that differ only by a permutation of the worker tasks (a slower search, the same verdict)")
		fs.StringVar(&f.modular, "modular", "auto", "thread-modular check: each worker searched against the patcher with the other workers as stand-ins, where no worker stores outside its stack (any other outcome than SAFE runs the whole search): auto (for --object), on or off")
		fs.BoolVar(&f.por, "por", false, "sleep sets of commuting visible steps: take one order of two options of different CPUs that commute (fewer steps, the same verdict, counterexample and states; usually no faster)")
	}
	set, status, ok := parseFlagsOnly(fs, args, stdout, fmt.Sprintf("Usage: mcountsim %s [flags]\n\nFlags:\n", cmd), checkExamples, "", fail)
	if !ok {
		return status
	}
	if f.timeout < 0 {
		return fail("--timeout must not be negative, got %v", f.timeout)
	}
	// --timeout covers the whole command (deadline.go); a scenario file
	// may set it, counted from the same start.
	dl := newDeadline(start, f.timeout)
	incomplete := func(err error) int {
		fmt.Fprintf(stderr, "mcountsim %s: %s\n", cmd, oneLine(err))
		return explore.Incomplete.ExitCode()
	}

	var fileStrategy *patch.Strategy
	if f.strategyFile != "" {
		if f.strategy != "" {
			return fail("give --strategy or --strategy-file, not both")
		}
		// The file's config lines set the flags the command line did not.
		err := dl.do("reading --strategy-file "+f.strategyFile, func() error {
			file, err := readStrategyFile(f.strategyFile, fs, set)
			if file != nil {
				fileStrategy, f.fileTracer = file.Strategy, file.Tracer
			}
			return err
		})
		if errors.As(err, new(*timedOut)) {
			return incomplete(err)
		}
		if err != nil {
			return fail("%v", oneLine(err))
		}
		if f.timeout != dl.timeout {
			dl = newDeadline(start, f.timeout)
		}
	}
	var sc explore.Scenario
	var opts explore.Options
	phase := "checking the scenario"
	if f.object != "" {
		phase = "loading --object " + f.object + " and running " + f.function + " once"
	}
	err := dl.do(phase, func() (err error) {
		sc, opts, err = scenarioFrom(f, set, fileStrategy)
		return err
	})
	if errors.As(err, new(*timedOut)) {
		return incomplete(err)
	}
	if err != nil {
		return fail("%v", err)
	}
	opts.Start = start // the search's share of --timeout is what is left
	if replay && !set["schedule"] {
		return fail("--schedule is required (check prints it with a counterexample)")
	}
	// Outputs are checked before the search, which may take long.
	var html *os.File
	wrote := func() {}
	if f.html != "" {
		if html, err = os.Create(f.html); err != nil {
			return fail("--html: %v", err)
		}
		written := false
		defer func() {
			if !written { // no page: leave no empty file behind
				html.Close()
				os.Remove(f.html)
			}
		}()
		wrote = func() { written = true }
	}
	var res *explore.Result
	if replay {
		err = dl.do("replaying the schedule", func() (err error) {
			res, err = explore.Replay(sc, f.schedule, opts)
			return err
		})
	} else {
		var p *progressPrinter
		if f.progress || isTerminal(stderr) {
			p = newProgressPrinter(stderr, isTerminal(stderr))
			opts.Progress = p.print
		}
		err = dl.do("searching", func() (err error) {
			res, err = explore.Check(sc, opts)
			sc = explore.AsSearched(sc, res) // its schedule replays so
			return err
		})
		if p != nil && !errors.As(err, new(*timedOut)) {
			p.end()
		}
	}
	if errors.As(err, new(*timedOut)) {
		return incomplete(err)
	}
	if err != nil {
		return fail("%v", oneLine(err))
	}
	// The report is written whole or not at all.
	var out bytes.Buffer
	err = dl.do("writing the report", func() error {
		if f.json {
			return report.JSON(&out, sc, opts, res)
		}
		return report.TextFor(&out, sc, opts, res)
	})
	if errors.As(err, new(*timedOut)) {
		return incomplete(err)
	}
	if err != nil {
		return fail("writing the report: %v", err)
	}
	if _, err := out.WriteTo(stdout); err != nil {
		return fail("writing the report: %v", err)
	}
	if html != nil {
		err := dl.do("writing the --html page "+f.html, func() error { return writeHTML(html, sc, opts, res) })
		if errors.As(err, new(*timedOut)) {
			return incomplete(err)
		}
		if err != nil {
			return fail("--html: %v", err)
		}
		wrote()
	}
	return res.Verdict.ExitCode()
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// scenarioFrom turns flags into a scenario, checking every value.
func scenarioFrom(f checkFlags, set map[string]bool, fileStrategy *patch.Strategy) (explore.Scenario, explore.Options, error) {
	var sc explore.Scenario
	var opts explore.Options
	arch, err := kernel.ParseArch(f.arch)
	if err != nil {
		return sc, opts, fmt.Errorf("--arch: %v", err)
	}
	var image func() (*kernel.Image, error)
	switch {
	case f.object != "":
		if arch, image, err = objectImage(f.object, f.function, f.args, f.iterations); err != nil {
			return sc, opts, err
		}
		if err := checkObjectFlags(arch, set, f.arch); err != nil {
			return sc, opts, err
		}
	case set["function"] || set["args"]:
		return sc, opts, errors.New("--function and --args need --object")
	}
	var st *patch.Strategy
	switch {
	case fileStrategy != nil:
		st = fileStrategy
		if !set["arch"] && image == nil {
			arch = st.Arch
		}
	case f.strategy == "":
		return sc, opts, errors.New("--strategy is required (see mcountsim strategies)")
	default:
		var ok bool
		st, ok = patch.Lookup(arch, f.strategy)
		if !ok {
			var names []string
			for _, s := range patch.Builtins() {
				if s.Arch == arch {
					names = append(names, s.Name)
				}
			}
			return sc, opts, fmt.Errorf("--strategy: unknown %v strategy %q (want one of: %s)", arch, f.strategy, strings.Join(names, ", "))
		}
	}
	if st.Arch != arch {
		return sc, opts, fmt.Errorf("strategy %s is for %v, not %v", st.Name, st.Arch, arch)
	}
	pre, err := explore.ParsePreempt(f.preempt)
	if err != nil {
		return sc, opts, fmt.Errorf("--preempt: %v", err)
	}
	for _, c := range []struct {
		p *params.Param
		v int
	}{{&params.CPUs, f.cpus}, {&params.Tasks, f.tasks}, {&params.Iterations, f.iterations}, {&params.Toggles, f.toggles},
		{&params.Functions, f.functions}, {&params.Bound, f.bound}, {&params.MaxStates, f.maxStates}} {
		if err := c.p.Check(c.v); err != nil {
			return sc, opts, err
		}
	}
	if f.stackWords != 0 {
		if err := params.StackWords.Check(f.stackWords); err != nil {
			return sc, opts, err
		}
	}
	if err := checkPrologue(arch, f.prologue); err != nil {
		return sc, opts, err
	}
	if image != nil && st.Prologue != "" {
		if img, err := image(); err == nil && img.Prologue != "" && img.Prologue != st.Prologue {
			return sc, opts, fmt.Errorf("strategy %s patches the %s layout, but the object's sites are %s", st.Name, st.Prologue, img.Prologue)
		}
	}
	sc = explore.Scenario{Arch: arch, Strategy: st, Preempt: pre, CPUs: f.cpus, Tasks: f.tasks, Iterations: f.iterations,
		Toggles: f.toggles, Functions: f.functions, Prologue: f.prologue, Strict: f.strict,
		NoQuiet: f.noRefReductions, NoStable: f.noRefReductions}
	if image != nil {
		sc.Image, sc.StackWords = image, explore.ObjectStackWords
		sc.Object = fmt.Sprintf("%s: %s(%s)", f.object, f.function, f.args)
		sc.ObjectFile, sc.Function = f.object, f.function
		if sc.Args, err = parseObjectArgs(f.args); err != nil {
			return sc, opts, err
		}
	}
	if f.stackWords != 0 {
		sc.StackWords = f.stackWords
	}
	if image != nil {
		if err := explore.Preflight(sc); err != nil {
			return sc, opts, fmt.Errorf("--object: %s %v", f.function, err)
		}
	}
	if err := tracerFlags(f, set, image != nil, &sc); err != nil { // tracer.go
		return sc, opts, err
	}
	opts = explore.Options{Bound: explore.BoundOption(f.bound), MaxStates: f.maxStates, Timeout: f.timeout, NoSymmetry: f.noSymmetry, POR: f.por}
	if err := searchFlags(f, set, &opts); err != nil {
		return sc, opts, err
	}
	if f.modular != "" {
		if opts.Modular, err = explore.ParseModular(f.modular); err != nil {
			return sc, opts, fmt.Errorf("--modular: %v", err)
		}
	}
	switch strings.TrimSpace(f.maxMemory) {
	case "":
		opts.MaxMemory = defaultMaxMemory() // memory.go
	case "0":
	default:
		n, err := parseSize(f.maxMemory)
		if err != nil {
			return sc, opts, fmt.Errorf("--max-memory: %v", err)
		}
		opts.MaxMemory = n
	}
	applyMemoryBudget(opts.MaxMemory)
	return sc, opts, nil
}

// searchFlags fills in the search options of check.
func searchFlags(f checkFlags, set map[string]bool, opts *explore.Options) error {
	if f.search == "" {
		return nil // replay
	}
	mode, err := explore.ParseSearch(f.search)
	if err != nil {
		return fmt.Errorf("--search: %v", err)
	}
	opts.Search = mode
	switch {
	case f.workers < 0 || f.workers > 4096:
		return fmt.Errorf("--workers must be 0..4096, got %d", f.workers)
	case f.runs < 1 || f.runs > 1<<30:
		return fmt.Errorf("--runs must be 1..%d, got %d", 1<<30, f.runs)
	case f.depth < 1 || f.depth > 64:
		return fmt.Errorf("--depth must be 1..64, got %d", f.depth)
	}
	opts.Workers = f.workers
	if mode == explore.Exhaustive {
		for _, name := range []string{"runs", "depth", "seed"} {
			if set[name] {
				return fmt.Errorf("--%s applies to --search pct or random", name)
			}
		}
	} else {
		if set["shard"] {
			return errors.New("--shard applies to --search exhaustive")
		}
		if mode == explore.Random && set["depth"] {
			return errors.New("--depth applies to --search pct")
		}
		opts.Runs, opts.Depth, opts.Seed = f.runs, f.depth, f.seed
	}
	if f.shard != "" {
		sh, err := explore.ParseShard(f.shard)
		if err != nil {
			return fmt.Errorf("--shard: %v", err)
		}
		opts.Shard = sh
	}
	if f.exchange != "" {
		if opts.Shard.Whole() {
			return errors.New("--exchange needs --shard i/n with n >= 2")
		}
		opts.Exchange = f.exchange
	}
	return nil
}

// parseSize parses a byte count: a number with an optional unit B, K/KiB,
// M/MiB, G/GiB, T/TiB (powers of 1024; KB, MB, GB, TB are powers of 1000).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("bad size %q (want e.g. 512MiB or 2GiB)", s)
	}
	mult := map[string]float64{"": 1, "B": 1,
		"K": 1 << 10, "KI": 1 << 10, "KIB": 1 << 10, "KB": 1e3,
		"M": 1 << 20, "MI": 1 << 20, "MIB": 1 << 20, "MB": 1e6,
		"G": 1 << 30, "GI": 1 << 30, "GIB": 1 << 30, "GB": 1e9,
		"T": 1 << 40, "TI": 1 << 40, "TIB": 1 << 40, "TB": 1e12}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("bad size %q: unknown unit %q", s, t[i:])
	}
	n := v * m
	if n < 1 || n > 1<<62 {
		return 0, fmt.Errorf("bad size %q: want 1 byte to 4 EiB", s)
	}
	return int64(n), nil
}

// checkPrologue accepts an empty --prologue or one of arch's layouts.
func checkPrologue(arch kernel.Arch, prologue string) error {
	if prologue == "" {
		return nil
	}
	names := kernel.Prologues(arch)
	if len(names) == 0 {
		return fmt.Errorf("--prologue: the %v text has one call-site layout (the flag applies to x86, arm64 and riscv64)", arch)
	}
	for _, n := range names {
		if n == prologue {
			return nil
		}
	}
	return fmt.Errorf("--prologue: unknown %v layout %q (want %s)", arch, prologue, strings.Join(names, ", "))
}
