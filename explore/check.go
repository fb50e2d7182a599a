package explore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcountsim/mcountsim/detect"
)

// Verdict is the outcome of a check.
type Verdict uint8

const (
	// Safe: the whole space was explored and no hazard occurred.
	Safe Verdict = iota + 1
	// Unsafe: a hazard occurred; the result carries a replayable schedule.
	Unsafe
	// Incomplete: a budget ran out before the space was exhausted.
	Incomplete
)

var verdictNames = [...]string{"", "SAFE", "UNSAFE", "INCOMPLETE"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) && v != 0 {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", v)
}

// MarshalText prints verdicts by name in JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses a verdict name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n != "" && n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// ExitCode is the CLI exit status for v: 0 SAFE, 1 UNSAFE, 3 INCOMPLETE.
func (v Verdict) ExitCode() int {
	switch v {
	case Safe:
		return 0
	case Unsafe:
		return 1
	}
	return 3
}

// Options tune a check. Zero values take the documented defaults.
type Options struct {
	// Bound is the preemption bound: at most this many involuntary
	// context switches per run. The zero value means DefaultBound (2); a
	// bound of 0 is asked for with NoPreemptions.
	Bound int
	// MaxStates stops the search (INCOMPLETE) after this many distinct
	// states (0: no limit).
	MaxStates int
	// Timeout stops the search (INCOMPLETE) after this long (0: none),
	// counted from Start.
	Timeout time.Duration
	// Start is when Timeout's clock started, for a caller whose budget
	// also covers work before the search (the CLI's --timeout covers
	// reading its inputs); zero: when the search starts.
	Start time.Time
	// MaxMemory stops the search (INCOMPLETE) when the Go heap holds more
	// than this many bytes (0: no limit). It is sampled every 10 ms.
	MaxMemory int64
	// Reduction selects the state-space reduction (default ReduceFull).
	// The weaker ones exist to test the stronger: only small scenarios
	// finish without them.
	Reduction Reduction
	// NoSymmetry turns off the task symmetry of the visited set (states
	// equal up to a permutation of the worker tasks are one state; see
	// package doc). Schedules and verdicts do not depend on it.
	NoSymmetry bool
	// POR turns on the partial-order reduction of visible steps (sleep
	// sets of commuting options; see package doc): fewer steps, the same
	// verdict, counterexample, states and end states. Off by default (it
	// saves 2-10% of the steps and costs more than that per state).
	POR bool
	// Modular selects the thread-modular check (modular.go): each worker
	// searched against the patcher alone, the other workers replaced by
	// stand-ins, when the workers store nothing outside their stacks.
	// The default (ModularAuto) uses it for workloads linked from an
	// object; the built-in texts' documented counts are the whole search's.
	Modular Modular
	// Context, when set, cancels the search (INCOMPLETE).
	Context context.Context

	// Search is the search mode (default Exhaustive).
	Search Search
	// Runs is the number of runs of the PCT and random searches (default
	// 1000).
	Runs int
	// Depth is the bug depth d that PCT targets (default 3): it changes
	// priorities at d-1 random steps of each run.
	Depth int
	// Seed seeds the PCT and random searches (run i uses the seed and i).
	Seed uint64
	// Workers is the number of goroutines that search (default: all CPUs,
	// runtime.GOMAXPROCS(0)). The result does not depend on it.
	Workers int
	// Shard restricts an exhaustive search to a deterministic part of its
	// space; the zero value is the whole space. Merge combines the parts.
	Shard Shard
	// Exchange, with a Shard of 2 or more, is a directory that all shards
	// of the split share, running at the same time: each shard then
	// expands only the branching states it owns by hash and sends the
	// others theirs through files there, so the shards' states add up to
	// the unsharded figure (see package doc). Use an empty directory per
	// search.
	Exchange string
	// Progress, when set, is called about every ProgressEvery (default 1 s)
	// from a goroutine of its own while the search runs, and once at the end.
	Progress      func(Progress)
	ProgressEvery time.Duration

	// splitAlways (tests): busy workers split their subtrees at every
	// branching point, as if a worker always waited (share.go).
	splitAlways bool
	// noSiteStops (tests): thread-local runs are not looked up in the
	// visited set before a site (worker.siteStops).
	noSiteStops bool
	// noOlderViews (tests): no state is pruned by older views (views.go).
	noOlderViews bool
}

