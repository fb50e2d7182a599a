package patch

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// Piece is one instruction of a form, at a byte offset into the site,
// written in assembler syntax ("push {lr}", "bl __gnu_mcount_nc", "b .+8")
// or as hex ("e52de004" for an A32 word, "0f 1f 44 00 00" for x86 bytes).
type Piece struct {
	Off  int
	Insn string
}

// Form is a named content of (part of) a site.
type Form struct {
	Name   string
	Pieces []Piece
	Pos    Pos // the form line of a scenario file, if any
}

// StepKind is a kind of strategy step.
type StepKind uint8

const (
	// Write stores pieces directly, with no protocol (each aligned
	// instruction word is one atomic store; with Bytewise, each byte).
	Write StepKind = iota + 1
	// StopMachine stores pieces inside one stop_machine().
	StopMachine
	// SyncSched waits in synchronize_sched().
	SyncSched
	// SyncRCUTasks waits in synchronize_rcu_tasks().
	SyncRCUTasks
	// SyncCore runs sync_core() on every CPU through an IPI.
	SyncCore
	// BreakpointOn publishes the int3 handler's table of sites and the
	// instruction it must emulate (the pieces of the target form).
	BreakpointOn
	// BreakpointOff withdraws the table, waiting for handlers in flight.
	BreakpointOff
	// FlushIcacheAll is RISC-V's flush_icache_all(): a local fence.i, then
	// a fence.i IPI that every other hart takes at an instruction boundary.
	FlushIcacheAll
)

var stepNames = [...]string{"", "write", "stop_machine", "synchronize_sched", "synchronize_rcu_tasks", "sync_core", "bp_on", "bp_off", "flush_icache_all"}

func (k StepKind) String() string {
	if int(k) < len(stepNames) {
		return stepNames[k]
	}
	return fmt.Sprintf("StepKind(%d)", k)
}

