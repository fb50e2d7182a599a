// Package detect holds the hazard detectors of mcountsim. Detectors are
// observers: they are fed execution events (calls, returns, loads into
// control registers, instruction fetches with the provenance of their bytes)
// and keep their own small, copyable state. They never see a strategy, its
// name, or anything but what the executing code did. The wrong-result
// detector's reference (results.go) is what the same workload did in one
// uninstrumented run; runs are compared with it only where its results
// cannot depend on the schedule, by the rule proved there.
//
// Imports: the standard library only.
package detect

import "fmt"

// Kind is a kind of hazard (docs/model.md §3).
type Kind uint8

const (
	None             Kind = iota
	BadReturn             // a return went somewhere other than its call's return address
	StackImbalance        // a function returned with sp not where it was at the call
	ForeignSlot           // lr/pc loaded from a stack slot that holds no saved link value
	TornFetch             // one fetched instruction assembled from different transitions' bytes
	MixedSite             // one pass through a site executed words from states the site never held
	Fault                 // undecodable/unsupported instruction, pc or stack out of bounds, no int3 handler table
	BadCall               // a call whose target is not the start of a function or trampoline in text
	CMODX                 // a fetch of a word another CPU changed since this one synchronized, outside the ISA's concurrent-modification set
	SchedRecursion        // the scheduler or preempt_schedule re-entered through the tracer callback, or the stack overflowing through it
	MissedPreemption      // preemption re-enabled to count 0 with need_resched set, and the task ran on without scheduling
	LostEvent             // a traced call whose callback recorded no event (a hazard only when lossless tracing is asked for)
	Escape                // a task left a function other than by returning: a branch out of it (not a call, a return or a tail call), or an exit with calls still pending
	WrongResult           // a traced call returned (or stored) something other than the uninstrumented reference run's (results.go)
)

var kindNames = [...]string{"none", "bad-return", "stack-imbalance", "foreign-slot", "torn-fetch", "mixed-site", "fault", "bad-call", "cmodx", "sched-recursion", "missed-preemption", "lost-event", "escape", "wrong-result"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s && i != 0 {
			return Kind(i), nil
		}
	}
	return None, fmt.Errorf("unknown hazard kind %q", s)
}

// MarshalText makes kinds print by name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	*k = v
	return err
}

// MaxDepth bounds the shadow call stack of one task.
const MaxDepth = 16

// Frame is one expected return.
type Frame struct {
	Ret    uint64 // where the callee must return
	SP     uint64 // the stack pointer at the call
	Callee uint64 // call target
	Pop    uint8  // bytes of the caller's stack the callee consumes (mcount ABI)
}

// Shadow is a shadow call stack: the returns a task owes.
type Shadow struct {
	Frames [MaxDepth]Frame
	N      uint8
}

// Call records a call that must return to ret with sp+pop.
func (s *Shadow) Call(ret, sp, callee uint64, pop uint8) {
	if int(s.N) == MaxDepth {
		copy(s.Frames[:], s.Frames[1:])
		s.N--
	}
	s.Frames[s.N] = Frame{Ret: ret, SP: sp, Callee: callee, Pop: pop}
	s.N++
}

// Return checks a return to target that leaves the stack pointer at sp. It
// reports BadReturn when target is not the innermost expected return,
// StackImbalance when it is but sp is wrong, and None otherwise. The
// innermost frame is consumed either way; want is that frame.
func (s *Shadow) Return(target, sp uint64) (k Kind, want Frame) {
	if s.N == 0 {
		return BadReturn, Frame{}
	}
	s.N--
	f := s.Frames[s.N]
	switch {
	case target != f.Ret:
		return BadReturn, f
	case sp != f.SP+uint64(f.Pop):
		return StackImbalance, f
	}
	return None, f
}

// Slot provenance: every stack word remembers the register it was written
// from. Link values (an ARM lr, an x86 return address pushed by a call) are
// the only legitimate source of a later load into a control register.
const (
	SlotUnwritten uint8 = 0xfc
)

// Hazard is one detected hazard.
type Hazard struct {
	Kind   Kind   `json:"kind"`
	Step   int    `json:"step"`
	CPU    int    `json:"cpu"`
	Task   int    `json:"task"`
	PC     uint64 `json:"pc"`
	Where  string `json:"where"`  // symbolic pc, e.g. "__gnu_mcount_nc+0x14"
	Detail string `json:"detail"` // one line: what was seen
	// Slot is the stack slot a control register was loaded from, for a
	// foreign-slot hazard or a bad return through the stack (0: none).
	Slot uint64 `json:"slot,omitempty"`
	// Err is the error behind a fault (an *isa.Fault wrapping
	// isa.ErrUndecodable, ErrUnsupported or ErrMemory), if any.
	Err error `json:"-"`
}

func (h Hazard) String() string {
	return fmt.Sprintf("%s at step %d, cpu %d, task %d, pc %#x <%s>: %s", h.Kind, h.Step, h.CPU, h.Task, h.PC, h.Where, h.Detail)
}

// MaxSiteBytes bounds the length of a site: 20 is an arm64 CALL_OPS site
// built with BTI (the 8-byte ftrace_ops literal, the function's bti c, the
// two entry words); the others are 16 bytes at most.
const MaxSiteBytes = 20

// Pass records one pass of a task through a site: which bytes it executed
// and which write produced each (0 = the compiled bytes).
type Pass struct {
	Site  int16
	Open  bool
	Seen  uint32               // bit i: byte i was fetched in this pass
	Write [MaxSiteBytes]uint16 // write id of each fetched byte
	Bytes [MaxSiteBytes]byte   // the bytes executed
	Order [MaxSiteBytes]uint8  // fetch order of the instruction starts
	NOrd  uint8
}

// Fetch notes that the instruction at site offset off (n bytes) was
// executed with the given bytes and write ids.
func (p *Pass) Fetch(off int, b []byte, writes []uint16) {
	for i := range b {
		if off+i >= MaxSiteBytes {
			break
		}
		p.Seen |= 1 << (off + i)
		p.Write[off+i] = writes[i]
		p.Bytes[off+i] = b[i]
	}
	if int(p.NOrd) < MaxSiteBytes {
		p.Order[p.NOrd] = uint8(off)
		p.NOrd++
	}
}

// Consistent reports whether the bytes seen in the pass match one state the
// site held: a snapshot of write ids per byte, as recorded after each write.
func (p *Pass) Consistent(history [][MaxSiteBytes]uint16) bool {
	for _, snap := range history {
		ok := true
		for i := 0; i < MaxSiteBytes; i++ {
			if p.Seen&(1<<i) != 0 && snap[i] != p.Write[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
