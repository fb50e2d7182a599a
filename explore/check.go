package explore

import (
	"context"
	"fmt"
	"time"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/sched"
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
	// Bound is the preemption bound (default 2 via DefaultBound; set
	// NoBoundDefault to search with bound 0).
	Bound int
	// MaxStates stops the search (INCOMPLETE) after this many distinct
	// states (0: no limit).
	MaxStates int
	// Timeout stops the search (INCOMPLETE) after this long (0: none).
	Timeout time.Duration
	// Reduction selects the state-space reduction (default ReduceFull).
	// The weaker ones exist to test the stronger: only small scenarios
	// finish without them.
	Reduction Reduction
	// Context, when set, cancels the search (INCOMPLETE).
	Context context.Context
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
	"partial-order reduction of thread-local steps + visited-state set (128-bit hashes, fewest preemptions kept per state)",
	"visited-state set (128-bit hashes, fewest preemptions kept per state)",
	"none",
}

func (r Reduction) String() string {
	if int(r) < len(reductionNames) {
		return reductionNames[r]
	}
	return fmt.Sprintf("Reduction(%d)", r)
}

func (r Reduction) por() bool { return r == ReduceFull }

// DefaultBound is the preemption bound of model.md.
const DefaultBound = 2

// Space says what a search covered.
type Space struct {
	Scenario    string `json:"scenario"`
	Bound       int    `json:"bound"`
	Preempt     string `json:"preempt"`
	CPUs        int    `json:"cpus"`
	Tasks       int    `json:"tasks"`
	Iterations  int    `json:"iterations"`
	Toggles     int    `json:"toggles"`
	Functions   int    `json:"functions"`
	Exhaustive  bool   `json:"exhaustive"`
	Reduction   string `json:"reduction"`
	BoundsDone  int    `json:"bounds_done"` // bounds 0..BoundsDone-1 were exhausted
	Description string `json:"description"`
}

// Result is the outcome of Check or Replay.
type Result struct {
	Mode        string          `json:"mode"` // "check" or "replay"
	Verdict     Verdict         `json:"verdict"`
	Space       Space           `json:"space"`
	States      int             `json:"states"`      // distinct states visited
	Transitions int             `json:"transitions"` // steps taken by the search
	Runs        int             `json:"runs"`        // runs that reached their end
	Hazard      *detect.Hazard  `json:"hazard,omitempty"`
	Hazards     []detect.Hazard `json:"hazards,omitempty"` // every hazard of the replayed run
	Schedule    string          `json:"schedule"`
	Preemptions int             `json:"preemptions"`
	Steps       int             `json:"steps"` // length of the replayed run
	Reason      string          `json:"reason,omitempty"`
	Elapsed     time.Duration   `json:"elapsed_ns"`
	Replay      *Run            `json:"run,omitempty"`
}

type searcher struct {
	opts      Options
	sc        Scenario
	visited   map[[2]uint64]int8
	states    int
	trans     int
	runs      int
	deadline  time.Time
	stop      string // why the search stopped early
	found     []int32
	path      []int32
	pool      []*sched.Machine
	bufs      [][]sched.Action
	checkN    int
	best      []int32
	depthSeen map[[2]uint64]int32
}

