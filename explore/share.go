package explore

import (
	"sync"
	"sync/atomic"

	"github.com/mcountsim/mcountsim/sched"
)

// Load balancing inside subtrees (package doc, "Parallel search"): the
// frontier's subtrees are very uneven (a few hold most of a bound), so a
// worker that runs out of them asks for work, and a busy worker, at its
// next branching point, hands over untried options of the oldest
// branching state on its depth-first stack that has any. Each handed-over
// option is a piece: the path from the initial state to it and what its
// state sleeps on, searched like a frontier item. The donor does the
// split itself, between two of its own steps, so no machine, stack or
// buffer is ever read by another goroutine.

// piece is a unit of work of a bound's parallel search: a frontier item,
// or part of one that a busy worker handed over.
type piece struct {
	it     item
	origin int // the frontier item (an index into the pool's left) it is part of
}

// pool is the work of one bound's parallel search: the frontier's items,
// taken in order, then the pieces that busy workers split off for idle
// ones.
type pool struct {
	// want is non-zero while a worker waits and no piece is queued for
	// it; busy workers read it at every branching point.
	want atomic.Int32
	_    [60]byte

	mu     sync.Mutex
	cond   sync.Cond
	items  []item
	mine   []int // the items of this search (a shard's), in order
	next   int   // the next of mine to hand out
	extra  []piece
	busy   int  // workers holding a piece
	hungry int  // workers waiting for one
	over   bool // no more work: every worker returns
	stop   func() bool
	always bool // split at every branching point (Options.splitAlways)
	// left counts, per item of mine, its pieces not yet searched to the
	// end (the item itself, then one more per piece split off it): an item
	// is done when its count reaches 0.
	left []atomic.Int32
}

func newPool(items []item, mine []int, workers int, always bool, stop func() bool) *pool {
	p := &pool{items: items, mine: mine, busy: workers, always: always, stop: stop, left: make([]atomic.Int32, len(mine))}
	p.cond.L = &p.mu
	if always {
		p.want.Store(1)
	}
	for i := range p.left {
		p.left[i].Store(1)
	}
	return p
}

// take returns the next piece for a worker that finished its last one (or
// starts), waiting while other workers are busy and may split theirs; ok
// is false when the search is over (all done, or stopped).
func (p *pool) take() (pc piece, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy--
	for {
		switch {
		case p.over || p.stop():
			p.over = true
			p.cond.Broadcast()
			return piece{}, false
		case p.next < len(p.mine):
			k := p.next
			p.next++
			p.busy++
			return piece{it: p.items[p.mine[k]], origin: k}, true
		case len(p.extra) > 0:
			// The newest first: pieces split off one branching state
			// come in option order, and a worker takes them as the
			// donor would have.
			pc = p.extra[len(p.extra)-1]
			p.extra[len(p.extra)-1] = piece{}
			p.extra = p.extra[:len(p.extra)-1]
			p.busy++
			p.signal()
			return pc, true
		case p.busy == 0:
			// Nobody holds work that could be split: all is done.
			p.over = true
			p.cond.Broadcast()
			return piece{}, false
		}
		p.hungry++
		p.signal()
		p.cond.Wait()
		p.hungry--
		p.signal()
	}
}

// signal sets want (p.mu held).
func (p *pool) signal() {
	var v int32
	if p.hungry > len(p.extra) || p.always && !p.over {
		v = 1
	}
	if p.want.Load() != v {
		p.want.Store(v)
	}
}

// halt ends the search for every worker (a hazard was found).
func (p *pool) halt() {
	p.mu.Lock()
	p.over = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// give queues pieces split off the piece of origin (-1: no frontier
// item, in the exchanged split).
func (p *pool) give(pcs []piece, origin int) {
	p.mu.Lock()
	if origin >= 0 {
		p.left[origin].Add(int32(len(pcs)))
	}
	// Reversed: take pops the newest, which is then the first option.
	for i := len(pcs) - 1; i >= 0; i-- {
		p.extra = append(p.extra, pcs[i])
	}
	p.signal()
	p.cond.Broadcast()
	p.mu.Unlock()
}

// finished records that a piece of origin was searched to the end and
// reports whether that completed its item.
func (p *pool) finished(origin int) bool { return origin >= 0 && p.left[origin].Add(-1) == 0 }

// frame is one branching state on a worker's depth-first stack: where its
// path ends, the options it takes (take, when masked) and the one being
// searched; options after cur up to last are still to be taken.
type frame struct {
	mark      int
	cur, last int
	take      uint64
	masked    bool
	// ord, when set, is the order the options are taken in (worker.order):
	// cur and last count in it.
	ord []int32
}

// opt is the option taken n-th.
func (f *frame) opt(n int) int {
	if f.ord == nil {
		return n
	}
	return int(f.ord[n])
}

func (w *worker) frame(depth int) *frame {
	for len(w.frames) <= depth {
		w.frames = append(w.frames, &frame{})
	}
	return w.frames[depth]
}

// untried lists the places (in the order the options are taken) of the
// options of f after cur still to be taken.
func (f *frame) untried(out []int) []int {
	for j := f.cur + 1; j <= f.last; j++ {
		if !f.masked || f.take>>f.opt(j)&1 != 0 {
			out = append(out, j)
		}
	}
	return out
}

// donate splits work off this worker's stack (frames 0..depth) for the
// workers that wait: the second half of the untried options of the
// shallowest branching state that has any (which heads the largest
// subtrees left, as far as one can tell). Each becomes a piece; this
// worker no longer takes them. Counts stay exact: the step to each given
// child is counted here, as dfs would count it, and the state the child
// reaches is claimed by whoever searches the piece.
func (w *worker) donate(depth int) {
	for d := 0; d <= depth; d++ {
		f := w.frames[d]
		js := f.untried(w.spare[:0])
		w.spare = js
		if len(js) == 0 {
			continue
		}
		give := js[len(js)/2:]
		pcs := make([]piece, 0, len(give))
		for _, j := range give {
			path := make([]int32, f.mark+1)
			copy(path, w.path[:f.mark])
			path[f.mark] = int32(f.opt(j))
			var sleep []sched.Action
			if f.masked {
				sleep = w.childSleepInto(nil, d, f.opt(j))
			}
			pcs = append(pcs, piece{it: item{path: path, sleep: sleep}, origin: w.origin})
			w.pending[1]++
		}
		if kept := js[:len(js)/2]; len(kept) > 0 {
			f.last = kept[len(kept)-1]
		} else {
			f.last = f.cur
		}
		w.share.give(pcs, w.origin)
		return
	}
}
