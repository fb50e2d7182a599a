package explore

import (
	"slices"
	"sync"

	"github.com/mcountsim/mcountsim/sched"
)

// views is the index of older views of one bound's search (the package
// doc, "Older views"): per floor-free key (sched.Machine.HashFloorFree
// with the preemptions used), the floors of the states claimed with it,
// none of them at most another's (a claimed state whose floors are all at
// most some recorded ones takes their place). It is the bound's visited
// set too (engine.tab is then nil). Cut into 256 locked parts like the
// table of a visited set (shared).
type views struct {
	parts [256]viewPart
}

type viewPart struct {
	mu sync.Mutex
	// t maps a floor-free key to 1 + the index of its first entry. An
	// entry is a header, 1 + the index of the next entry (0: none) << 32
	// | its length, and then that many floors; an entry left out of its
	// list stays where it is.
	t table
	// chunks hold the entries, never moved once written: the index of an
	// entry is its chunk << chunkBits | its offset there. The first
	// chunk grows as a slice does up to chunkWords (a small search
	// allocates little); after it each is chunkWords long, or as long as
	// an entry longer than that, which then has a chunk of its own.
	chunks [][]uint64
	_      [64]byte
}

// chunkBits sizes the chunks of a viewPart: 4,096 words, 32 KiB.
const (
	chunkBits  = 12
	chunkWords = 1 << chunkBits
	// maxChunks keeps every index and 1 + it below 2^31 (an int32 in
	// the table, 32 bits in a header): 16 GiB of entries per part.
	maxChunks = 1<<(31-chunkBits) - 1
)

func newViews() *views {
	v := &views{}
	for i := range v.parts {
		v.parts[i].t.init(minTableBits - 4)
	}
	return v
}

// A verdict of views.older.
type viewsVerdict uint8

const (
	viewsNew   viewsVerdict = iota // recorded: the state is to be expanded
	viewsSame                      // a state with these floors was claimed
	viewsOlder                     // pruned by older floors than its own
)

// older reports whether a state with floor-free key k and floors f
// (sorted entries, HashFloorFree's) is pruned: some state claimed with k
// has floors all at most f's (the same floors: viewsSame). Otherwise it
// records f, dropping the entries whose floors f's are all at most. An
// entry is dropped only for one whose floors are all at most its own, so
// a state once claimed is pruned ever after: the index is a visited set.
func (v *views) older(k key, f []uint64) viewsVerdict {
	p := &v.parts[k[1]>>56]
	p.mu.Lock()
	defer p.mu.Unlock()
	e, k, ok := p.t.find(k)
	head := -1
	if ok {
		head = int(e.v) - 1
		for i := head; i >= 0; i = p.next(i) {
			if old := p.entry(i); sched.OlderViews(old, f) {
				if slices.Equal(old, f) {
					return viewsSame
				}
				return viewsOlder
			}
		}
	}
	if len(p.chunks) >= maxChunks {
		// No index is left for another entry (16 GiB of them in this
		// part): the state is expanded unrecorded, which prunes less,
		// soundly.
		return viewsNew
	}
	if ok {
		// The entries f is older than leave the list.
		prev := -1
		for i := head; i >= 0; {
			next := p.next(i)
			switch {
			case !sched.OlderViews(f, p.entry(i)):
				prev = i
			case prev < 0:
				head = next
			default:
				h := p.header(prev)
				*h = uint64(next+1)<<32 | uint64(uint32(*h))
			}
			i = next
		}
	}
	at := p.add(head, f)
	if ok {
		e.v = int32(at + 1)
	} else {
		p.t.fill(e, k, int32(at+1))
	}
	return viewsNew
}

// add stores an entry of floors f whose next entry is head, and returns
// its index.
func (p *viewPart) add(head int, f []uint64) int {
	n := 1 + len(f)
	last := len(p.chunks) - 1
	switch {
	case last < 0:
		p.chunks = append(p.chunks, make([]uint64, 0, max(64, n)))
		last = 0
	case len(p.chunks[last])+n > chunkWords:
		p.chunks = append(p.chunks, make([]uint64, 0, max(chunkWords, n)))
		last++
	}
	c := p.chunks[last]
	at := last<<chunkBits | len(c)
	c = append(c, uint64(head+1)<<32|uint64(len(f)))
	p.chunks[last] = append(c, f...)
	return at
}

// entry returns the floors of the entry at index i.
func (p *viewPart) entry(i int) []uint64 {
	c, o := p.chunks[i>>chunkBits], i&(chunkWords-1)
	return c[o+1 : o+1+int(uint32(c[o]))]
}

// header returns the header of the entry at index i.
func (p *viewPart) header(i int) *uint64 { return &p.chunks[i>>chunkBits][i&(chunkWords-1)] }

// next returns the index of the entry after the one at index i, or -1.
func (p *viewPart) next(i int) int { return int(*p.header(i)>>32) - 1 }

// bytes is the memory the index holds.
func (v *views) bytes() int64 {
	var n int64
	for i := range v.parts {
		p := &v.parts[i]
		p.mu.Lock()
		n += p.t.bytes()
		for _, c := range p.chunks {
			n += int64(cap(c)) * 8
		}
		p.mu.Unlock()
	}
	return n
}

// floorsKey is a key of a state's floor-free key k and its floors f
// together: the state's own, for a worker's recent keys.
func floorsKey(k key, f []uint64) key {
	for _, x := range f {
		k[0] = mix64(k[0] ^ x)
		k[1] = mix64(k[1] + x*0x9e3779b97f4a7c15)
	}
	return k
}