// Check explores sc within opts and returns the verdict.
func Check(sc Scenario, opts Options) (*Result, error) {
	sc = sc.WithDefaults()
	start := time.Now()
	if opts.Bound < 0 {
		return nil, fmt.Errorf("bound must be >= 0, got %d", opts.Bound)
	}
	if _, err := sc.Build(opts.Bound, false, !opts.Reduction.por()); err != nil {
		return nil, err
	}
	res := &Result{Mode: "check", Space: space(sc, opts)}
	s := &searcher{opts: opts, sc: sc}
	if opts.Timeout > 0 {
		s.deadline = start.Add(opts.Timeout)
	}
	for b := 0; b <= opts.Bound; b++ {
		m, err := sc.Build(b, false, !opts.Reduction.por())
		if err != nil {
			return nil, err
		}
		s.visited = map[[2]uint64]int8{}
		s.path = s.path[:0]
		s.dfs(m, 0)
		if s.found != nil {
			res.Space.BoundsDone = b
			s.minimize(m0(sc, b, opts))
			break
		}
		if s.stop != "" {
			res.Reason = fmt.Sprintf("%s: exhaustive through bound %d; bound %d not finished", s.stop, b-1, b)
			if b == 0 {
				res.Reason = fmt.Sprintf("%s during bound 0", s.stop)
			}
			break
		}
		res.Space.BoundsDone = b + 1
	}
	res.States, res.Transitions, res.Runs = s.states, s.trans, s.runs
	switch {
	case s.found != nil:
		res.Verdict = Unsafe
		res.Schedule = fromPath(s.found).String()
		run, err := replay(sc, fromPath(s.found), opts.Bound, true, !opts.Reduction.por())
		if err != nil {
			return nil, fmt.Errorf("internal error: counterexample does not replay: %v", err)
		}
		res.Replay = run
		res.Hazards = run.Hazards
		if len(run.Hazards) > 0 {
			h := run.Hazards[0]
			res.Hazard = &h
		}
		res.Preemptions, res.Steps = run.Preemptions, run.Steps
	case s.stop != "":
		res.Verdict = Incomplete
	default:
		res.Verdict = Safe
		res.Space.Exhaustive = true
	}
	res.Space.Description = describe(res)
	res.Elapsed = time.Since(start)
	return res, nil
}

func space(sc Scenario, opts Options) Space {
	red := opts.Reduction.String()
	return Space{
		Scenario: sc.String(), Bound: opts.Bound, Preempt: sc.Preempt.String(), CPUs: sc.CPUs, Tasks: sc.Tasks,
		Iterations: sc.Iterations, Toggles: sc.Toggles, Functions: sc.Functions, Reduction: red,
	}
}

func describe(r *Result) string {
	sp := r.Space
	base := fmt.Sprintf("preemption bound %d, preempt %s, %d cpus, %d tasks, %d iterations, %d toggles",
		sp.Bound, sp.Preempt, sp.CPUs, sp.Tasks, sp.Iterations, sp.Toggles)
	switch r.Verdict {
	case Safe:
		return "every schedule within " + base + " (exhaustive)"
	case Unsafe:
		return fmt.Sprintf("a hazard within %s, found with %d preemption(s)", base, r.Preemptions)
	}
	return "not exhausted: " + base + "; " + r.Reason
}

// budget reports whether the search must stop.
func (s *searcher) budget() bool {
	if s.stop != "" {
		return true
	}
	if s.opts.MaxStates > 0 && s.states >= s.opts.MaxStates {
		s.stop = fmt.Sprintf("state budget of %d used up", s.opts.MaxStates)
		return true
	}
	s.checkN++
	if s.checkN&1023 == 0 {
		if !s.deadline.IsZero() && time.Now().After(s.deadline) {
			s.stop = fmt.Sprintf("timeout of %v reached", s.opts.Timeout)
			return true
		}
		if s.opts.Context != nil && s.opts.Context.Err() != nil {
			s.stop = "cancelled"
			return true
		}
	}
	return false
}

func (s *searcher) machine(depth int) *sched.Machine {
	for len(s.pool) <= depth {
		s.pool = append(s.pool, nil)
	}
	if s.pool[depth] == nil {
		s.pool[depth] = &sched.Machine{}
	}
	return s.pool[depth]
}

func (s *searcher) options(depth int, m *sched.Machine) []sched.Action {
	for len(s.bufs) <= depth {
		s.bufs = append(s.bufs, make([]sched.Action, 0, 16))
	}
	s.bufs[depth] = m.Options(s.bufs[depth])
	return s.bufs[depth]
}

// seen reports whether m's state was already explored with at most as many
// preemptions used, and records it otherwise.
func (s *searcher) seen(m *sched.Machine) bool {
	if s.opts.Reduction == ReduceNone {
		s.states++
		return false
	}
	h := m.Hash()
	p := int8(m.Preemptions())
	if old, ok := s.visited[h]; ok && old <= p {
		return true
	}
	s.visited[h] = p
	s.states++
	return false
}

