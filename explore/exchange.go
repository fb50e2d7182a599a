package explore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcountsim/mcountsim/sched"
)

// The exchanged split of an exhaustive search (Options.Exchange): each of
// n shards owns the branching states whose key falls to it by hash and is
// the only one to expand them. A shard that reaches a branching state it
// does not own sends the path to it (the options from the initial state)
// to its owner, through files in a directory all shards see. Each bound
// is searched in rounds: in round r a shard expands the paths it received
// in round r-1 (and every state of its own it reaches from them), writes
// what it found for each other shard, and waits until every shard has
// finished round r. A bound is over when a round sends nothing.

// owner is the shard that owns key k among n.
func owner(k key, n int) int { return int((k[0] >> 40) % uint64(n)) }

// exchange is one shard's side of the file protocol.
type exchange struct {
	dir      string
	idx, n   int
	pollWait time.Duration
	// peerHazard: another shard found a hazard (this one stops).
	peerHazard bool
	slots      chan *xslot // the workers' machines, kept between rounds
}

// xslot is a worker with the initial state of its machine lineage, and
// the frontier's spare machines of that lineage.
type xslot struct {
	root *sched.Machine
	w    *worker
	free []*sched.Machine
}

func (x *exchange) name(b, r, from, to int) string {
	return filepath.Join(x.dir, fmt.Sprintf("b%d-r%d-%d-%d.paths", b, r, from, to))
}

func (x *exchange) doneName(b, r, from int) string {
	return filepath.Join(x.dir, fmt.Sprintf("b%d-r%d-%d.done", b, r, from))
}