// Search is a search mode.
type Search uint8

const (
	// Exhaustive: every schedule within the preemption bound, bounds in
	// increasing order (iterative preemption bounding).
	Exhaustive Search = iota
	// PCT: probabilistic concurrency testing (Burckhardt et al., ASPLOS
	// 2010): random task priorities and Depth-1 random priority change
	// points per run. Never SAFE.
	PCT
	// Random: each run picks an option uniformly at random at every step.
	// Never SAFE.
	Random
)

var searchNames = [...]string{"exhaustive", "pct", "random"}

func (s Search) String() string {
	if int(s) < len(searchNames) {
		return searchNames[s]
	}
	return fmt.Sprintf("Search(%d)", s)
}

// ParseSearch returns the search mode named s.
func ParseSearch(s string) (Search, error) {
	for i, n := range searchNames {
		if n == s {
			return Search(i), nil
		}
	}
	return 0, fmt.Errorf("unknown search %q (want exhaustive, pct or random)", s)
}

// Shard is part Index (0-based) of Count parts of an exhaustive search.
type Shard struct {
	Index, Count int
}

// Whole reports whether s is the whole search.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(text string) (Shard, error) {
	a, b, ok := strings.Cut(text, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("bad shard %q (want i/n with 0 <= i < n, e.g. 0/4)", text)
	}
	return Shard{Index: i, Count: n}, nil
}

// Progress is a snapshot of a running search.
type Progress struct {
	Elapsed     time.Duration
	States      int64 // distinct states so far (runs, for PCT and random)
	Transitions int64
	Runs        int64
	Bound       int // bound being searched (exhaustive)
	Done, Total int // subtrees of the frontier finished, in all (runs, for PCT and random)
	Minimizing  bool
	// TableBytes is the memory of the visited set of the bound being
	// searched, and TableStates the states it holds (exhaustive).
	TableBytes, TableStates int64
}

// Reduction is a state-space reduction of the exhaustive search.
type Reduction uint8

const (
	// ReduceFull: partial-order reduction of thread-local steps (the
	// machine offers them alone, without preemption) and a visited-state set.
	ReduceFull Reduction = iota
	// ReduceStates: the visited-state set only; every CPU's step and
	// every preemption is offered at every instruction boundary.
	ReduceStates
	// ReduceNone: every sequence of options is tried.
	ReduceNone
)

var reductionNames = [...]string{
	"partial-order reduction of thread-local steps + visited set of (state, preemptions used) (128-bit hashes)",
	"visited set of (state, preemptions used) (128-bit hashes)",
	"none",
}

func (r Reduction) String() string {
	if int(r) < len(reductionNames) {
		return reductionNames[r]
	}
	return fmt.Sprintf("Reduction(%d)", r)
}

func (r Reduction) por() bool { return r == ReduceFull }

// sleepSets reports whether the exhaustive search uses sleep sets
// (sleep.go): when POR asks for them, with the full reduction, and not in
// a shard (a shard's counts would then depend on which states the swaps
// move to another shard; an exchanged split's paths carry no sleep sets).
func (o Options) sleepSets() bool {
	return o.POR && o.Reduction == ReduceFull && o.Shard.Whole() && o.Exchange == "" && o.Search == Exhaustive
}

// olderViews reports whether the exhaustive search prunes a state when
// it has claimed one that differs only in older instruction-fetch views
// (the package doc, "Older views"): with a visited set, but not with the
// sleep sets (whose visited set keeps options per state) nor in an
// exchanged split (whose shards' counts add up to the whole search's).
func (o Options) olderViews() bool {
	return o.Search == Exhaustive && o.Reduction != ReduceNone && !o.sleepSets() && o.Exchange == "" && !o.noOlderViews
}

