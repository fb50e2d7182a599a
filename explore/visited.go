package explore

import "sync"

// table is the visited set of one search: an open-addressing hash table of
// 128-bit state hashes, each with a small value (the fewest preemptions a
// state was reached with, or the fewest steps), in flat arrays. The state
// hashes are already well mixed, so the low bits of the first lane index
// the table directly. A zero key marks an empty slot; the one state whose
// hash is zero is moved to another key (a 2^-128 event that changes nothing).
type table struct {
	slots []slot
	n     int
	mask  uint64
}

type key = [2]uint64

// slot keeps key and value together: one cache line per probe.
type slot struct {
	k key
	v int32
}

const minTableBits = 10

// entryBytes is the memory one slot costs.
const entryBytes = 24

func (t *table) init(bits int) {
	if bits < 6 {
		bits = 6
	}
	t.slots = make([]slot, 1<<bits)
	t.mask = 1<<bits - 1
	t.n = 0
}

// reset empties t for the next search, shrinking it when the last search
// used little of it (so that clearing costs no more than filling did).
func (t *table) reset() {
	switch {
	case t.slots == nil:
		t.init(minTableBits)
	case t.n < len(t.slots)/16 && len(t.slots) > 1<<minTableBits:
		bits := minTableBits
		for 1<<bits < 4*t.n {
			bits++
		}
		t.init(bits)
	default:
		clear(t.slots)
		t.n = 0
	}
}

// bytes is the memory the table holds.
func (t *table) bytes() int64 { return int64(len(t.slots)) * entryBytes }

// visit records k with value v unless it is present with a value <= v;
// it reports whether it was present so (the caller then prunes).
func (t *table) visit(k key, v int32) bool {
	e, k, ok := t.find(k)
	switch {
	case !ok:
		t.fill(e, k, v)
	case e.v <= v:
		return true
	default:
		e.v = v
	}
	return false
}

// find returns k's slot and whether k is there; an absent k's slot is the
// free one it would take. The zero key is stored as another (k is returned
// as stored).
func (t *table) find(k key) (*slot, key, bool) {
	if k == (key{}) {
		k[0] = 1
	}
	i := k[0] & t.mask
	for {
		e := &t.slots[i]
		switch e.k {
		case k:
			return e, k, true
		case key{}:
			return e, k, false
		}
		i = (i + 1) & t.mask
	}
}

// fill stores k with value v in the free slot e that find returned (e is
// stale after the call: the table may grow).
func (t *table) fill(e *slot, k key, v int32) {
	e.k, e.v = k, v
	t.n++
	if 4*t.n > 3*len(t.slots) {
		t.grow()
	}
}

func (t *table) grow() {
	old := t.slots
	bits := 0
	for 1<<bits < 2*len(old) {
		bits++
	}
	t.init(bits)
	for _, e := range old {
		if e.k != (key{}) {
			j := e.k[0] & t.mask
			for t.slots[j].k != (key{}) {
				j = (j + 1) & t.mask
			}
			t.slots[j] = e
			t.n++
		}
	}
}

// shared is the visited set of a parallel search: the 128-bit key space is
// cut into 256 parts by the top byte of the second lane, each a table with
// its own lock. Keys are states together with the preemptions they were
// reached with, so that every (state, preemptions) pair is expanded exactly
// once, by whichever worker claims it first: the work done, and with it
// every count, is then the same for any number of workers and any timing.
type shared struct {
	parts [256]part
}

type part struct {
	mu sync.Mutex
	t  table
	_  [64]byte // keep the locks of neighbouring parts off one cache line
}

func newShared() *shared {
	s := &shared{}
	for i := range s.parts {
		s.parts[i].t.init(minTableBits - 4)
	}
	return s
}

// claim records k and reports whether it was new.
func (s *shared) claim(k key) bool {
	p := &s.parts[k[1]>>56]
	p.mu.Lock()
	old := p.t.visit(k, 0)
	p.mu.Unlock()
	return !old
}

// claimAsleep records k, reached with the options whose bits are in
// asleep not to be taken (sleep.go): the value of a key is the set of
// options no arrival has taken yet. It returns the options this arrival
// must take (those asleep at every earlier arrival but not at this one;
// all that are awake at the first) and whether k was new.
func (s *shared) claimAsleep(k key, asleep uint32) (take uint32, first bool) {
	p := &s.parts[k[1]>>56]
	p.mu.Lock()
	take, first = p.t.asleep(k, asleep)
	p.mu.Unlock()

	return take, first
}

// asleep is claimAsleep on one table.
func (t *table) asleep(k key, asleep uint32) (uint32, bool) {
	e, k, ok := t.find(k)
	if !ok {
		t.fill(e, k, int32(asleep))
		return ^asleep, true
	}
	was := uint32(e.v)
	e.v = int32(was & asleep)
	return was &^ asleep, false
}

// bytes is the memory the set holds.
func (s *shared) bytes() int64 {
	var n int64
	for i := range s.parts {
		p := &s.parts[i]
		p.mu.Lock()
		n += p.t.bytes()
		p.mu.Unlock()
	}
	return n
}

// stateKey is the key of m's state with its preemptions used.
func stateKey(h [2]uint64, preemptions int) key {
	h[1] ^= uint64(preemptions+1) * 0x9e3779b97f4a7c15
	return h
}

// recent is a worker's small direct-mapped memory of the keys it met in a
// visited set (a shared table, or the index of older views that stands
// for one), claimed by it or found there: most keys a search meets again
// it met a few branching points earlier (the two orders of two steps that
// commute meet at once), and a hit here answers without the lock and the
// cache miss of the set. It only ever holds keys of states the set prunes
// (a key is recorded when its state is claimed, found or pruned, and the
// set never forgets one within a bound), so its answer, "present", is the
// set's: the search, and every count, is what it is without it. It
// belongs to one set: met with another (the next bound's), it starts
// empty.
type recent struct {
	of   any // the *shared or *views the keys are of
	keys []key
}

// recentBits sizes recent: 2^16 keys, 1 MiB.
const recentBits = 16

// has reports whether k, a key of set s, is in r.
func (r *recent) has(s any, k key) bool {
	if r.of != s {
		if r.keys == nil {
			r.keys = make([]key, 1<<recentBits)
		} else {
			clear(r.keys)
		}
		r.of = s
		return false
	}
	return k != (key{}) && r.keys[k[1]&(1<<recentBits-1)] == k
}

// add records k, which is (or is about to be) in r's set.
func (r *recent) add(k key) { r.keys[k[1]&(1<<recentBits-1)] = k }
