package sched

// StackWrite is one store to a task's stack word, as Record mode keeps it
// for reports (the HTML page's stack panel): which word, the value it
// holds afterwards, the register it came from, and the instruction and
// step that stored it.
type StackWrite struct {
	Step   int    `json:"step"`
	Task   int    `json:"task"`
	Addr   uint64 `json:"addr"`         // the word's address (4-byte aligned)
	Value  uint32 `json:"value"`        // the whole word after the store
	Source string `json:"source"`       // e.g. "written from r4" (the detectors' words)
	PC     uint64 `json:"pc,omitempty"` // the storing instruction (0: not an instruction of the task)
	Where  string `json:"where,omitempty"`
	Disasm string `json:"disasm,omitempty"`
}

// stackLog is an immutable list of stack writes, newest first: machines
// copied with CopyFrom share it safely.
type stackLog struct {
	w    StackWrite
	prev *stackLog
}

// recordStack logs a store of size bytes at a (Record mode; storeStack
// calls it after the store).
func (m *Machine) recordStack(a uint64, size int, reg uint8) {
	var pc uint64
	var where, dis string
	if n := len(m.trace); n > 0 {
		if e := m.trace[n-1]; e.Kind == EvExec && e.Step == m.steps && e.Task == int(m.cur) {
			pc, where, dis = e.PC, e.Where, e.Text
		}
	}
	off := a - StackBase
	for w := off / 4; w <= (off+uint64(size)-1)/4; w++ {
		m.stackRec = &stackLog{prev: m.stackRec, w: StackWrite{Step: m.steps, Task: int(m.cur), Addr: StackBase + w*4,
			Value: le32(m.stack[w*4:]), Source: m.slotSource(reg), PC: pc, Where: where, Disasm: dis}}
	}
}

// StackWrites returns the stack stores of a recorded run, oldest first
// (nil unless the machine records).
func (m *Machine) StackWrites() []StackWrite {
	var out []StackWrite
	for l := m.stackRec; l != nil; l = l.prev {
		out = append(out, l.w)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