// writeFile writes data to name atomically (a temporary file renamed).
func writeFile(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// encodePaths writes paths compactly: per path its length and the
// (gap, option) pairs of its non-zero options, as uvarints.
func encodePaths(paths [][]int32) []byte {
	var buf []byte
	buf = binary.AppendUvarint(buf, uint64(len(paths)))
	for _, p := range paths {
		nz := 0
		for _, o := range p {
			if o != 0 {
				nz++
			}
		}
		buf = binary.AppendUvarint(buf, uint64(len(p)))
		buf = binary.AppendUvarint(buf, uint64(nz))
		last := 0
		for i, o := range p {
			if o != 0 {
				buf = binary.AppendUvarint(buf, uint64(i-last))
				buf = binary.AppendUvarint(buf, uint64(o))
				last = i
			}
		}
	}
	return buf
}

// maxExchangedPath bounds a decoded path's length (a run is at most the
// machine's step budget long).
const maxExchangedPath = 1 << 26

func decodePaths(data []byte) ([][]int32, error) {
	bad := errors.New("malformed exchange file")
	rd := bytes.NewReader(data)
	n, err := binary.ReadUvarint(rd)
	if err != nil || n > uint64(len(data)) {
		return nil, bad
	}
	paths := make([][]int32, 0, n)
	for ; n > 0; n-- {
		l, err1 := binary.ReadUvarint(rd)
		nz, err2 := binary.ReadUvarint(rd)
		if err1 != nil || err2 != nil || l > maxExchangedPath || nz > l {
			return nil, bad
		}
		p := make([]int32, l)
		at := 0
		for ; nz > 0; nz-- {
			gap, err1 := binary.ReadUvarint(rd)
			o, err2 := binary.ReadUvarint(rd)
			if err1 != nil || err2 != nil || gap > l || o == 0 || o > 1<<20 {
				return nil, bad
			}
			at += int(gap)
			if at >= len(p) {
				return nil, bad
			}
			p[at] = int32(o)
		}
		paths = append(paths, p)
	}
	if rd.Len() != 0 {
		return nil, bad
	}
	return paths, nil
}

// status is what a shard says at the end of a round.
type status struct {
	sent   int64
	hazard bool
	stop   string
}

func (s status) encode() []byte {
	h := 0
	if s.hazard {
		h = 1
	}
	return []byte(fmt.Sprintf("%d %d %s\n", s.sent, h, s.stop))
}

func parseStatus(data []byte) (status, error) {
	line := strings.TrimSuffix(string(data), "\n")
	f := strings.SplitN(line, " ", 3)
	if len(f) != 3 {
		return status{}, errors.New("malformed status file")
	}
	sent, err1 := strconv.ParseInt(f[0], 10, 64)
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || sent < 0 || (h != 0 && h != 1) {
		return status{}, errors.New("malformed status file")
	}
	return status{sent: sent, hazard: h == 1, stop: f[2]}, nil
}

// endName marks a shard that finished its search.
func (x *exchange) endName(i int) string {
	return filepath.Join(x.dir, fmt.Sprintf("end-%d", i))
}

// check refuses a directory that holds the end of an earlier search.
func (x *exchange) check() error {
	st, err := os.Stat(x.dir)
	if err != nil {
		return fmt.Errorf("exchange directory: %v", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("exchange directory %s is not a directory", x.dir)
	}
	ends, _ := filepath.Glob(filepath.Join(x.dir, "end-*"))
	if len(ends) > 0 {
		return fmt.Errorf("exchange directory %s holds the files of a finished search (use an empty directory per search)", x.dir)
	}
	return nil
}

// outbox collects the paths a shard's workers send, per owner.
type outbox struct {
	mu  sync.Mutex
	out [][][]int32
}

func (o *outbox) add(to int, p [][]int32) {
	o.mu.Lock()
	o.out[to] = append(o.out[to], p...)
	o.mu.Unlock()
}

// exchanged searches bound b as shard idx of n, exchanging paths through
// x. It returns a hazard's path if this shard found one.
func (e *engine) exchanged(b int, x *exchange, res *Result) ([]int32, error) {
	e.sent = newShared()
	defer func() { e.sent = nil }()
	var inbox [][]int32
	if x.idx == 0 {
		inbox = [][]int32{{}} // the initial state
	}
	for r := 0; ; r++ {
		e.xout = &outbox{out: make([][][]int32, x.n)}
		e.done.Store(0)
		e.total.Store(int64(len(inbox)))
		sortPaths(inbox)
		f, err := e.searchPaths(b, inbox)
		if err != nil {
			return nil, err
		}
		var st status
		if f != nil {
			st.hazard = true
		} else if why := e.reason(); why != "" {
			st.stop = why
		} else {
			for to, ps := range e.xout.out {
				if to == x.idx {
					continue
				}
				if err := writeFile(x.name(b, r, x.idx, to), encodePaths(ps)); err != nil {
					return nil, fmt.Errorf("exchange: %v", err)
				}
				st.sent += int64(len(ps))
			}
		}
		if err := writeFile(x.doneName(b, r, x.idx), st.encode()); err != nil {
			return nil, fmt.Errorf("exchange: %v", err)
		}
		if f != nil {
			return f, nil
		}
		if st.stop != "" {
			return nil, nil
		}
		var sent int64
		for j := 0; j < x.n; j++ {
			sj, err := x.wait(e, b, r, j)
			if err != nil {
				return nil, err
			}
			if sj == nil { // our own budget ran out while waiting: say so
				stop := status{stop: e.reason()}
				if err := writeFile(x.doneName(b, r+1, x.idx), stop.encode()); err != nil {
					return nil, fmt.Errorf("exchange: %v", err)
				}
				return nil, nil
			}
			switch {
			case sj.hazard:
				x.peerHazard = true
				e.stop(fmt.Sprintf("shard %d/%d found a hazard within bound %d", j, x.n, b))
				return nil, nil
			case sj.stop != "":
				e.stop(fmt.Sprintf("shard %d/%d stopped (%s)", j, x.n, sj.stop))
				return nil, nil
			}
			sent += sj.sent
		}
		if r >= 2 {
			os.Remove(x.doneName(b, r-2, x.idx))
		}
		if sent == 0 {
			return nil, nil
		}
		inbox = inbox[:0]
		for j := 0; j < x.n; j++ {
			if j == x.idx {
				continue
			}
			name := x.name(b, r, j, x.idx)
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("exchange: %v", err)
			}
			ps, err := decodePaths(data)
			if err != nil {
				return nil, fmt.Errorf("exchange: %s: %v", name, err)
			}
			os.Remove(name)
			inbox = append(inbox, ps...)
		}
	}
}

// wait waits for shard j's status of round r; nil when this shard's own
// budget (time, cancellation) ran out first.
func (x *exchange) wait(e *engine, b, r, j int) (*status, error) {
	name := x.doneName(b, r, j)
	for {
		data, err := os.ReadFile(name)
		if err == nil {
			st, err := parseStatus(data)
			if err != nil {
				return nil, fmt.Errorf("exchange: %s: %v", name, err)
			}
			return &st, nil
		}
		if !os.IsNotExist(err) {
			return nil, fmt.Errorf("exchange: %v", err)
		}
		if e.reason() != "" {
			return nil, nil
		}
		time.Sleep(x.pollWait)
	}
}

// finish marks this shard's search as over.
func (x *exchange) finish() { _ = writeFile(x.endName(x.idx), nil) }

// pathChunk is how many received paths a worker takes at a time.
const pathChunk = 512

// searchPaths expands the states at the ends of paths (sorted) on the
// workers: each takes chunks of consecutive paths and replays a chunk as
// a trie, so that a shared prefix is replayed once. It returns the path of
// a hazard if one was found.
func (e *engine) searchPaths(b int, paths [][]int32) ([]int32, error) {
	var next atomic.Int64
	var found atomic.Pointer[[]int32]
	var errOnce sync.Once
	var firstErr error
	chunks := (len(paths) + pathChunk - 1) / pathChunk
	n := min(e.workers(), max(chunks, runtime.GOMAXPROCS(0)))
	if chunks == 0 {
		n = 0
	}
	// The workers balance the load as in the unexchanged search
	// (share.go): the chunks first, then the pieces split off busy
	// workers' stacks.
	p := newPool(nil, nil, n, e.opts.splitAlways, func() bool { return e.reason() != "" || found.Load() != nil })
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Machines and workers are kept from round to round (a
			// goroutine at a time uses them).
			var sl *xslot
			select {
			case sl = <-e.xch.slots:
			default:
				root, err := e.c.machine(false, !e.opts.Reduction.por())
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					p.halt()
					return
				}
				sl = &xslot{root: root, w: e.newWorker(b)}
			}
			defer func() { e.xch.slots <- sl }()
			root, w := sl.root, sl.w
			w.bound, w.hit = b, &found
			w.origin = -1
			if n > 1 {
				w.share = p
			}
			defer func() { w.share = nil }()
			defer w.flush()
			for {
				k := int(next.Add(1) - 1)
				if e.reason() != "" || found.Load() != nil {
					p.halt()
					return
				}
				if k >= chunks {
					pc, ok := p.take()
					if !ok {
						return
					}
					if f, _ := w.searchItem(sl, pc.it); f != nil {
						found.CompareAndSwap(nil, &f)
						p.halt()
						return
					}
					continue
				}
				chunk := paths[k*pathChunk : min(len(paths), (k+1)*pathChunk)]
				m := w.trieMachine(0)
				m.CopyFrom(root)
				w.found, w.halt = nil, false
				w.walk(m, chunk, 0, 0)
				if w.found != nil {
					f := w.found
					found.CompareAndSwap(nil, &f)
					p.halt()
					return
				}
				e.done.Add(int64(len(chunk)))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if p := found.Load(); p != nil {
		return *p, nil
	}
	return nil, nil
}

func (w *worker) trieMachine(level int) *sched.Machine {
	for len(w.trie) <= level {
		w.trie = append(w.trie, &sched.Machine{})
	}
	return w.trie[level]
}

// walk expands the states at the ends of paths, which are sorted and share
// their first at options; m is at that point (and owned by this level).
func (w *worker) walk(m *sched.Machine, paths [][]int32, at, level int) {
	first, last := paths[0], paths[len(paths)-1]
	l := at
	for l < len(first) && l < len(last) && first[l] == last[l] {
		l++
	}
	w.replayPath(m, first[at:l])
	k := 0
	for k < len(paths) && len(paths[k]) == l {
		k++ // sorted: the paths that end here come first (duplicates too)
	}
	if k > 0 {
		s := m
		if k < len(paths) {
			s = w.machine(0)
			s.CopyFrom(m)
		}
		w.path = append(w.path[:0], first[:l]...)
		w.dfs(s, 0, nil)
		if w.found != nil || w.halt {
			return
		}
	}
	for k < len(paths) {
		j := k + 1
		for j < len(paths) && paths[j][l] == paths[k][l] {
			j++
		}
		child := m
		if j < len(paths) {
			child = w.trieMachine(level + 1)
			child.CopyFrom(m)
		}
		w.walk(child, paths[k:j], l, level+1)
		if w.found != nil || w.halt {
			return
		}
		k = j
	}
}

// sortPaths sorts paths lexicographically (a prefix first).
func sortPaths(paths [][]int32) {
	slices.SortFunc(paths, slices.Compare[[]int32])
}
