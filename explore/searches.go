package explore

import (
	"context"
	"time"
)

// The typed searches: each of ExhaustiveSearch, PCTSearch and
// RandomSearch holds only the settings its search reads, with the limits
// every search honours in one Budget, so a combination that means nothing
// (a seed for the exhaustive search, a shard of a sampling one) does not
// compile. Each converts to the Options that Check takes (the form the
// CLI builds from its flags, where a wrong combination is refused when
// the search starts). Zero values take the documented defaults; in
// particular a zero Bound is DefaultBound, and bound 0 is NoPreemptions.

// Budget holds the limits of a search; reaching any of them ends it
// INCOMPLETE. Zero fields set no limit.
type Budget struct {
	// MaxStates: distinct states (the exhaustive search) or runs' states.
	MaxStates int
	// Timeout, counted from Start (zero: when the search starts).
	Timeout time.Duration
	Start   time.Time
	// MaxMemory: bytes of Go heap, sampled every 10 ms.
	MaxMemory int64
	// Context cancels the search.
	Context context.Context
}

// Reporting is how a search reports its progress: Progress, when set, is
// called about every Every (default 1 s) from a goroutine of its own, and
// once at the end.
type Reporting struct {
	Progress func(Progress)
	Every    time.Duration
}

// ExhaustiveSearch explores every schedule within the preemption bound,
// bounds in increasing order; only it can answer SAFE.
type ExhaustiveSearch struct {
	Bound int
	Budget
	// Reduction selects the state-space reduction (default ReduceFull).
	Reduction Reduction
	// NoSymmetry turns off the task symmetry of the visited set
	// (Options.NoSymmetry).
	NoSymmetry bool
	// POR turns on the sleep sets of commuting visible steps
	// (Options.POR).
	POR bool
	// Workers: goroutines that search (default all CPUs); the result does
	// not depend on it.
	Workers int
	// Shard and Exchange split the space between processes (Options.Shard,
	// Options.Exchange).
	Shard    Shard
	Exchange string
	Reporting
}

// PCTSearch samples Runs runs by probabilistic concurrency testing,
// targeting bugs of depth Depth; it never answers SAFE.
type PCTSearch struct {
	Bound       int
	Runs, Depth int
	Seed        uint64
	Budget
	Workers int
	Reporting
}

// RandomSearch samples Runs runs that pick every option uniformly; it
// never answers SAFE.
type RandomSearch struct {
	Bound int
	Runs  int
	Seed  uint64
	Budget
	Workers int
	Reporting
}

func (b Budget) into(o *Options) {
	o.MaxStates, o.Timeout, o.Start, o.MaxMemory, o.Context = b.MaxStates, b.Timeout, b.Start, b.MaxMemory, b.Context
}

// Options returns s as the Options of Check.
func (s ExhaustiveSearch) Options() Options {
	o := Options{Search: Exhaustive, Bound: s.Bound, Reduction: s.Reduction, NoSymmetry: s.NoSymmetry, POR: s.POR, Workers: s.Workers, Shard: s.Shard, Exchange: s.Exchange,
		Progress: s.Progress, ProgressEvery: s.Every}
	s.Budget.into(&o)
	return o
}

// Options returns s as the Options of Check.
func (s PCTSearch) Options() Options {
	o := Options{Search: PCT, Bound: s.Bound, Runs: s.Runs, Depth: s.Depth, Seed: s.Seed, Workers: s.Workers,
		Progress: s.Progress, ProgressEvery: s.Every}
	s.Budget.into(&o)
	return o
}

// Options returns s as the Options of Check.
func (s RandomSearch) Options() Options {
	o := Options{Search: Random, Bound: s.Bound, Runs: s.Runs, Seed: s.Seed, Workers: s.Workers,
		Progress: s.Progress, ProgressEvery: s.Every}
	s.Budget.into(&o)
	return o
}

// Check runs the search on sc.
func (s ExhaustiveSearch) Check(sc Scenario) (*Result, error) { return Check(sc, s.Options()) }

// Check runs the search on sc.
func (s PCTSearch) Check(sc Scenario) (*Result, error) { return Check(sc, s.Options()) }

// Check runs the search on sc.
func (s RandomSearch) Check(sc Scenario) (*Result, error) { return Check(sc, s.Options()) }
