package detect

// The wrong-result detector (docs/model.md §3): instrumentation must not
// change what the workload computes. The reference is one run of the same
// workload with no patching at all (every site as compiled, calling a
// trampoline that is transparent), made once per scenario. Its Results are
// what each worker observably did: the sequence of returns from traced
// functions (those holding a site), with the return register, and the
// stores those calls made outside the stacks, in program order. Every
// explored run is compared with it, return by return and store by store,
// through a Cursor per task; a difference is a WrongResult hazard.
//
// The comparison is sound only where the reference's results do not depend
// on the schedule. They do not when, in the reference, no worker's code
// (outside the instrumentation) read a data byte that another worker or
// the instrumentation wrote, and no byte of text that a strategy stores
// to: then, by induction over the steps of any interleaving of the
// uninstrumented workload, every task executes a prefix of its reference
// run (the first step to differ would have to read a byte some other task
// wrote in a prefix of its reference run, that is, in the reference),
// so every schedule gives each task the same returns and the same stores.
// When the rule fails (tasks share a counter, say), nothing is compared and
// Results.Why says why: a schedule-dependent result is no evidence against
// a strategy.

// Return is one return of a traced call.
type Return struct {
	Func  uint64 `json:"func"`  // the traced function's entry (the call's target)
	Ret   uint64 `json:"ret"`   // where it returned to
	Value uint64 `json:"value"` // the return register
	// Stores is the number of data stores the task had made inside traced
	// calls when it returned (cumulative).
	Stores uint32 `json:"stores"`
	// Unknown: the return register still held what the instrumentation's
	// last call left there (a void function that returned without writing
	// it, after an arm64 -pg _mcount call, which the compiler treats as any
	// call, clobbering x0): no result of the workload, so runs compare the
	// call's function and stores but not Value.
	Unknown bool `json:"unknown,omitempty"`
}

// DataStore is one store outside the stacks made inside a traced call.
type DataStore struct {
	Addr  uint64 `json:"addr"`
	Value uint64 `json:"value"`
	Size  uint8  `json:"size"`
	Func  uint64 `json:"func"` // the innermost traced call's function
}

// TaskResults is what one worker task observably did, in order.
type TaskResults struct {
	Returns []Return    `json:"returns"`
	Stores  []DataStore `json:"stores,omitempty"`
}

// Results is what the workload of one run observably did, per worker task.
// A reference's Results are immutable once built: every machine of a check
// shares them.
type Results struct {
	Tasks []TaskResults `json:"tasks"`
	// Compared says that runs are compared with these results (the rule
	// above holds); Why says why not otherwise.
	Compared bool   `json:"compared"`
	Why      string `json:"why,omitempty"`
	// TextReads lists the text addresses the workload read as data (a
	// literal pool, say), sorted: a strategy that stores to one of them
	// makes the results schedule-dependent.
	TextReads []uint64 `json:"-"`
	// Written lists the data addresses a store of the run wrote (any
	// worker, the instrumentation included), sorted; Text the text
	// addresses at which a worker executed an instruction or loaded a
	// byte as data (the instrumentation included), sorted. The machine's
	// reductions of quiet data pages and of stores to text no worker
	// reaches read them (sched/quiet.go).
	Written []uint64 `json:"-"`
	Text    []uint64 `json:"-"`
	// Once lists, sorted by address, the data bytes a worker loaded or
	// stored (outside the instrumentation) whose every store, if any,
	// wrote one value, with that value (the byte as it was, for one no
	// store wrote): the candidates of the machine's stable bytes
	// (sched/stable.go).
	Once []OnceByte `json:"-"`
}

// OnceByte is one data byte of Results.Once.
type OnceByte struct {
	Addr  uint64
	Value uint8
	// Early: a worker loaded the byte before any store wrote it.
	Early bool
}

// Cursor is a task's progress through its reference results: how many
// traced returns and data stores it has made so far. It is part of the
// machine's state (it decides what the next return must be).
type Cursor struct {
	Returns uint32
	Stores  uint32
}

// NextReturn consumes task t's next traced return: want is the reference's
// and ok is false when the reference made no more. k is its index.
func (r *Results) NextReturn(t int, c *Cursor) (want Return, k int, ok bool) {
	k = int(c.Returns)
	c.Returns++
	if t >= len(r.Tasks) || k >= len(r.Tasks[t].Returns) {
		return Return{}, k, false
	}
	return r.Tasks[t].Returns[k], k, true
}

// NextStore consumes task t's next data store as NextReturn does.
func (r *Results) NextStore(t int, c *Cursor) (want DataStore, k int, ok bool) {
	k = int(c.Stores)
	c.Stores++
	if t >= len(r.Tasks) || k >= len(r.Tasks[t].Stores) {
		return DataStore{}, k, false
	}
	return r.Tasks[t].Stores[k], k, true
}

// Len returns the number of traced returns task t made.
func (r *Results) Len(t int) int {
	if t >= len(r.Tasks) {
		return 0
	}
	return len(r.Tasks[t].Returns)
}

// Symmetric reports whether the detector treats every worker alike: it
// compares nothing, or every task's reference results are the same (a
// state-space reduction that swaps tasks must not swap two tasks that owe
// different results).
func (r *Results) Symmetric() bool {
	if r == nil || !r.Compared {
		return true
	}
	for i := 1; i < len(r.Tasks); i++ {
		a, b := r.Tasks[0], r.Tasks[i]
		if len(a.Returns) != len(b.Returns) || len(a.Stores) != len(b.Stores) {
			return false
		}
		for k := range a.Returns {
			if a.Returns[k] != b.Returns[k] {
				return false
			}
		}
		for k := range a.Stores {
			if a.Stores[k] != b.Stores[k] {
				return false
			}
		}
	}
	return true
}
