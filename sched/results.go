package sched

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/mcountsim/mcountsim/detect"
)

// The wrong-result detector (detect/results.go, docs/model.md §3): a
// machine either records its workload's results (Config.RecordResults or
// Record: the reference run, and replays for reports) or compares them with
// a reference's (Config.Reference), or neither, which costs one nil check
// per return and per data access.
//
// What counts: a return of a traced call (a shadow-stack frame whose callee
// is the entry of a function holding a site) and a store outside the
// stacks made while a traced call is pending, both in the workload's
// context, that is, with no call made from a site's bytes (the
// instrumentation: a trampoline and what it calls) pending. The return's
// value is the core's return register (ret). Only returns the shadow stack
// accepts are compared: a bad return is a hazard of its own.

// resultRec is what a recording machine collects.
type resultRec struct {
	out       detect.Results
	readers   map[uint64]uint32 // per data byte: the workers that read it (outside the instrumentation)
	writers   map[uint64]uint32 // per data byte: the workers that wrote it; bit instrBit: the instrumentation did
	textReads map[uint64]bool   // text bytes the workload read as data
	text      map[uint64]bool   // text addresses a worker executed or loaded (detect.Results.Text)
	vals      map[uint64]int16  // per data byte stored: the one value stores wrote, or -1 (several values, or the instrumentation's store)
	early     map[uint64]bool   // data bytes a worker loaded before any store wrote them
	// per task: the return register when the instrumentation's last call
	// returned (detect.Return.Unknown), if one did
	instrRet []uint64
	instrOK  []bool
}

const instrBit = 1 << 31

func (r *resultRec) clone() *resultRec {
	c := &resultRec{out: detect.Results{Tasks: make([]detect.TaskResults, len(r.out.Tasks))},
		readers: map[uint64]uint32{}, writers: map[uint64]uint32{}, textReads: map[uint64]bool{}, text: map[uint64]bool{},
		vals: maps.Clone(r.vals), early: maps.Clone(r.early), instrRet: slices.Clone(r.instrRet), instrOK: slices.Clone(r.instrOK)}
	for i, t := range r.out.Tasks {
		c.out.Tasks[i] = detect.TaskResults{Returns: append([]detect.Return(nil), t.Returns...), Stores: append([]detect.DataStore(nil), t.Stores...)}
	}
	for k, v := range r.readers {
		c.readers[k] = v
	}
	for k, v := range r.writers {
		c.writers[k] = v
	}
	for k := range r.textReads {
		c.textReads[k] = true
	}
	for k := range r.text {
		c.text[k] = true
	}
	return c
}

// initResults sets up recording or comparing (New).
func (m *Machine) initResults() {
	if ref := m.cfg.Reference; ref != nil && ref.Compared {
		m.ref = ref
	}
	if m.cfg.RecordResults || m.cfg.Record {
		m.res = &resultRec{out: detect.Results{Tasks: make([]detect.TaskResults, m.cfg.Tasks)},
			readers: map[uint64]uint32{}, writers: map[uint64]uint32{}, textReads: map[uint64]bool{}, text: map[uint64]bool{},
			vals: map[uint64]int16{}, early: map[uint64]bool{}, instrRet: make([]uint64, m.cfg.Tasks), instrOK: make([]bool, m.cfg.Tasks)}
	}
	if m.ref == nil && m.res == nil {
		return
	}
	m.st.traced = make([]bool, len(m.text))
	for _, s := range m.img.Sites {
		if fn, _, ok := m.img.Lookup(s.Addr); ok {
			m.st.traced[fn.Addr-m.img.Base] = true
		}
	}
}

// siteCall reports whether the call that is to return to ret was made from
// a site's bytes (the instrumentation's call).
func (m *Machine) siteCall(ret uint64) bool {
	off := ret - 1 - m.img.Base
	return ret > m.img.Base && off < uint64(len(m.st.siteOf)) && m.st.siteOf[off] >= 0
}

// context returns the innermost traced call pending on task t's shadow
// stack (its function's entry; ok false when none) and whether a call made
// from a site is pending (the task runs instrumentation).
func (m *Machine) context(t int8) (fn uint64, ok, instr bool) {
	sh := &m.tasks[t].Shadow
	for i := int(sh.N) - 1; i >= 0; i-- {
		f := &sh.Frames[i]
		if m.siteCall(f.Ret) {
			return 0, false, true
		}
		if !ok && m.isTraced(f.Callee) {
			fn, ok = f.Callee, true
		}
	}
	return fn, ok, false
}

func (m *Machine) isTraced(fn uint64) bool {
	off := fn - m.img.Base
	return off < uint64(len(m.st.traced)) && m.st.traced[off]
}