// DefaultBound is the preemption bound of model.md, which a zero
// Options.Bound means.
const DefaultBound = 2

// NoPreemptions is the Options.Bound that asks for preemption bound 0 (no
// involuntary context switch at all); the zero value means DefaultBound.
const NoPreemptions = -1

// bound is the preemption bound o asks for.
func (o Options) bound() int {
	switch o.Bound {
	case 0:
		return DefaultBound
	case NoPreemptions:
		return 0
	}
	return o.Bound
}

// EffectiveBound is the preemption bound o asks for: DefaultBound for the
// zero value, 0 for NoPreemptions.
func (o Options) EffectiveBound() int { return o.bound() }

// BoundOption returns the Options.Bound that asks for preemption bound b.
func BoundOption(b int) int {
	if b == 0 {
		return NoPreemptions
	}
	return b
}

// Size is a scenario's preemption model and counts, as a result's Space
// and a report's config state them.
type Size struct {
	Preempt    string `json:"preempt"`
	CPUs       int    `json:"cpus"`
	Tasks      int    `json:"tasks"`
	Iterations int    `json:"iterations"`
	Toggles    int    `json:"toggles"`
	Functions  int    `json:"functions"`
}

// Size returns the Size of s (s with its defaults filled in).
func (s Scenario) Size() Size {
	return Size{Preempt: s.Preempt.String(), CPUs: s.CPUs, Tasks: s.Tasks, Iterations: s.Iterations, Toggles: s.Toggles, Functions: s.Functions}
}

// Space says what a search covered.
type Space struct {
	Scenario string `json:"scenario"`
	Bound    int    `json:"bound"`
	Size
	Exhaustive bool   `json:"exhaustive"`
	Reduction  string `json:"reduction"`
	// Modular says that the thread-modular check decided it (modular.go).
	Modular     bool   `json:"modular,omitempty"`
	BoundsDone  int    `json:"bounds_done"` // bounds 0..BoundsDone-1 were exhausted
	Description string `json:"description"`
	Search      string `json:"search"`
	Shard       string `json:"shard,omitempty"` // "i/n": this result covers part i of n
	// Frontier is the number of subtrees the exhaustive search split the
	// last bound it searched into (the unit of parallel work and of shards).
	Frontier int `json:"frontier,omitempty"`
	// NoReferenceReductions says that the reductions that rest on the
	// reference run were off (a run broke their premise: modular.go,
	// whole): its schedule replays with Scenario.NoQuiet and NoStable.
	NoReferenceReductions bool `json:"no_reference_reductions,omitempty"`
	// Found says how an UNSAFE check's counterexample was found when not
	// by the exhaustive search's bounds in order (modular.go: hunt).
	Found string `json:"found,omitempty"`
	// Coverage says what was covered when a budget ran out.
	Coverage string `json:"coverage,omitempty"`
	// The tracer kernel's part (tracer.go): the tracer, the functions it
	// may re-enter, the interrupt bound.
	Tracer   string   `json:"tracer,omitempty"`
	Traced   []string `json:"traced,omitempty"`
	IRQBound *int     `json:"irq_bound,omitempty"`
	NMI      bool     `json:"nmi,omitempty"` // NMIs may arrive (within the irq bound)
}

