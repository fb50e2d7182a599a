package sched

import (
	"fmt"
	"iter"
)

// OpKind is a patcher operation.
type OpKind uint8

const (
	// OpStore writes bytes to text outside stop_machine. An aligned store
	// of an instruction word is one step; with Bytewise set (x86 writes
	// outside the int3 protocol) each byte is its own step.
	OpStore OpKind = iota + 1
	// OpStopMachine makes every CPU spin in its stopper, performs Stores on
	// the patcher's CPU while nothing else runs, and lets all CPUs go.
	OpStopMachine
	// OpSyncSched waits until every CPU has passed a context switch or idle.
	OpSyncSched
	// OpSyncRCUTasks waits until every task that had not exited at the call
	// has made a voluntary context switch or exited.
	OpSyncRCUTasks
	// OpSyncCore sends an IPI that every CPU takes at an instruction
	// boundary, and spins until all have.
	OpSyncCore
	// OpBreakpointOn publishes the int3 patch table (text_poke_bp's bp_desc)
	// for Stores' sites: a CPU that traps on an int3 at one of them emulates
	// the new instruction given in Stores.
	OpBreakpointOn
	// OpBreakpointOff withdraws the table and waits until no CPU is inside
	// the int3 handler.
	OpBreakpointOff
	// OpFlushIcacheAll is RISC-V's flush_icache_all(): like OpSyncCore, an
	// IPI (running fence.i) that every other CPU takes at an instruction
	// boundary, the patcher spinning until all have.
	OpFlushIcacheAll
)

var opNames = [...]string{"", "store", "stop_machine", "synchronize_sched", "synchronize_rcu_tasks", "sync_core", "bp_on", "bp_off", "flush_icache_all"}

func (k OpKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", k)
}

// Store is one write to text.
type Store struct {
	Addr  uint64
	Bytes []byte
	Site  int // index of the site written, or -1
	Off   int // offset into the site
	Form  string
}

// byteOf is the store of s's i-th byte alone, as the patcher makes it for
// a Bytewise op.
func (s Store) byteOf(i int) Store {
	return Store{Addr: s.Addr + uint64(i), Bytes: s.Bytes[i : i+1], Site: s.Site, Off: s.Off + i, Form: s.Form}
}

// Op is one operation of the patcher.
type Op struct {
	Kind       OpKind
	Stores     []Store
	Bytewise   bool
	Transition int    // 1-based transition this op belongs to
	Label      string // for traces, e.g. "enable: stop_machine"
}

// Program is what the patcher does: the boot-time writes (applied before
// any task runs, transition 0) and the operations of every transition.
type Program struct {
	Boot        []Store
	Ops         []Op
	Transitions []string // name of each transition, 1-based: Transitions[0] is transition 1
}

// A write is one write to text by the patcher's operations.
type write struct {
	Store
	op   int  // index of its operation in Ops
	last bool // the site histories are snapshotted after it (after a stop_machine's last store: stopperStep)
}

// writes yields the writes of p.Ops in the order the patcher makes them,
// which is the order of their write ids after the boot writes': an
// OpStore's store (one per byte when the op is Bytewise, as patcherStep
// stores it) and each store of an OpStopMachine (the stoppers make one a
// step, and snapshot the sites when they release the CPUs).
func (p *Program) writes() iter.Seq[write] {
	return func(yield func(write) bool) {
		for i := range p.Ops {
			op := &p.Ops[i]
			switch op.Kind {
			case OpStore:
				s := op.Stores[0]
				if !op.Bytewise {
					if !yield(write{s, i, true}) {
						return
					}
					continue
				}
				for j := range s.Bytes {
					if !yield(write{s.byteOf(j), i, true}) {
						return
					}
				}
			case OpStopMachine:
				for j, s := range op.Stores {
					if !yield(write{s, i, j == len(op.Stores)-1}) {
						return
					}
				}
			}
		}
	}
}
