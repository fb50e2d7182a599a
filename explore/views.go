package explore

import (
	"sync"

	"github.com/mcountsim/mcountsim/sched"
)

// views is the index of older views of one bound's search (the package
// doc, "Older views"): per floor-free key (sched.Machine.HashFloorFree
// with the preemptions used), the floors of the states claimed with it,
// none of them at most another's (a claimed state whose floors are all at
// most some recorded ones takes their place). Cut into 256 locked parts
// like the visited set.
type views struct {
	parts [256]viewPart
}

type viewPart struct {
	mu sync.Mutex
	// t maps a floor-free key to 1 + the index in arena of its first
	// entry. An entry is a header, 1 + the index of the next entry (0:
	// none) << 32 | its length, and then that many floors; an entry left
	// out of its list stays in the arena.
	t     table
	arena []uint64
	_     [64]byte
}

func newViews() *views {
	v := &views{}
	for i := range v.parts {
		v.parts[i].t.init(minTableBits - 4)
	}
	return v
}

// older reports whether a state with floor-free key k and floors f
// (sorted entries, HashFloorFree's) is pruned: some state claimed with k
// has floors all at most f's. Otherwise it records f, dropping the
// entries whose floors f's are all at most.
func (v *views) older(k key, f []uint64) bool {
	p := &v.parts[k[1]>>56]
	p.mu.Lock()
	defer p.mu.Unlock()
	e, k, ok := p.t.find(k)
	head := -1
	if ok {
		head = int(e.v) - 1
		for i := head; i >= 0; i = int(p.arena[i]>>32) - 1 {
			if sched.OlderViews(p.entry(i), f) {
				return true
			}
		}
		// The entries f is older than leave the list.
		prev := -1
		for i := head; i >= 0; {
			next := int(p.arena[i]>>32) - 1
			switch {
			case !sched.OlderViews(f, p.entry(i)):
				prev = i
			case prev < 0:
				head = next
			default:
				p.arena[prev] = uint64(next+1)<<32 | uint64(uint32(p.arena[prev]))
			}
			i = next
		}
	}
	at := len(p.arena)
	p.arena = append(p.arena, uint64(head+1)<<32|uint64(len(f)))
	p.arena = append(p.arena, f...)
	if ok {
		e.v = int32(at + 1)
	} else {
		p.t.fill(e, k, int32(at+1))
	}
	return false
}

// entry returns the floors of the entry at arena index i.
func (p *viewPart) entry(i int) []uint64 {
	return p.arena[i+1 : i+1+int(uint32(p.arena[i]))]
}