// tracedReturn sees task t return (at pc) from the call of frame f, which
// the shadow stack accepted.
func (m *Machine) tracedReturn(c, t int8, pc uint64, f detect.Frame) {
	if int(t) >= m.cfg.Tasks {
		return
	}
	if m.res != nil && m.siteCall(f.Ret) {
		// The instrumentation's call returns to its site: what it leaves
		// in the return register is no result of the workload.
		m.res.instrRet[t], m.res.instrOK[t] = m.core.ret(t), true
	}
	if !m.isTraced(f.Callee) || m.siteCall(f.Ret) {
		return
	}
	if _, _, instr := m.context(t); instr {
		return
	}
	task := &m.tasks[t]
	got := detect.Return{Func: f.Callee, Ret: f.Ret, Value: m.core.ret(t), Stores: task.Results.Stores}
	if m.res != nil {
		tr := &m.res.out.Tasks[t]
		got.Stores = uint32(len(tr.Stores))
		got.Unknown = m.res.instrOK[t] && got.Value == m.res.instrRet[t]
		tr.Returns = append(tr.Returns, got)
	}
	if m.ref == nil {
		return
	}
	want, k, ok := m.ref.NextReturn(int(t), &task.Results)
	if ok && want.Func == f.Callee && (want.Value == got.Value || want.Unknown) && want.Stores == got.Stores {
		return // the common case: no allocation
	}
	call := func(fn uint64) string {
		return fmt.Sprintf("%s (task %d's traced call %d of %d, returning to %#x <%s>)", m.fnName(fn), t, k+1, m.ref.Len(int(t)), f.Ret, nameOr(m.img.Name(f.Ret), "no symbol"))
	}
	var detail string
	switch {
	case !ok:
		detail = fmt.Sprintf("%s returned %s, but the uninstrumented reference run made only %d traced calls in task %d", m.fnName(f.Callee), m.valueText(got.Value), m.ref.Len(int(t)), t)
	case want.Func != f.Callee:
		detail = fmt.Sprintf("%s returned where the uninstrumented reference run's call %d of task %d was to %s", call(f.Callee), k+1, t, m.fnName(want.Func))
	case want.Value != got.Value && !want.Unknown:
		detail = fmt.Sprintf("%s returned %s; expected %s, the uninstrumented reference run's value", call(f.Callee), m.valueText(got.Value), m.valueText(want.Value))
	case want.Stores != got.Stores:
		detail = fmt.Sprintf("%s returned %s as expected, but after %d data store(s) inside traced calls of the task; the uninstrumented reference run made %d", call(f.Callee), m.valueText(got.Value), got.Stores, want.Stores)
	default:
		return
	}
	m.hazard(detect.WrongResult, int(c), int(t), pc, detail)
}

// resultStore sees task t store size bytes of v at data address a (pc:
// the storing instruction).
func (m *Machine) resultStore(t int8, pc, a uint64, size int, v uint64) {
	if int(t) >= m.cfg.Tasks {
		return
	}
	fn, ok, instr := m.context(t)
	if m.res != nil {
		bit := uint32(1) << t
		if instr {
			bit = instrBit
		}
		for i := uint64(0); i < uint64(size); i++ {
			m.res.writers[a+i] |= bit
			b := int16(uint8(v >> (8 * i)))
			if old, ok := m.res.vals[a+i]; instr || ok && old != b {
				b = -1
			}
			m.res.vals[a+i] = b
		}
	}
	if instr || !ok {
		return
	}
	if size < 8 {
		v &= 1<<(8*size) - 1
	}
	got := detect.DataStore{Addr: a, Value: v, Size: uint8(size), Func: fn}
	if m.res != nil {
		m.res.out.Tasks[t].Stores = append(m.res.out.Tasks[t].Stores, got)
	}
	if m.ref == nil {
		return
	}
	task := &m.tasks[t]
	want, k, ok := m.ref.NextStore(int(t), &task.Results)
	if ok && want == got {
		return
	}
	detail := fmt.Sprintf("%s stored %d byte(s) of %#x at %#x (task %d's data store %d inside traced calls)", m.fnName(fn), size, v, a, t, k+1)
	if ok {
		detail += fmt.Sprintf("; expected %s to store %d byte(s) of %#x at %#x, as the uninstrumented reference run did", m.fnName(want.Func), want.Size, want.Value, want.Addr)
	} else {
		detail += "; the uninstrumented reference run made no such store"
	}
	m.hazard(detect.WrongResult, int(m.tasks[t].CPU), int(t), pc, detail)
}