// Result is the outcome of Check or Replay.
type Result struct {
	Mode        string  `json:"mode"` // "check" or "replay"
	Verdict     Verdict `json:"verdict"`
	Space       Space   `json:"space"`
	States      int     `json:"states"`      // distinct states visited
	Transitions int     `json:"transitions"` // steps taken by the search
	// Runs counts the distinct end states of the runs that reached their
	// end (over the largest bound searched to the end). The shards of a
	// split reach, between them, exactly the end states of the unsharded
	// search, so their EndStates unite to this figure.
	Runs int `json:"runs"`
	// EndStates lists those end states (128-bit state hashes, hex, sorted)
	// for a sharded search, so that merge can unite them.
	EndStates   []string        `json:"end_states,omitempty"`
	Hazard      *detect.Hazard  `json:"hazard,omitempty"`
	Hazards     []detect.Hazard `json:"hazards,omitempty"` // every hazard of the replayed run
	Schedule    string          `json:"schedule"`
	Preemptions int             `json:"preemptions"`
	Steps       int             `json:"steps"` // length of the replayed run
	Reason      string          `json:"reason,omitempty"`
	PCT         *PCTBound       `json:"pct,omitempty"`
	// Subtrees counts the frontier subtrees this search was given, over
	// every bound it searched: the shards of one split add up to the
	// unsharded figure exactly (the states and runs of shards overlap,
	// since subtrees merge).
	Subtrees int `json:"subtrees,omitempty"`
	// OlderViews counts the arrivals at states the exhaustive search
	// pruned, in every bound it searched, because it had claimed one that
	// differs only in older views of text (package doc, "Older views"):
	// they are not in States (a state met again after an older one took
	// its place in the index is counted again). It depends on timing with
	// several workers.
	OlderViews int           `json:"older_views,omitempty"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Throughput is the exhaustive search's rate (it depends on timing).
	Throughput *Throughput `json:"throughput,omitempty"`
	Replay     *Run        `json:"run,omitempty"`
	// The tracer kernel's counts (tracer.go): lost events and counted
	// recursions per context, the most in one run, and the longest
	// interrupts-off stretch in instructions of one task.
	LostEvents      *LostEvents `json:"lost_events,omitempty"`
	RecursedEvents  *LostEvents `json:"recursed_events,omitempty"`
	IRQsOffMaxSteps *int        `json:"irqs_off_max_steps,omitempty"`
	// Returns lists each traced call's return value in the run shown (or,
	// for a result without one, the default run) beside the uninstrumented
	// reference run's, for workloads linked from an object
	// (Scenario.Image); ReturnsNote says which run and whether runs were
	// compared with the reference (results.go).
	Returns     []Return `json:"returns,omitempty"`
	ReturnsNote string   `json:"returns_note,omitempty"`
	// Stubs names the undefined callees of an object linked to stubs that
	// return 0 (kernel.Image.Stubs): the values their callers compute
	// from them are not the real function's.
	Stubs []string `json:"stubs,omitempty"`
	// Representative says that Replay is not a counterexample but one
	// representative run of a SAFE or INCOMPLETE check (see WithRun).
	Representative bool `json:"representative,omitempty"`
	// FoundSteps is the length of the counterexample as a worker first
	// met it, before minimization (not in JSON: it depends on timing).
	FoundSteps int `json:"-"`
	// TableBytes is the memory of the largest visited set (that of one
	// bound), and TableStates the states it held (not in JSON).
	TableBytes  int64 `json:"-"`
	TableStates int   `json:"-"`
}

// Throughput is how fast a search went: branching states and steps per
// second of wall time, and the visited set's memory per state (that of the
// largest bound's set over the states it holds).
type Throughput struct {
	StatesPerSec  float64 `json:"states_per_s"`
	StepsPerSec   float64 `json:"steps_per_s"`
	BytesPerState float64 `json:"bytes_per_state,omitempty"`
}

// throughput fills in r.Throughput from its counts and elapsed time.
func (r *Result) throughput() {
	s := r.Elapsed.Seconds()
	if s <= 0 {
		return
	}
	t := &Throughput{StatesPerSec: float64(r.States) / s, StepsPerSec: float64(r.Transitions) / s}
	if r.TableStates > 0 {
		t.BytesPerState = float64(r.TableBytes) / float64(r.TableStates)
	}
	r.Throughput = t
}

// PCTBound is the guarantee of a PCT search: each run finds a hazard of
// depth Depth with probability at least 1/(N·K^(Depth-1)).
type PCTBound struct {
	Runs        int     `json:"runs"`
	Depth       int     `json:"depth"`
	Seed        uint64  `json:"seed"`
	N           int     `json:"n"` // tasks (workers and the patcher)
	K           int     `json:"k"` // steps of a run, as sampled
	Probability float64 `json:"probability"`
	// Miss is the probability that Runs runs all miss such a hazard.
	Miss float64 `json:"miss_probability"`
	Text string  `json:"text"`
}

func space(sc Scenario, opts Options) Space {
	sp := Space{
		Scenario: sc.String(), Bound: opts.bound(), Size: sc.Size(), Reduction: reductionText(opts, !opts.NoSymmetry && sc.Tasks > 1),
		Search: opts.Search.String(), Shard: opts.Shard.String(),
	}
	if opts.Search != Exhaustive {
		sp.Reduction = "none (sampled runs)"
	}
	tracerSpace(&sp, sc)
	return sp
}

// reductionText says what reduction opts asks for; sym says that the
// visited set merges permutations of the workers.
func reductionText(opts Options, sym bool) string {
	red := opts.Reduction.String()
	if opts.Reduction != ReduceNone && sym {
		red = strings.Replace(red, "(state, ", "(state up to a permutation of the worker tasks, ", 1)
	}
	if opts.sleepSets() {
		red = strings.Replace(red, "thread-local steps", "thread-local steps and sleep sets of commuting visible steps", 1)
	}
	if opts.olderViews() {
		red += " + older views (a state is pruned when a claimed one differs only in older views of text)"
	}
	return red
}

func describe(r *Result) string {
	sp := r.Space
	base := fmt.Sprintf("preemption bound %d, preempt %s, %d cpus, %d tasks, %d iterations, %d toggles",
		sp.Bound, sp.Preempt, sp.CPUs, sp.Tasks, sp.Iterations, sp.Toggles)
	if sp.IRQBound != nil {
		base += fmt.Sprintf(", irq bound %d", *sp.IRQBound) // tracer.go
	}
	switch {
	case r.Verdict == Unsafe:
		return fmt.Sprintf("a hazard within %s, found with %d preemption(s)", base, r.Preemptions)
	case r.Verdict == Safe && sp.Shard != "":
		return fmt.Sprintf("every schedule of shard %s within %s (exhaustive in this shard; merge all shards for a verdict)", sp.Shard, base)
	case r.Verdict == Safe:
		return "every schedule within " + base + " (exhaustive)"
	case r.PCT != nil:
		return fmt.Sprintf("no hazard in %d %s runs within %s; %s", r.Runs, sp.Search, base, r.PCT.Text)
	case sp.Search != Exhaustive.String():
		return fmt.Sprintf("no hazard in %d %s runs within %s", r.Runs, sp.Search, base)
	}
	return "not exhausted: " + base + "; " + r.Reason
}

// overStates reports whether the search has claimed more states than
// Options.MaxStates allows, and stops it if so. The count of a finished
// bound is exact, and the live count only grows towards it, so "more than
// MaxStates" is decided by the scenario and the bound alone: any number of
// workers gives the same verdict (a bound that holds a hazard as well may
// still meet it before the budget on one worker count and not another).
func (e *engine) overStates() bool {
	if e.opts.MaxStates <= 0 || e.opts.Search != Exhaustive || e.states.Load() <= int64(e.opts.MaxStates) {
		return false
	}
	e.statesOver.Store(true)
	e.stop(fmt.Sprintf("state budget of %d used up", e.opts.MaxStates))
	return true
}

// statesCoverage is the coverage of a search that started at bound first
// and was stopped by the state budget in bound b.
func statesCoverage(first, b, max int) string {
	cov := fmt.Sprintf("bound %d needs more than %d states", b, max)
	if b > first {
		cov = fmt.Sprintf("exhaustive through bound %d; %s", b-1, cov)
	}
	return cov
}
