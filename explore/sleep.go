package explore

import (
	"github.com/mcountsim/mcountsim/sched"
)

// Sleep sets: the partial-order reduction of visible steps (package doc,
// "Sleep sets"). At a branching state s the options are named (the name
// of the CPU or task they act on, as Hash names them, the kind, the task
// they switch to and the fetch variant: names that do not depend on how
// CPUs and workers are numbered) and their footprints taken
// (sched.Machine.Footprint). The child of option a sleeps on every option
// b of s whose name is smaller than a's and which commutes with a: the
// branching state the child reaches does not take b, since s -b-> -a->
// reaches the same state. A state reached several times takes each
// option that some arrival does not sleep on, once: the visited set keeps
// per state the options no arrival has taken yet (shared.claimAsleep).

// maxNames bounds the distinct option names of a state the sleep sets
// apply at (a state with more takes every option).
const maxNames = 32

// sleepScratch is what one branching state's options are: their names,
// the index of each name among the state's distinct names (sorted), their
// footprints.
type sleepScratch struct {
	name   []uint64
	idx    []int8
	uniq   []uint64
	fp     []sched.Footprint
	on     bool // the sleep sets apply here
	asleep uint32
	known  uint64         // the footprints taken (a bit per option)
	m      *sched.Machine // the state, until its first child is taken
}

func (w *worker) scratch(depth int) *sleepScratch {
	for len(w.scr) <= depth {
		w.scr = append(w.scr, &sleepScratch{})
	}
	return w.scr[depth]
}

// actionName names option a of m, after m.Hash.
func actionName(m *sched.Machine, a sched.Action, cpus *[sched.MaxCPUs]uint64, tasks *[sched.MaxTasks]uint64) uint64 {
	x := cpus[a.CPU]
	var t uint64
	switch {
	case a.Kind != sched.ActPick && a.Kind != sched.ActPreempt:
		// Task means nothing in a run or an IPI.
	case a.Task >= 0:
		t = tasks[a.Task]
	default:
		t = uint64(uint8(a.Task))
	}
	h := mix64(x ^ uint64(a.Kind)<<56 ^ uint64(a.Fetch)<<40 ^ uint64(a.Load)<<24)
	return mix64(h + t)
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// prepare fills the scratch of depth for m's options opts (m.Hash was
// just computed). Footprints are taken when first needed (footprint).
func (w *worker) prepare(m *sched.Machine, depth int, opts []sched.Action) *sleepScratch {
	s := w.scratch(depth)
	s.on = false
	s.asleep = 0
	if !w.e.por || len(opts) > 64 {
		return s
	}
	cpus, tasks := m.Names()
	s.m = m
	s.name, s.fp, s.idx, s.uniq = s.name[:0], s.fp[:0], s.idx[:0], s.uniq[:0]
	for _, a := range opts {
		n := actionName(m, a, &cpus, &tasks)
		s.name = append(s.name, n)
		s.fp = append(s.fp, sched.Footprint{})
		s.idx = append(s.idx, -1)
		// uniq: the distinct names, sorted (insertion: a handful).
		i := len(s.uniq)
		for i > 0 && s.uniq[i-1] > n {
			i--
		}
		if i > 0 && s.uniq[i-1] == n {
			continue
		}
		s.uniq = append(s.uniq, 0)
		copy(s.uniq[i+1:], s.uniq[i:])
		s.uniq[i] = n
	}
	if len(s.uniq) > maxNames {
		return s
	}
	for i, n := range s.name {
		for j, u := range s.uniq {
			if u == n {
				s.idx[i] = int8(j)
				break
			}
		}
	}
	s.known = 0
	s.on = true
	return s
}

// footprint is the footprint of option i of the scratch's state.
func (s *sleepScratch) footprint(opts []sched.Action, i int) *sched.Footprint {
	if s.known>>i&1 == 0 {
		s.fp[i] = s.m.Footprint(opts[i])
		s.known |= 1 << i
	}
	return &s.fp[i]
}

// claim claims m's state, a branching state with options opts reached
// sleeping on sleep, in the visited set (only with the sleep sets on). It
// returns the options to take (a bit per option; every one when masked is
// false, take then being non-zero for a new state) and whether the state
// is new.
func (w *worker) claim(m *sched.Machine, depth int, opts []sched.Action, sleep []sched.Action) (take uint64, masked, first bool) {
	if w.e.opts.Reduction == ReduceNone {
		w.scratch(depth).on = false
		return 1, false, true
	}
	k := stateKey(m.Hash(), m.Preemptions()) // Hash also names (prepare)
	s := w.prepare(m, depth, opts)
	if !s.on {
		// Too many options or names: every option of a new state.
		if w.seen(m) {
			return 0, false, false
		}
		return 1, false, true
	}
	var asleep uint32
	for _, b := range sleep {
		for i, a := range opts {
			if a == b {
				asleep |= 1 << s.idx[i]
			}
		}
	}
	s.asleep = asleep
	names, first := w.e.tab.claimAsleep(k, asleep)

	// Of the steps of CPUs that share a name, the first stands for all
	// (a switch to a task is named without whether the task was
	// preempted, which Hash leaves out and the switch reads: every one is
	// taken).
	for i, a := range opts {
		if bit := uint32(1) << s.idx[i]; names&bit != 0 {
			take |= 1 << i
			if a.Kind == sched.ActRun {
				names &^= bit
			}
		}
	}
	return take, true, first
}

// childSleep returns what the child of option i of the branching state
// at depth sleeps on: the options of smaller name that commute with it.
func (w *worker) childSleep(depth, i int) []sched.Action {
	for len(w.sleeps) <= depth {
		w.sleeps = append(w.sleeps, nil)
	}
	w.sleeps[depth] = w.childSleepInto(w.sleeps[depth][:0], depth, i)
	return w.sleeps[depth]
}

// childSleepInto appends what the child of option i of the branching
// state at depth sleeps on to out.
func (w *worker) childSleepInto(out []sched.Action, depth, i int) []sched.Action {
	s := w.scratch(depth)
	if s.on {
		opts := w.bufs[depth]
		for j, b := range opts {
			if s.name[j] < s.name[i] && b.CPU != opts[i].CPU && sched.Independent(opts[i].CPU, *s.footprint(opts, i), b.CPU, *s.footprint(opts, j)) {
				out = append(out, b)
			}
		}
	}
	return out
}