// resultLoad notes, in a recording machine, that task t read size bytes at
// a (text says a is in text).
func (m *Machine) resultLoad(t int8, a uint64, size int, text bool) {
	if int(t) >= m.cfg.Tasks {
		return
	}
	if _, _, instr := m.context(t); instr {
		return
	}
	for i := uint64(0); i < uint64(size); i++ {
		if text {
			m.res.textReads[a+i] = true
		} else {
			m.res.readers[a+i] |= 1 << t
			if m.res.writers[a+i] == 0 {
				m.res.early[a+i] = true
			}
		}
	}
}

// resultExit checks, at task t's exit, that it made every traced call and
// data store of the reference.
func (m *Machine) resultExit(c, t int8, pc uint64) {
	if int(t) >= m.cfg.Tasks {
		return
	}
	cur := m.tasks[t].Results
	n := m.ref.Len(int(t))
	switch {
	case int(cur.Returns) < n:
		m.hazard(detect.WrongResult, int(c), int(t), pc, fmt.Sprintf("task %d exited after %d traced call(s); the uninstrumented reference run made %d (the next: %s)",
			t, cur.Returns, n, m.fnName(m.ref.Tasks[t].Returns[cur.Returns].Func)))
	case int(cur.Stores) < len(m.ref.Tasks[t].Stores):
		m.hazard(detect.WrongResult, int(c), int(t), pc, fmt.Sprintf("task %d exited after %d data store(s) inside traced calls; the uninstrumented reference run made %d",
			t, cur.Stores, len(m.ref.Tasks[t].Stores)))
	}
}

// Results returns the results a recording machine (Config.RecordResults
// or Record) collected, with Compared and Why set by the rule of
// detect/results.go; nil for a machine that does not record. Call it when
// the run is over: a reference is immutable from then on.
func (m *Machine) Results() *detect.Results {
	if m.res == nil {
		return nil
	}
	out := m.res.out
	out.Compared, out.Why = true, ""
	var addrs []uint64
	for a := range m.res.readers {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	for _, a := range addrs {
		r, w := m.res.readers[a], m.res.writers[a]
		for t := 0; t < m.cfg.Tasks && out.Compared; t++ {
			if r&(1<<t) == 0 || w&^(1<<t) == 0 {
				continue
			}
			by := "the instrumentation"
			for u := 0; u < m.cfg.Tasks; u++ {
				if u != t && w&(1<<u) != 0 {
					by = fmt.Sprintf("task %d", u)
					break
				}
			}
			out.Compared = false
			out.Why = fmt.Sprintf("task %d reads data at %#x, which %s writes: the results depend on the schedule", t, a, by)
		}
		if !out.Compared {
			break
		}
	}
	out.TextReads = out.TextReads[:0:0]
	for a := range m.res.textReads {
		out.TextReads = append(out.TextReads, a)
	}
	sort.Slice(out.TextReads, func(i, j int) bool { return out.TextReads[i] < out.TextReads[j] })
	out.Written, out.Text = sortedKeys(m.res.writers), sortedKeys(m.res.text)
	out.Once = m.onceBytes()
	return &out
}

// onceBytes is detect.Results.Once of a recording machine: the writable
// data bytes a worker loaded or stored whose stores all wrote one value.
func (m *Machine) onceBytes() []detect.OnceByte {
	var out []detect.OnceByte
	add := func(a uint64) {
		off, ok := m.dataOff(a, 1)
		if !ok || m.readOnly(a, 1) {
			return
		}
		b := detect.OnceByte{Addr: a, Value: m.data[off], Early: m.res.early[a]}
		if v, ok := m.res.vals[a]; ok {
			if v < 0 {
				return
			}
			b.Value = uint8(v)
		}
		out = append(out, b)
	}
	for a := range m.res.readers {
		add(a)
	}
	for a := range m.res.vals {
		if _, ok := m.res.readers[a]; !ok {
			add(a)
		}
	}
	slices.SortFunc(out, func(x, y detect.OnceByte) int { return cmp.Compare(x.Addr, y.Addr) })
	return out
}

// fnName names a function by its entry.
func (m *Machine) fnName(fn uint64) string { return nameOr(m.img.Name(fn), fmt.Sprintf("%#x", fn)) }

// valueText renders a return register's value in hex and, at the
// register's width, as a signed decimal.
func (m *Machine) valueText(v uint64) string {
	s := int64(v)
	if m.shape.linkSize == 4 {
		s = int64(int32(uint32(v)))
	}
	return fmt.Sprintf("%#x (%d)", v, s)
}

func sortedKeys[V any](mp map[uint64]V) []uint64 {
	out := make([]uint64, 0, len(mp))
	for a := range mp {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