// dfs explores every continuation of m (owned by this depth). It follows
// single-option steps in place and branches where there is a choice.
func (s *searcher) dfs(m *sched.Machine, depth int) {
	for {
		if s.found != nil || s.budget() {
			return
		}
		opts := s.options(depth, m)
		if len(opts) == 0 {
			if !m.Done() {
				// Nothing can run but the run is not over: a deadlock.
				m.Deadlock()
				s.found = append([]int32(nil), s.path...)
				return
			}
			s.runs++
			return
		}
		if len(opts) == 1 {
			// No choice here: step in place. The visited set is consulted
			// only where the search branches; merges happen there.
			m.Apply(opts[0])
			s.trans++
			s.path = append(s.path, 0)
			if len(m.Hazards()) > 0 {
				s.found = append([]int32(nil), s.path...)
				return
			}
			continue
		}
		// The visited set is consulted where the search branches: runs
		// that merge meet again at the next choice.
		if s.seen(m) {
			return
		}
		mark := len(s.path)
		for i := range opts {
			child := s.machine(depth + 1)
			child.CopyFrom(m)
			child.Apply(s.bufs[depth][i])
			s.trans++
			s.path = append(s.path[:mark], int32(i))
			if len(child.Hazards()) > 0 {
				s.found = append([]int32(nil), s.path...)
				return
			}
			s.dfs(child, depth+1)
			if s.found != nil || s.stop != "" {
				return
			}
		}
		return
	}
}

func m0(sc Scenario, bound int, opts Options) *sched.Machine {
	m, _ := sc.Build(bound, false, !opts.Reduction.por())
	return m
}

// minimize looks for a shorter counterexample than s.found with the same
// preemption bound: a depth-first branch and bound in which a state is
// revisited only when reached in fewer steps (states are keyed with their
// preemptions used, so a shorter path that used more preemptions does not
// hide a longer one that used fewer). The search budget applies; when it
// runs out the best counterexample so far stands.
func (s *searcher) minimize(m *sched.Machine) {
	if s.opts.Reduction == ReduceNone || m == nil {
		return
	}
	s.best = s.found
	s.found = nil
	s.depthSeen = map[[2]uint64]int32{}
	s.path = s.path[:0]
	s.dfsMin(m, 0)
	s.found = s.best
	s.depthSeen = nil
}

func (s *searcher) dfsMin(m *sched.Machine, depth int) {
	for {
		if s.stop != "" || len(s.path) >= len(s.best)-1 || s.budget() {
			return
		}
		opts := s.options(depth, m)
		if len(opts) == 0 {
			return
		}
		mark := len(s.path)
		if len(opts) == 1 {
			m.Apply(opts[0])
			s.trans++
			s.path = append(s.path, 0)
			if len(m.Hazards()) > 0 {
				s.best = append([]int32(nil), s.path...)
				return
			}
			if s.seenAt(m) {
				return
			}
			continue
		}
		for i := range opts {
			if len(s.path[:mark]) >= len(s.best)-1 {
				return
			}
			child := s.machine(depth + 1)
			child.CopyFrom(m)
			child.Apply(s.bufs[depth][i])
			s.trans++
			s.path = append(s.path[:mark], int32(i))
			if len(child.Hazards()) > 0 {
				s.best = append([]int32(nil), s.path...)
				continue
			}
			if !s.seenAt(child) {
				s.dfsMin(child, depth+1)
			}
		}
		return
	}
}

// seenAt reports whether m's state (with its preemptions used) was already
// reached in as few steps, and records the step count otherwise.
func (s *searcher) seenAt(m *sched.Machine) bool {
	h := m.Hash()
	h[1] ^= uint64(m.Preemptions()) * 0x9e3779b97f4a7c15
	d := int32(m.Steps())
	if old, ok := s.depthSeen[h]; ok && old <= d {
		return true
	}
	s.depthSeen[h] = d
	return false
}