// ParseStepKind returns the step kind named s.
func ParseStepKind(s string) (StepKind, error) {
	for i, n := range stepNames {
		if i > 0 && n == s {
			return StepKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown operation %q (want one of %s)", s, strings.Join(stepNames[1:], ", "))
}

// Ref names pieces of a form: the pieces of Form at the offsets Offs (all
// of them when Offs is empty). Bytes, when set, narrows a piece to a byte
// range [Bytes[0], Bytes[1]) of its encoding (for the x86 int3 protocol).
type Ref struct {
	Form  string
	Offs  []int
	Bytes [2]int
	Pos   Pos // the line of a scenario file that wrote it, if any
}

// Step is one operation of a transition.
type Step struct {
	Kind     StepKind
	Writes   []Ref // Write, StopMachine, BreakpointOn
	Bytewise bool  // Write: one byte per step
	Pos      Pos   // the enable or disable line of a scenario file, if any
}

// Strategy is a complete patch strategy.
type Strategy struct {
	Name   string
	Arch   kernel.Arch
	Origin string
	// Prologue is the call-site layout the strategy patches
	// (kernel.Config.Prologue: "pfe2", "pfe4-2" or "pg" on arm64); empty
	// means the arch's default, or whatever the scenario asks for.
	Prologue string
	Forms    []Form
	Boot     []Ref  // what ftrace_init() writes before anything runs
	Enable   []Step // disabled -> enabled
	Disable  []Step // enabled -> disabled
	// Enabled and Disabled name the forms a site holds in each state, for
	// documentation and for the int3 handler's "new instruction".
	Enabled, Disabled string
}

// Form returns the form called name.
func (s *Strategy) Form(name string) (*Form, bool) {
	for i := range s.Forms {
		if s.Forms[i].Name == name {
			return &s.Forms[i], true
		}
	}
	return nil, false
}

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid strategy")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// errAt returns a validation error; at a known position it is a *FileError
// naming the line.
func errAt(pos Pos, format string, args ...any) error {
	if pos.IsValid() {
		return &FileError{File: pos.File, Line: pos.Line, Reason: fmt.Sprintf(format, args...)}
	}
	return invalid(format, args...)
}

// Validate checks s against the first call site of img: known forms, each
// defined once; pieces aligned, inside the site and not overlapping;
// instructions that assemble and decode; refs to pieces that exist, with
// byte ranges inside them; and steps with the operands their kind needs.
// When s came from a scenario file, errors are *FileErrors naming the line.
func (s *Strategy) Validate(img *kernel.Image) error {
	if s.Arch != img.Arch {
		return invalid("strategy %s is for %v, the scenario is %v", s.Name, s.Arch, img.Arch)
	}
	if len(img.Sites) == 0 {
		return invalid("the image has no call sites")
	}
	site := img.Sites[0]
	align := max(img.Align, 1)
	// lens[form][off] is the encoded length of each piece at site 0.
	lens := make(map[string]map[int]int, len(s.Forms))
	for _, f := range s.Forms {
		if _, dup := lens[f.Name]; dup {
			return errAt(f.Pos, "form %s is defined twice", f.Name)
		}
		if len(f.Pieces) == 0 {
			return errAt(f.Pos, "form %s has no instructions", f.Name)
		}
		lens[f.Name] = make(map[int]int, len(f.Pieces))
		for _, p := range f.Pieces {
			if p.Off < 0 || p.Off >= site.Span() {
				return errAt(f.Pos, "form %s: offset %d is outside the %d-byte site", f.Name, p.Off, site.Span())
			}
			if p.Off%align != 0 {
				return errAt(f.Pos, "form %s: offset %d is not a multiple of %d", f.Name, p.Off, align)
			}
			if _, dup := lens[f.Name][p.Off]; dup {
				return errAt(f.Pos, "form %s: two instructions at offset %d", f.Name, p.Off)
			}
			b, err := Assemble(img, p.Insn, site.At(p.Off))
			if err != nil {
				return errAt(f.Pos, "form %s, offset %d: %v", f.Name, p.Off, err)
			}
			if p.Off+len(b) > site.Span() {
				return errAt(f.Pos, "form %s: %q at offset %d (%d bytes) is outside the %d-byte site", f.Name, p.Insn, p.Off, len(b), site.Span())
			}

			lens[f.Name][p.Off] = len(b)
		}
		offs := make([]int, 0, len(f.Pieces))
		for off := range lens[f.Name] {
			offs = append(offs, off)
		}
		sort.Ints(offs)
		for i := 1; i < len(offs); i++ {
			if end := offs[i-1] + lens[f.Name][offs[i-1]]; end > offs[i] {
				return errAt(f.Pos, "form %s: the instructions at offsets %d and %d overlap", f.Name, offs[i-1], offs[i])
			}
		}
	}
	for _, st := range []struct{ what, name string }{{"enabled", s.Enabled}, {"disabled", s.Disabled}} {
		if _, ok := lens[st.name]; st.name != "" && !ok {
			return invalid("the %s state names unknown form %q", st.what, st.name)
		}
	}
	check := func(where string, refs []Ref) error {
		for _, r := range refs {
			f, ok := lens[r.Form]
			if !ok {
				return errAt(r.Pos, "%s: unknown form %q", where, r.Form)
			}
			for i, off := range r.Offs {
				if _, ok := f[off]; !ok {
					return errAt(r.Pos, "%s: form %s has no instruction at offset %d", where, r.Form, off)
				}
				if containsInt(r.Offs[:i], off) {
					return errAt(r.Pos, "%s: form %s: offset %d is selected twice", where, r.Form, off)
				}
			}
			if r.Bytes == [2]int{} {
				continue
			}
			lo, hi := r.Bytes[0], r.Bytes[1]
			if lo < 0 || lo >= hi {
				return errAt(r.Pos, "%s: form %s: empty byte range [%d:%d]", where, r.Form, lo, hi)
			}
			form, _ := s.Form(r.Form)
			for _, p := range form.Pieces {
				if n := f[p.Off]; (len(r.Offs) == 0 || containsInt(r.Offs, p.Off)) && hi > n {
					return errAt(r.Pos, "%s: form %s: byte range [%d:%d] is outside the %d-byte instruction at offset %d", where, r.Form, lo, hi, n, p.Off)
				}
			}
		}
		return nil
	}
	if err := check("boot", s.Boot); err != nil {
		return err
	}
	for _, tr := range []struct {
		name  string
		steps []Step
	}{{"enable", s.Enable}, {"disable", s.Disable}} {
		if len(tr.steps) == 0 {
			return invalid("%s has no steps", tr.name)
		}
		for i, st := range tr.steps {
			if st.Kind < Write || st.Kind > FlushIcacheAll {
				return errAt(st.Pos, "%s step %d: unknown operation %v", tr.name, i+1, st.Kind)
			}
			if err := check(fmt.Sprintf("%s step %d", tr.name, i+1), st.Writes); err != nil {
				return err
			}
			needs := st.Kind == Write || st.Kind == StopMachine || st.Kind == BreakpointOn
			if needs != (len(st.Writes) > 0) {
				if needs {
					return errAt(st.Pos, "%s step %d: %v needs something to write", tr.name, i+1, st.Kind)
				}
				return errAt(st.Pos, "%s step %d: %v writes nothing", tr.name, i+1, st.Kind)
			}
			if st.Bytewise && st.Kind != Write {
				return errAt(st.Pos, "%s step %d: only write can be bytewise, not %v", tr.name, i+1, st.Kind)
			}
		}
	}
	return nil
}

func hasPiece(f *Form, off int) bool {
	for _, p := range f.Pieces {
		if p.Off == off {
			return true
		}
	}
	return false
}

// Compile turns s into the patcher's program for img: boot writes, then
// toggles transitions alternating enable and disable.
func Compile(s *Strategy, img *kernel.Image, toggles int) (*sched.Program, error) {
	if err := s.Validate(img); err != nil {
		return nil, err
	}
	if toggles < 0 || toggles > 64 {
		return nil, invalid("toggles must be 0..64, got %d", toggles)
	}
	prog := &sched.Program{}
	stores := func(refs []Ref) ([]sched.Store, error) {
		var out []sched.Store
		for si, site := range img.Sites {
			for _, r := range refs {
				f, _ := s.Form(r.Form)
				pieces := append([]Piece(nil), f.Pieces...)
				sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].Off < pieces[j].Off })
				for _, p := range pieces {
					if len(r.Offs) > 0 && !containsInt(r.Offs, p.Off) {
						continue
					}
					addr := site.At(p.Off)
					b, err := Assemble(img, p.Insn, addr)
					if err != nil {
						return nil, errAt(f.Pos, "form %s at %s: %v", f.Name, site.Func, err)
					}
					off := int(addr - site.Addr) // the byte offset in the site, past any Gap
					if r.Bytes != [2]int{} {
						lo, hi := r.Bytes[0], r.Bytes[1]
						if lo < 0 || hi > len(b) || lo >= hi {
							return nil, errAt(r.Pos, "byte range [%d:%d] is outside %q", lo, hi, p.Insn)
						}
						b, off, addr = b[lo:hi], off+lo, addr+uint64(lo)
					}
					out = append(out, sched.Store{Addr: addr, Bytes: b, Site: si, Off: off, Form: f.Name})
				}
			}
		}
		return out, nil
	}
	boot, err := stores(s.Boot)
	if err != nil {
		return nil, err
	}
	prog.Boot = boot
	for k := 1; k <= toggles; k++ {
		name, steps := "enable", s.Enable
		if k%2 == 0 {
			name, steps = "disable", s.Disable
		}
		prog.Transitions = append(prog.Transitions, name)
		for _, st := range steps {
			label := fmt.Sprintf("%s #%d", name, k)
			ss, err := stores(st.Writes)
			if err != nil {
				return nil, err
			}
			switch st.Kind {
			case Write:
				for _, one := range ss {
					prog.Ops = append(prog.Ops, sched.Op{Kind: sched.OpStore, Stores: []sched.Store{one}, Bytewise: st.Bytewise, Transition: k, Label: label})
				}
			case StopMachine, SyncSched, SyncRCUTasks, SyncCore, BreakpointOn, BreakpointOff, FlushIcacheAll:
				op := sched.Op{Kind: stepOps[st.Kind], Transition: k, Label: label}
				if st.Kind == StopMachine || st.Kind == BreakpointOn {
					op.Stores = ss
				}
				prog.Ops = append(prog.Ops, op)
			}
		}
	}
	return prog, nil
}

// stepOps is the machine operation of each step kind that is one
// operation (a Write step is an OpStore per store).
var stepOps = [...]sched.OpKind{
	StopMachine: sched.OpStopMachine, SyncSched: sched.OpSyncSched, SyncRCUTasks: sched.OpSyncRCUTasks,
	SyncCore: sched.OpSyncCore, BreakpointOn: sched.OpBreakpointOn, BreakpointOff: sched.OpBreakpointOff,
	FlushIcacheAll: sched.OpFlushIcacheAll,
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
