package sched

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/mcountsim/mcountsim/params"
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// Preempt is a preemption model (model.md §1).
type Preempt uint8

const (
	// PreemptFull: a timer interrupt may preempt a task at any instruction
	// boundary (each such switch counts against the bound).
	PreemptFull Preempt = iota
	// PreemptNone: a task leaves its CPU only at a voluntary schedule
	// point or when it exits.
	PreemptNone
)

func (p Preempt) String() string {
	if p == PreemptNone {
		return "none"
	}
	return "full"
}

// ParsePreempt returns the model named s.
func ParsePreempt(s string) (Preempt, error) {
	switch s {
	case "full":
		return PreemptFull, nil
	case "none":
		return PreemptNone, nil
	}
	return 0, fmt.Errorf("unknown preemption model %q (want none or full)", s)
}

// Limits of one machine (package params holds every setting's range).
const (
	MaxCPUs  = params.MaxCPUs
	MaxTasks = params.MaxTasks // workers plus the patcher
)

// Config describes the machine around an image.
type Config struct {
	CPUs    int     // default 2
	Tasks   int     // worker tasks, default 2
	Preempt Preempt // default full
	// Strict makes a mixed-site pass a hazard of its own.
	Strict bool
	// StackWords is the size of each task's stack in words (default 64).
	StackWords int
	// MaxSteps is a run's step budget (default DefaultMaxSteps); a run
	// that uses it up ends with no verdict (OutOfSteps).
	MaxSteps int
	// Unreduced turns off the partial-order reduction of Options: every
	// CPU's step and every preemption is offered at every instruction
	// boundary. Schedules of reduced and unreduced machines differ.
	Unreduced bool
	// NoSymmetry turns off the task symmetry of Hash (symmetry.go): states
	// that differ only by a permutation of the worker tasks then hash
	// apart. Schedules do not depend on it.
	NoSymmetry bool
	// NoInt3Emulation is a test knob: the int3 handler of text_poke_bp
	// resumes after the int3 byte instead of emulating the new instruction.
	NoInt3Emulation bool
	// Record keeps a trace of every step and the provenance of every write
	// (replay); exploration leaves it off.
	Record bool
	// The tracer kernel (an image with a Tracer; tracer.go, irq.go):
	// IRQBound bounds the interrupts and remote wakeups of a run (0: none);
	// Lossless makes a lost event a hazard; TracerStats, when set,
	// collects lost events and interrupts-off stretches over every run.
	// NMI lets non-maskable interrupts arrive too, even with interrupts
	// masked (within IRQBound; never inside one another).
	IRQBound    int
	Lossless    bool
	NMI         bool
	TracerStats *TracerStats
	// Reference, when set and Compared, is the uninstrumented reference
	// run's results: every traced return and data store of a worker is
	// compared with it, and a difference is a wrong-result hazard
	// (results.go). RecordResults makes the machine record its own
	// results instead (Results): the reference run; Record implies it.
	Reference     *detect.Results
	RecordResults bool
	// NoQuiet turns off the reductions that rest on the reference run
	// (quiet.go): loads from data pages it never wrote, and the
	// patcher's stores to text no worker reached there, are then visible;
	// so are its stores behind a breakpoint (shadow.go).
	NoQuiet bool
	// NoStable turns off the reduction of stable data bytes (stable.go):
	// loads and stores of shared data are then all visible.
	NoStable bool
	// KeepFreed turns off the scrub of freed frames (freed.go): a
	// frame's words then keep what it left there once it returns.
	KeepFreed bool
	// KeepDead turns off the clearing of dead registers at the entry and
	// return of an object's compiled functions (deadregs.go): they then
	// keep what the code before left in them.
	KeepDead bool
	// NoMemo turns off the memo of thread-local stretches (memo.go),
	// which changes no state, step or verdict, only the time taken. Test
	// modes: MemoAll memoizes every stretch, however short; MemoCheck
	// executes each memoized one for real as well, and a difference ends
	// the run without a verdict, saying so.
	NoMemo, MemoAll, MemoCheck bool
	// Focus, when positive, builds the machine of a thread-modular check
	// (modular.go): worker Focus-1 runs the workload and every other
	// worker is a stand-in, a task that loops on schedule(). Such a
	// machine has no task symmetry, and a worker's store outside its own
	// stack is a fault that ends the run (the check's premise is broken).
	Focus int
	// Mirror, with Focus 1, records whether worker 0's modular machine
	// stands for every worker's (modular.go); nil: not recorded.
	Mirror *Mirror
	// Env, with Focus, gives the modular machine the value sets of the
	// data cells the workers share (envcells.go): a load of a cell reads
	// one value of its set, by the explorer's choice (Action.Load), and a
	// store outside the stacks is collected there instead of being a
	// fault. Nil: every such store is a fault (modular.go).
	Env *EnvCells
}

func (c *Config) defaults() {
	c.CPUs = params.CPUs.Or(c.CPUs)
	c.Tasks = params.Tasks.Or(c.Tasks)
	c.StackWords = params.StackWords.Or(c.StackWords)
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
}

// Validate reports a configuration error.
func (c Config) Validate() error {
	c.defaults()
	for _, s := range []struct {
		p *params.Param
		v int
	}{{&params.CPUs, c.CPUs}, {&params.Tasks, c.Tasks}, {&params.StackWords, c.StackWords}} {
		if s.v < s.p.Min || s.v > s.p.Max {
			return fmt.Errorf("%s must be %d..%d, got %d", strings.ReplaceAll(s.p.Name, "-", " "), s.p.Min, s.p.Max, s.v)
		}
	}
	return nil
}

// TaskState is where a task is.
type TaskState uint8

const (
	Runnable TaskState = iota // waiting in the run queue
	Running                   // on a CPU
	Blocked                   // the patcher, sleeping in a wait
	Exited
)

var taskStateNames = [...]string{"runnable", "running", "blocked", "exited"}

func (s TaskState) String() string { return taskStateNames[s] }

// Task is one task's context.
type Task struct {
	State TaskState
	// InTrap: the task took a breakpoint exception and its CPU is in the
	// handler (interrupts off) until the handler's next step.
	InTrap    bool
	CPU       int8
	Preempted bool   // it is off its CPU, and its last switch-out was involuntary
	NVCSW     uint16 // voluntary context switches
	Shadow    detect.Shadow
	Pass      detect.Pass
	link      linkTaint // its link register holds a value loaded from a foreign slot (scratch.go)
	// Results is its progress through the reference's results (results.go).
	Results detect.Cursor
	// lowLive: no word of its stack stored at a call depth above 0 lies
	// below it (freed.go; bookkeeping, not hashed).
	lowLive uint64
}

// CPU is one processor.
type CPU struct {
	Cur     int8 // running task, or -1 when the CPU is free
	Stopper bool // spinning in its stop_machine stopper
	IPI     bool // a sync_core IPI is pending on it
}

// Write is the provenance of one store to text.
type Write struct {
	ID         uint16
	Step       int
	CPU        int
	Transition int
	Label      string
	Store      Store
}

// Machine is the whole simulated system. The zero value is not usable: use New.
type Machine struct {
	img   *kernel.Image
	core  core     // the ISA's registers, decoder and executor
	shape isaShape // what the machine knows of the ISA without decoding
	cfg   Config
	prog  *Program
	st    *static

	text []byte
	prov []uint16 // write id of every text byte; 0 = compiled

	data     []byte              // every data segment of the image, one after another
	stack    []byte              // all task stacks, one after another
	slots    []uint8             // per stack word: the register it was written from
	stackSum [MaxTasks][2]uint64 // per worker: sum of wordHash over its stack words
	// pend lists the stack words changed since stackSum was
	// last brought up to date (pendWord, flushWords: their old
	// contributions are out, their new ones not yet in); pending marks
	// them, per stack word
	pend    []int32
	pending []bool
	// stackLow, per worker: no word of its stack below this word index was
	// ever written (storeWord, putWord): those hold New's zeros, unwritten
	// slots and depth 0 (bookkeeping for CopyFrom, not hashed)
	stackLow [MaxTasks]int32
	depth    []uint8 // per stack word: the call depth it was stored at (freed.go); nil with KeepFreed
	// dataStack counts the bytes and windows of data that make the state
	// odd (symmetry.go: dataOdd), dataOddSum sums their markHash; dmark
	// says what last wrote each byte of data (nil: nothing yet)
	dataStack  int
	dataOddSum [2]uint64
	dmark      []uint8
	// The workers' digests for the symmetric hash, kept while they hold
	// (symmetry.go: taskDigest): bit t of tdOK says tdig[t] is t's, of
	// tdOdd that t's state is odd.
	tdig        [MaxTasks][2]uint64
	tdOK, tdOdd uint32
	// Likewise every task's digest for the exact hash (hashExact:
	// exactDigest), not rebased: bit t of xdOK says xdig[t] is t's.
	xdig [MaxTasks][2]uint64
	xdOK uint32
	// Likewise the CPUs' view digests (fetch.go: viewDigest) and the
	// digest of what no task or CPU owns (hashShared).
	vdig     [MaxCPUs]uint64
	viewOK   uint8
	shDig    [2]uint64
	sharedOK bool

	cpus [MaxCPUs]CPU
	// The CPUs' exclusive monitors and which of them an exclusive
	// access reached (monitor.go).
	mon     [MaxCPUs]isa.Monitor
	monOn   uint16
	monNone isa.Monitor // Monitor's answer outside a CPU (never armed for long)
	tasks   []Task      // the workers and the patcher (cfg.Tasks+1: copying a clone copies only these)
	runq    [MaxTasks]int8
	nrunq   int8

	patcher int8 // index of the patcher task (== cfg.Tasks)
	pop     int  // next patcher op
	psub    int  // progress inside the op
	stopOn  bool // stop_machine requested
	stopCPU int8
	gpKind  OpKind
	gpCPUs  uint16 // synchronize_sched: CPUs still owing a context switch
	gpTasks uint32 // synchronize_rcu_tasks: tasks still owing a voluntary switch
	ipiWait uint16 // sync_core: CPUs still to take the IPI

	spin        bool // the patcher spins for sync_core IPIs
	bpOn        bool // text_poke_bp's table is published
	bpOp        int  // the op whose stores the int3 handler emulates
	preemptions int
	steps       int
	nwrites     uint16
	wtrans      []uint8 // transition of each write id (index id-1)
	lastCPU     int8
	cur         int8   // task executing in the current step (for the Bus)
	loadedInto  uint8  // control register loaded from the stack in this step (0: none)
	loadedLink  uint8  // the register that slot was written from
	loadedFrom  uint64 // the slot's address
	outOfSteps  bool   // the run used up its step budget (Done; no verdict)
	budgetWhy   string // what ran out, if not the steps
	loads       int    // Bus loads and stores since the counters were reset (Record mode reads them)
	stores      int
	hist        [][]siteSnap
	// dataWritten: some store of a worker wrote data (data then may
	// differ from the image's; bookkeeping for CopyFrom, not hashed)
	dataWritten bool
	env         envStep // the env-cell accesses of the step being taken (envcells.go)
	// dataDig is data's digest while dataOK (hashShared; only data stores
	// clear it)
	dataDig [2]uint64
	dataOK  bool
	// The stable bytes' knowledge sets (stable.go): know, per task, a set
	// of words (copied); rel, copied on write. premiseBroken: the run
	// broke a premise of quiet.go's or stable.go's reductions.
	know          []uint64
	rel           []relEntry
	premiseBroken bool
	// textSum and histSum: the sums of textByteHash over the text bytes
	// and of siteHash over the sites the patcher's ops may write, kept by
	// write and snapshotSites once sumOn (hashShared)
	textSum, histSum [2]uint64
	sumOn            bool
	// dprov: the write id of each dirty byte (static.dirty), kept by
	// write once the views exist; syncCPU copies it
	dprov []uint16
	// vsum, per CPU: the sum of viewHash over the dirty bytes of its view;
	// dsum: the same of a CPU synchronized now (dprov's); kept once vsumOn
	// (fetch.go: initViewSums)
	vsum   [MaxCPUs]uint64
	dsum   uint64
	vsumOn bool
	// siteDirty: the sites written since the last snapshotSites, one bit
	// per site (bookkeeping: a function of the patcher's progress, so not
	// hashed)
	siteDirty [2]uint64
	hazards   []detect.Hazard

	// The CPUs' views of text (fetch.go): per CPU and dirty byte, the
	// oldest write it may fetch and the write it last synchronized on.
	floor    []uint16
	synced   []uint16
	syncStep [MaxCPUs]int    // for explanations: when and why each CPU last synchronized
	syncWhy  [MaxCPUs]string // (not part of the state: it changes no future)
	syncTask [MaxCPUs]int8   // the task syncWhy names (its %d), or -1: syncWhyText
	fetchBuf fetchVariant
	// Bytes handed to the core's decode and cmodxOK (interface calls: a
	// local array passed there would be allocated on every call).
	decodeBuf [maxFetch]byte
	cmodxBuf  [2][8]byte
	done      bool
	noMemo    bool        // a MemoCheck clone: executes for real
	tr        tracerState // the tracer kernel's state (tracer.go)
	// What the last Hash named each CPU and task (footprint.go; not part
	// of the state).
	cpuName  [MaxCPUs]uint64
	taskName [MaxTasks]uint64
	// floorFree: Hash leaves the floors out (views.go: HashFloorFree).
	floorFree bool
	// The wrong-result detector (results.go): the reference compared
	// with (nil: none), and what a recording machine collects (nil: none).
	ref *detect.Results
	res *resultRec

	// Record mode only.
	writes []Write
	trace  []Event
	// the instructions the bounded trace dropped (tracewindow.go)
	traceOmit, traceOmitFrom, traceOmitTo int
	stackRec                              *stackLog // stack stores (stackrec.go)
	passes                                []PassRecord
}

type siteSnap = [detect.MaxSiteBytes]uint16

// static is shared by all clones of one machine.
type static struct {
	hook      []kernel.HookKind // per text byte
	siteOf    []int8            // per text byte: site index or -1 (the last one, if sites overlap)
	overlap   bool              // some sites overlap (snapshotSites then looks at every site)
	callee    map[uint64]uint8  // callee contracts (extra bytes popped)
	compiled  map[uint64]bool   // entries of compiled functions, whose calls clear dead registers (deadregs.go); nil with KeepDead
	stackBase uint64
	stackSize uint64   // bytes of one task's stack
	stackArea uint64   // bytes of all the workers' stacks
	symmetric bool     // Hash canonicalizes the workers (symmetry.go)
	dirty     []uint32 // text offsets any store of the program may write
	// opDirty: the indices into dirty of the offsets the patcher's ops may
	// write (dirty less those only boot writes); opSites: the sites
	// (indices into the image's) that have some of them. The rest of
	// dirty, and the other sites, hold boot's bytes in every state (and
	// every CPU's view of them is boot's: every CPU synchronizes after
	// boot, and no later write changes them): the state hash passes them
	// over.
	opDirty []int32
	// syncedDirty: those of opDirty whose synced write the hash reads
	// (viewKey), for the floor-free hash (views.go); floorDirty: those
	// whose floor it reads, for the floors HashFloorFree appends.
	syncedDirty []int32
	floorDirty  []int32
	opSites     []int
	// histSeq, per site: the history it goes through as the patcher runs
	// its ops in order (initHistSeq); a machine's history of the site is
	// a prefix of it, shared, while snapshotSites finds the snapshots it
	// predicts
	histSeq [][]siteSnap
	// textSumAt and dsumAt: Machine.textSum and dsum after write id
	// sumBase+1+k (initWriteSums)
	sumBase     uint16
	textSumAt   [][2]uint64
	dsumAt      []uint64
	histSeqHash [][][2]uint64 // siteHash of each prefix of histSeq: [i][n-1] for n entries
	mutable     []bool        // per text byte: some store may write it
	dataAt      []dataSeg
	class       []uint8 // per text byte: classLocal/classVisible once known
	fetch       *fetchStatic
	traced      []bool // per text byte: the entry of a traced function (results.go; nil when unused)
	// obs, per text byte: in the fetch window of an instruction a worker
	// executed in the reference run, or loaded there; nil when the
	// reduction of quiet.go is off.
	obs []bool
	// fobs is obs without the sites' bytes the instrumentation only loads
	// (quiet.go): an instruction fetch's window must lie in it
	fobs []bool
	// roData, per byte of data: on a read-only page (symmetry.go); nil
	// when none is.
	roData []bool
	memo   *memoTable    // memoized thread-local stretches (memo.go; nil: off)
	stable *stableStatic // the stable data bytes (stable.go; nil: none)
	// shadowOK, per patcher op: a store that may be behind a breakpoint
	// (shadow.go; nil: none)
	shadowOK []bool
	// dataDig: the digest of the image's data as New maps it (hashShared,
	// for machines whose data no store wrote)
	dataDig [2]uint64
}

type dataSeg struct {
	addr, size, off uint64
	ro              []bool // per page: read-only (memory.go); nil when none is
	quiet           []bool // per page: quiet (quiet.go); nil when none is
}

// dataOff returns the offset into m.data of n bytes at addr, if they lie in
// one data segment.
func (m *Machine) dataOff(addr uint64, n int) (uint64, bool) {
	for _, d := range m.st.dataAt {
		if inRange(addr, n, d.addr, d.addr+d.size) {
			return d.off + addr - d.addr, true
		}
	}
	return 0, false
}

// PassRecord is a site pass kept for explanations (Record mode).
type PassRecord struct {
	Task  int
	Start int // step of the first fetch
	End   int // step at which the task left the site (0: still inside)
	Pass  detect.Pass
	Mixed bool // the bytes executed are a combination the site never held
}

// Errors returned by New and Apply.
var (
	ErrConfig = errors.New("invalid configuration")
	ErrChoice = errors.New("no such choice")
)

// DefaultMaxSteps is the default step budget of one run: far more than any
// finite run of the built-in texts (255 iterations of 64 functions on 15
// tasks take well under a million steps), so that only a runaway uses it up.
const DefaultMaxSteps = 4_000_000

// StackBase is where task stacks start in the data address space. The
// stacks sit high, as a kernel's do, where the numbers real code computes
// (counters, arguments, sums, the early rounds of a cipher from small
// inputs) rarely fall: a value in the stack window that is not its
// holder's own stack address makes a state odd for the task symmetry
// (symmetry.go), and at 1 MiB an AES state word of m_aes_round did, which
// doubled its search. It stays below 2 GiB, so that a 32-bit load of a
// stack address that sign-extends (RISC-V's lw, arm64's ldrsw) gives the
// address, and below 4 GiB, so that the 32-bit ISAs reach it and one
// 32-bit word spells it for the hash of stack words.
const StackBase = 0x7f00_0000

// New builds a machine that runs img with cfg and a patcher executing prog.
func New(img *kernel.Image, cfg Config, prog *Program) (*Machine, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	k, shape, err := newCore(img)
	if err != nil {
		return nil, err
	}
	if len(img.Sites) > 127 {
		return nil, fmt.Errorf("%w: too many sites (%d)", ErrConfig, len(img.Sites))
	}
	if shape.bytewiseText {
		prog = bytewiseOutsideBreakpoints(prog)
	}
	m := &Machine{img: img, cfg: cfg, prog: prog, core: k, shape: shape}
	st := &static{
		hook:      make([]kernel.HookKind, len(img.Text)),
		siteOf:    make([]int8, len(img.Text)),
		callee:    map[uint64]uint8{},
		stackBase: StackBase,
		stackSize: uint64(cfg.StackWords * 4),
		stackArea: uint64(cfg.Tasks * cfg.StackWords * 4),
	}
	for _, h := range img.Hooks {
		st.hook[h.Addr-img.Base] = h.Kind
	}
	for i := range st.siteOf {
		st.siteOf[i] = -1
	}
	for i, s := range img.Sites {
		if s.Len > detect.MaxSiteBytes {
			return nil, fmt.Errorf("%w: site %s is %d bytes, more than %d", ErrConfig, s.Func, s.Len, detect.MaxSiteBytes)
		}
		for b := 0; b < s.Len; b++ {
			o := s.Addr - img.Base + uint64(b)
			st.overlap = st.overlap || st.siteOf[o] >= 0
			st.siteOf[o] = int8(i)
		}
	}
	for _, c := range img.Callees {
		st.callee[c.Addr] = c.Pop
	}
	if !cfg.KeepDead {
		st.compiled = compiledEntries(img)
	}
	m.st = st
	m.text = append([]byte(nil), img.Text...)
	if meetsStackWindow(img.Base, img.Base+uint64(len(img.Text))) {
		return nil, fmt.Errorf("%w: text at %#x overlaps the stacks", ErrConfig, img.Base)
	}
	if st.dataAt, m.data, err = mapData(img.Data); err != nil {
		return nil, err
	}
	for _, d := range st.dataAt {
		for p, ro := range d.ro {
			if !ro {
				continue
			}
			if st.roData == nil {
				st.roData = make([]bool, len(m.data))
			}
			for i := d.off + uint64(p)*PageSize; i < d.off+uint64(p+1)*PageSize; i++ {
				st.roData[i] = true
			}
		}
	}
	m.dataStack, m.dataOddSum = m.dataOdd(0, len(m.data))
	m.prov = make([]uint16, len(img.Text))
	m.hist = make([][]siteSnap, len(img.Sites))
	for i := range m.hist {
		m.hist[i] = []siteSnap{{}}
	}
	m.patcher = int8(cfg.Tasks)
	m.stack = make([]byte, cfg.Tasks*cfg.StackWords*4)
	for t := range cfg.Tasks {
		m.stackLow[t] = int32((t + 1) * cfg.StackWords)
	}
	m.slots = make([]uint8, cfg.Tasks*cfg.StackWords)
	m.pending = make([]bool, cfg.Tasks*cfg.StackWords)
	for i := range m.slots {
		m.slots[i] = detect.SlotUnwritten
		t := i / cfg.StackWords
		h := m.wordHash(i, t, m.stackLo(t))
		m.stackSum[t][0] += h[0]
		m.stackSum[t][1] += h[1]
	}
	for c := range m.cpus {
		m.cpus[c].Cur = -1
	}
	m.tasks = make([]Task, cfg.Tasks+1)
	for t := 0; t <= cfg.Tasks; t++ {
		task := &m.tasks[t]
		task.State = Runnable
		task.CPU = -1
		task.Pass.Site = -1
		k.reset(int8(t), img.Entry, m.stackTop(t))
		m.enqueue(int8(t))
	}
	if err := m.initStandIns(); err != nil {
		return nil, err
	}
	// Boot: ftrace_init() puts every site into its disabled form before
	// anything runs.
	for _, s := range prog.Boot {
		if err := m.checkStore(s); err != nil {
			return nil, err
		}
		m.write(s, 0, -1, "boot")
	}
	m.snapshotSites()
	seen := make([]bool, len(m.text))
	for _, op := range prog.Ops {
		for _, s := range op.Stores {
			if err := m.checkStore(s); err != nil {
				return nil, err
			}
			for i := range s.Bytes {
				seen[s.Addr-img.Base+uint64(i)] = true
			}
		}
	}
	opSeen := slices.Clone(seen)
	for o, ok := range seen {
		if ok {
			if si := st.siteOf[o]; si >= 0 && !slices.Contains(st.opSites, int(si)) {
				st.opSites = append(st.opSites, int(si))
			}
		}
	}
	if st.overlap { // siteOf names one site of a byte: take them all
		st.opSites = st.opSites[:0]
		for i := range img.Sites {
			st.opSites = append(st.opSites, i)
		}
	}
	slices.Sort(st.opSites)
	for _, s := range prog.Boot {
		for i := range s.Bytes {
			seen[s.Addr-img.Base+uint64(i)] = true
		}
	}
	for o, ok := range seen {
		if ok {
			if opSeen[o] {
				st.opDirty = append(st.opDirty, int32(len(st.dirty)))
			}
			st.dirty = append(st.dirty, uint32(o))
		}
	}
	st.mutable = seen
	m.initHistSeq(prog)
	m.initSums()
	{
		var dh hasher
		dh.init()
		dh.bytes(m.data)
		st.dataDig = dh.sum()
	}
	st.class = make([]uint8, len(m.text))
	m.initFetch(prog)
	m.initResults()
	if err := m.initTracer(); err != nil {
		return nil, err
	}
	m.initQuiet()
	m.initStable()
	m.initShadow()
	m.initViewSums()
	m.initWriteSums()
	if !cfg.KeepFreed {
		m.initFreed()
	}
	m.initMemo()
	// Workers are alike unless the wrong-result detector owes them
	// different results (symmetry.go).
	st.symmetric = !cfg.NoSymmetry && cfg.Focus == 0 && cfg.Tasks > 1 && m.refSymmetric(cfg.Reference)
	m.initMirror()
	m.initEnv() // envcells.go
	return m, nil
}

// bytewiseOutsideBreakpoints returns prog with every multi-byte store
// outside a bp_on…bp_off bracket made bytewise (a copy; prog is shared).
func bytewiseOutsideBreakpoints(prog *Program) *Program {
	out := *prog
	out.Ops = append([]Op(nil), prog.Ops...)
	inside := false
	for i := range out.Ops {
		switch op := &out.Ops[i]; op.Kind {
		case OpBreakpointOn:
			inside = true
		case OpBreakpointOff:
			inside = false
		case OpStore:
			if !inside && len(op.Stores) > 0 && len(op.Stores[0].Bytes) > 1 {
				op.Bytewise = true
			}
		}
	}
	return &out
}

func (m *Machine) checkStore(s Store) error {
	if s.Addr < m.img.Base || s.Addr+uint64(len(s.Bytes)) > m.img.Base+uint64(len(m.text)) {
		return fmt.Errorf("%w: store to %#x (%d bytes) is outside text", ErrConfig, s.Addr, len(s.Bytes))
	}
	return nil
}

func (m *Machine) stackTop(t int) uint64 {
	return StackBase + uint64((t+1)*m.cfg.StackWords*4)
}

// Image returns the image the machine runs.
func (m *Machine) Image() *kernel.Image { return m.img }

// Config returns the machine's configuration, defaults filled in.
func (m *Machine) Config() Config { return m.cfg }

// Program returns the patcher's program.
func (m *Machine) Program() *Program { return m.prog }

// Steps returns the number of steps taken.
func (m *Machine) Steps() int { return m.steps }

// Preemptions returns the involuntary switches made so far.
func (m *Machine) Preemptions() int { return m.preemptions }

// Done reports whether the run is over: every task exited, or a fault.
func (m *Machine) Done() bool { return m.done }

// OutOfSteps reports whether the run ended because it used up its step
// budget: no verdict can be drawn from it (neither SAFE nor UNSAFE).
func (m *Machine) OutOfSteps() bool { return m.outOfSteps }

// Hazards returns the hazards seen so far, first first.
func (m *Machine) Hazards() []detect.Hazard { return m.hazards }

// Trace returns the recorded events (Record mode).
func (m *Machine) Trace() []Event { return m.trace }

// Writes returns the provenance of every text write (Record mode).
func (m *Machine) Writes() []Write { return m.writes }

// Passes returns the recorded site passes (Record mode).
func (m *Machine) Passes() []PassRecord { return m.passes }

// Task returns task i (workers are 0..Tasks-1, the patcher is Tasks).
func (m *Machine) Task(i int) *Task {
	m.touched(taskBit(int8(i))) // the caller may change it
	return &m.tasks[i]
}

// PC returns task i's program counter.
func (m *Machine) PC(i int) uint64 { return m.core.pc(int8(i)) }

// Reg returns register r of task i, numbered as the ISA package numbers
// its registers (arm.R0…arm.PC, x86.RAX…x86.R15).
func (m *Machine) Reg(i, r int) uint64 { return m.core.reg(int8(i), r) }

// Patcher returns the index of the patcher task.
func (m *Machine) Patcher() int { return int(m.patcher) }

// CPU returns CPU c.
func (m *Machine) CPU(c int) CPU { return m.cpus[c] }

// Text returns the current text bytes (do not modify).
func (m *Machine) Text() []byte { return m.text }

// Provenance returns the write id of every text byte (0 = compiled).
func (m *Machine) Provenance() []uint16 { return m.prov }

// Clone returns an independent copy of m. Clones share the static tables
// of the machine they came from (hooks, sites, the decode cache and the
// cores' tables of plain instructions, which fill as the machines run), so
// a machine and its clones must stay on one goroutine; build another
// machine for another goroutine.
func (m *Machine) Clone() *Machine {
	c := &Machine{}
	c.CopyFrom(m)
	return c
}

// CopyFrom makes m a copy of src, reusing m's buffers.
func (m *Machine) CopyFrom(src *Machine) {
	text, prov, stack, slots, hist, data, floor, synced, depth := m.text, m.prov, m.stack, m.slots, m.hist, m.data, m.floor, m.synced, m.depth
	hz, wt, k, tasks, dprov, dmark, wrote, know := m.hazards, m.wtrans, m.core, m.tasks, m.dprov, m.dmark, m.dataWritten, m.know
	// src's stack sums are made exact, and m's pending marks cleared: the
	// copy then has none pending.
	src.flushWords()
	for _, w := range m.pend {
		m.pending[w] = false
	}
	pend, pending := m.pend[:0], m.pending
	// Every machine of one lineage (the same static) holds the same text
	// and provenance outside the offsets the patcher's ops may write (the
	// image's, and boot's stores, done in New before any copy), and, while
	// no store wrote data, the image's data. The patcher is one task
	// running its ops in program order, so the k-th write is always the
	// same store (fetch.go's histories number them so: fetchStatic.wOff
	// and wLen): text, provenance, dprov and wtrans are a function of
	// nwrites, and the site histories of nwrites and the sites not yet
	// snapshotted (siteDirty: snapshotSites runs after every store but a
	// stopper's, which snapshot once the op's stores are done). So two
	// machines of one lineage differ there only in the bytes of the
	// writes between their two counts and in the histories of the sites
	// those writes touch or either one has still to snapshot.
	kin := m.st == src.st && len(text) == len(src.text) && len(data) == len(src.data) &&
		len(hist) == len(src.hist) && len(dprov) == len(src.dprov) && src.st.fetch != nil && !src.st.overlap
	kinData := kin && !m.dataWritten && !src.dataWritten
	w0, dirty0, low0 := m.nwrites, m.siteDirty, m.stackLow
	kinStack := m.st == src.st && len(stack) == len(src.stack) && len(depth) == len(src.depth) && (depth == nil) == (src.depth == nil)
	*m = *src
	m.pend = pend
	if len(pending) != len(src.pending) {
		pending = make([]bool, len(src.pending))
	}
	m.pending = pending
	m.tasks = append(tasks[:0], src.tasks...)
	m.core = src.core.copyInto(k)
	if kin {
		m.text, m.prov, m.dprov, m.hist = text, prov, dprov, hist
		if w0 != src.nwrites {
			m.wtrans = append(wt[:0], src.wtrans...)
			fs := src.st.fetch
			for id := min(w0, src.nwrites); id < max(w0, src.nwrites); id++ {
				o, n := uint64(fs.wOff[id]), uint64(fs.wLen[id]) // write id+1
				copy(text[o:o+n], src.text[o:o+n])
				copy(prov[o:o+n], src.prov[o:o+n])
				for b := o; b < o+n; b++ {
					d := fs.dirtyOf[b]
					dprov[d] = src.dprov[d]
					if si := src.st.siteOf[b]; si >= 0 {
						h := src.hist[si]
						hist[si] = h[:len(h):len(h)] // (shared as below)
					}
				}
			}
		} else {
			m.wtrans = wt
		}
		for w, bitsLeft := range dirty0 {
			bitsLeft |= src.siteDirty[w]
			for bitsLeft != 0 {
				si := w<<6 + bits.TrailingZeros64(bitsLeft)
				bitsLeft &= bitsLeft - 1
				h := src.hist[si]
				hist[si] = h[:len(h):len(h)]
			}
		}
	} else {
		m.wtrans = append(wt[:0], src.wtrans...)
		m.text = append(text[:0], src.text...)
		m.prov = append(prov[:0], src.prov...)
		if src.dprov != nil {
			m.dprov = append(dprov[:0], src.dprov...)
		}
		if len(hist) != len(src.hist) {
			hist = make([][]siteSnap, len(src.hist))
		}
		// The histories only grow (snapshotSites appends): the copy shares
		// src's arrays, capped at their length so that either one's next
		// append copies instead of writing into the other's.
		for i, h := range src.hist {
			hist[i] = h[:len(h):len(h)]
		}
		m.hist = hist
	}
	if kinStack {
		// Each worker's stack below both machines' low marks holds New's
		// values in both.
		m.stack, m.slots, m.depth = stack, slots, depth
		for t := range m.cfg.Tasks {
			lo, hi := int(min(low0[t], src.stackLow[t])), (t+1)*m.cfg.StackWords
			copy(stack[4*lo:4*hi], src.stack[4*lo:4*hi])
			copy(slots[lo:hi], src.slots[lo:hi])
			if depth != nil {
				copy(depth[lo:hi], src.depth[lo:hi])
			}
		}
	} else {
		m.stack = append(stack[:0], src.stack...)
		m.slots = append(slots[:0], src.slots...)
		if src.depth != nil {
			m.depth = append(depth[:0], src.depth...)
		}
	}
	if kinData {
		m.data = data
	} else {
		m.data = append(data[:0], src.data...)
	}
	// While no store wrote a machine's data, its marks are all markBoot
	// (or not made yet).
	if src.dataWritten {
		m.dmark = append(dmark[:0], src.dmark...)
	} else {
		if wrote {
			clear(dmark)
		}
		m.dmark = dmark
	}
	m.floor = append(floor[:0], src.floor...)
	m.synced = append(synced[:0], src.synced...)
	if src.know != nil {
		m.know = append(know[:0], src.know...)
	}
	m.hazards = append(hz[:0], src.hazards...)
	if src.res != nil {
		m.res = src.res.clone()
	}
	if src.cfg.Record {
		m.writes = append([]Write(nil), src.writes...)
		m.trace = append([]Event(nil), src.trace...)
		m.passes = append([]PassRecord(nil), src.passes...)
	}
}

// enqueue appends t to the run queue.
func (m *Machine) enqueue(t int8) {
	m.touched(taskBit(t))
	m.runq[m.nrunq] = t
	m.nrunq++
	m.tasks[t].State = Runnable
	m.tasks[t].CPU = -1
}

func (m *Machine) dequeue(t int8) {
	for i := int8(0); i < m.nrunq; i++ {
		if m.runq[i] == t {
			copy(m.runq[i:m.nrunq], m.runq[i+1:m.nrunq])
			m.nrunq--
			return
		}
	}
}

// write stores s into text and records its provenance.
func (m *Machine) write(s Store, transition int, cpu int, label string) {
	m.nwrites++
	id := m.nwrites
	m.wtrans = append(m.wtrans, uint8(transition))
	off := s.Addr - m.img.Base
	m.sharedOK = false
	// The sums after the k-th write are static (initWriteSums: the k-th
	// write is always the same store); the per-byte updates are for
	// writes it did not number.
	k := int(id) - int(m.st.sumBase) - 1
	known := k >= 0 && k < len(m.st.textSumAt)
	if known {
		m.textSum, m.dsum = m.st.textSumAt[k], m.st.dsumAt[k]
	}
	for i, b := range s.Bytes {
		o := off + uint64(i)
		if m.sumOn && !known {
			m.textSum = sub2(m.textSum, textByteHash(o, m.text[o], m.prov[o]))
			m.textSum = add2(m.textSum, textByteHash(o, b, id))
		}
		m.text[o], m.prov[o] = b, id
		if m.dprov != nil {
			d := m.st.fetch.dirtyOf[o] // (every store after New writes dirty bytes)
			if m.vsumOn && !known {
				m.dsum += m.viewHash(int(d), id, id) - m.viewHash(int(d), m.dprov[d], m.dprov[d])
			}
			m.dprov[d] = id
		}
		if si := m.st.siteOf[o]; si >= 0 {
			m.siteDirty[si>>6] |= 1 << (si & 63)
		}
	}
	if m.floor != nil {
		m.ownStore(cpu, off, len(s.Bytes), id)
	}
	if m.monOn != 0 {
		m.clearRemote(-1, s.Addr, len(s.Bytes)) // monitor.go
	}
	if m.cfg.Record {
		m.writes = append(m.writes, Write{ID: id, Step: m.steps, CPU: cpu, Transition: transition, Label: label, Store: s})
	}
}

// transitionOf returns the transition a write id belongs to (0: compiled or boot).
func (m *Machine) transitionOf(id uint16) int {
	if id == 0 {
		return -1
	}
	return int(m.wtrans[id-1])
}

// snapshotSites appends the current state of every site whose bytes
// changed to its history. Only write changes provenance, and it marks the
// sites it writes in siteDirty, so the sites left unmarked still equal the
// last entry of their history (when sites overlap, siteOf names one of
// them, and every site is looked at).
func (m *Machine) snapshotSites() {
	if m.st.overlap {
		for i := range m.img.Sites {
			m.siteDirty[i>>6] |= 1 << (i & 63)
		}
	}
	for w, bitsLeft := range m.siteDirty {
		for bitsLeft != 0 {
			i := w<<6 + bits.TrailingZeros64(bitsLeft)
			bitsLeft &= bitsLeft - 1
			s := m.img.Sites[i]
			var snap siteSnap
			off := s.Addr - m.img.Base
			copy(snap[:], m.prov[off:off+uint64(s.Len)])
			h := m.hist[i]
			if h[len(h)-1] != snap {
				if seq := m.histSeq(i); len(h) < len(seq) && unsafe.SliceData(h) == unsafe.SliceData(seq) && seq[len(h)] == snap {
					// h is a prefix of seq: the same as the append, without
					// its copy, and the sites' hashes are static's
					m.hist[i] = seq[: len(h)+1 : len(h)+1]
					if m.sumOn {
						sh := m.st.histSeqHash[i]
						m.histSum = add2(sub2(m.histSum, sh[len(h)-1]), sh[len(h)])
					}
				} else {
					if m.sumOn {
						m.histSum = sub2(m.histSum, siteHash(i, len(h), &h[len(h)-1]))
						m.histSum = add2(m.histSum, siteHash(i, len(h)+1, &snap))
					}
					m.hist[i] = append(h, snap)
				}
				m.sharedOK = false
			}
		}
	}
	m.siteDirty = [2]uint64{}
}

// Hash returns a 128-bit hash of every part of the state that can affect
// the rest of a run (up to a renaming of CPUs, the order of the run queue
// and, unless Config.NoSymmetry, a permutation of the worker tasks, which
// change no future behaviour, only option numbering: symmetry.go): text
// and its provenance, site histories, registers, stacks and slot
// provenance, task and CPU states, the run queue, the patcher's progress,
// the waits and detector state. Left out: the step counter, the last CPU
// and recorded traces, which do not change what can happen next, and the
// preemptions used, which an explorer keeps beside the hash (a state
// reached again with fewer preemptions left is no news).
func (m *Machine) Hash() [2]uint64 {
	if m.st.symmetric {
		if h, ok := m.hashSym(); ok {
			return h
		}
	}
	return m.hashExact()
}

// hashExact is Hash with every task hashed by its index.
func (m *Machine) hashExact() [2]uint64 {
	m.flushWords()
	m.checkMirror()
	var h hasher
	h.init()
	h.u64(0) // apart from hashSym's
	m.hashShared(&h)
	// CPUs are identical: the state is the same whichever CPU runs which
	// task, so CPU records are hashed as a sorted multiset (with every
	// per-CPU flag of the waits inside its record).
	var cpus [MaxCPUs]uint64
	for c := 0; c < m.cfg.CPUs; c++ {
		cpus[c] = m.cpuRecord(c) | uint64(uint8(m.cpus[c].Cur))
		if len(m.st.dirty) > 0 {
			cpus[c] = mix(cpus[c] ^ m.viewDigest(c))
		}
	}
	for c := 0; c < m.cfg.CPUs; c++ {
		m.cpuName[c] = cpus[c]
	}
	for t := 0; t <= int(m.patcher); t++ {
		m.taskName[t] = uint64(t)
	}
	sortSmall(cpus[:m.cfg.CPUs])
	for _, v := range cpus[:m.cfg.CPUs] {
		h.u64(v)
	}
	for t := 0; t <= int(m.patcher); t++ {
		if m.st.symmetric && t < int(m.patcher) && m.tasks[t].State == Exited {
			// As hashSym has it (symmetry.go): a symmetric parent stands
			// for states that differ in what their exited workers left.
			h.u64(uint64(Exited) | uint64(m.gpTasks>>t&1)<<8)
			continue
		}
		d := m.exactDigest(t)
		h.u64(d[0])
		h.u64(d[1])
		if t < int(m.patcher) {
			h.u64(m.stackSum[t][0])
			h.u64(m.stackSum[t][1])
		}
	}
	// The run queue is hashed as a set: every pick and every preemption
	// offers each runnable task, so its order changes only the numbering
	// of options, never which states follow.
	h.u64(m.runnable())
	h.u64(uint64(m.gpTasks))
	if m.dataStack != 0 {
		// What makes the state odd in data (two states with the same
		// bytes may differ in what a later store leaves odd).
		h.u64(m.dataOddSum[0])
		h.u64(m.dataOddSum[1])
	}
	m.hashProgress(&h, true)
	if m.tr.on {
		m.hashTracer(&h, true)
	}
	return h.sum()
}

// hashShared feeds h what no task or CPU owns: text, site histories, data.
// Their digest is kept (shDig) until one of them changes: write,
// snapshotSites and the stores to data, their only writers, mark it.
// Text and the histories enter as sums over their bytes and sites
// (textSum, histSum: kept by write and snapshotSites, so a store costs
// its bytes, not a pass over every byte the patcher may write), and only
// those the patcher's ops may write (static.opDirty, opSites): the others
// hold boot's bytes in every state. Data enters as its digest (the
// image's, static.dataDig, while no store wrote it).
func (m *Machine) hashShared(h *hasher) {
	if !m.sharedOK {
		var s hasher
		s.init()
		s.u64(m.textSum[0])
		s.u64(m.textSum[1])
		s.u64(m.histSum[0])
		s.u64(m.histSum[1])
		d := m.st.dataDig
		if m.dataWritten {
			if !m.dataOK {
				var dh hasher
				dh.init()
				dh.bytes(m.data)
				m.dataDig, m.dataOK = dh.sum(), true
			}
			d = m.dataDig
		}
		s.u64(d[0])
		s.u64(d[1])
		if m.rel != nil {
			m.hashRel(&s) // stable.go
		}
		m.shDig, m.sharedOK = s.sum(), true
	}
	h.u64(m.shDig[0])
	h.u64(m.shDig[1])
}

// textByteHash is text offset o's part of Machine.textSum, holding v
// stored by write id p.
func textByteHash(o uint64, v byte, p uint16) [2]uint64 {
	x := o<<24 | uint64(p)<<8 | uint64(v)
	return [2]uint64{mix(x ^ 0x452821e638d01377), mix(x + 0xbe5466cf34e90c6c)}
}

// siteHash is site i's part of Machine.histSum, with a history of n
// entries whose last is last.
func siteHash(i, n int, last *siteSnap) [2]uint64 {
	var s hasher
	s.init()
	s.u64(uint64(i)<<32 | uint64(n))
	var w uint64 // four write ids a word
	for k, v := range last {
		w |= uint64(v) << (16 * (k % 4))
		if k%4 == 3 || k == detect.MaxSiteBytes-1 {
			s.u64(w)
			w = 0
		}
	}
	return s.sum()
}

func add2(a, b [2]uint64) [2]uint64 { return [2]uint64{a[0] + b[0], a[1] + b[1]} }
func sub2(a, b [2]uint64) [2]uint64 { return [2]uint64{a[0] - b[0], a[1] - b[1]} }

// histSeq is static.histSeq[i], nil before initHistSeq.
func (m *Machine) histSeq(i int) []siteSnap {
	if m.st.histSeq == nil {
		return nil
	}
	return m.st.histSeq[i]
}

// initHistSeq fills static.histSeq from the histories after boot by
// performing the program's stores in order as patcherStep and stopperStep
// do (one write id per store, or per byte of a bytewise one; a snapshot
// after each store, and after all of a stop_machine's), and points the
// machine's histories into it. It is a prediction: snapshotSites uses
// it only where it finds what it predicts.
func (m *Machine) initHistSeq(prog *Program) {
	seq := make([][]siteSnap, len(m.hist))
	for i, h := range m.hist {
		seq[i] = append([]siteSnap(nil), h...)
	}
	prov := append([]uint16(nil), m.prov...)
	id := m.nwrites
	var dirty [2]uint64
	put := func(s Store) {
		id++
		for j := range s.Bytes {
			o := s.Addr - m.img.Base + uint64(j)
			prov[o] = id
			if si := m.st.siteOf[o]; si >= 0 {
				dirty[si>>6] |= 1 << (si & 63)
			}
		}
	}
	snapshot := func() {
		for i, s := range m.img.Sites {
			if dirty[i>>6]&(1<<(i&63)) == 0 && !m.st.overlap {
				continue
			}
			var snap siteSnap
			off := s.Addr - m.img.Base
			copy(snap[:], prov[off:off+uint64(s.Len)])
			if seq[i][len(seq[i])-1] != snap {
				seq[i] = append(seq[i], snap)
			}
		}
		dirty = [2]uint64{}
	}
	for w := range prog.writes() {
		put(w.Store)
		if w.last {
			snapshot()
		}
	}
	for i, h := range m.hist {
		seq[i] = seq[i][:len(seq[i]):len(seq[i])]
		m.hist[i] = seq[i][:len(h):len(h)]
	}
	m.st.histSeq = seq
	m.st.histSeqHash = make([][][2]uint64, len(seq))
	for i, sq := range seq {
		for n := 1; n <= len(sq); n++ {
			m.st.histSeqHash[i] = append(m.st.histSeqHash[i], siteHash(i, n, &sq[n-1]))
		}
	}
}

// initWriteSums fills static.textSumAt and dsumAt: from New's state on,
// it performs every write of the program in order on the dirty bytes
// (fetch.go's histories give each write id's bytes) and notes the sums
// after each.
func (m *Machine) initWriteSums() {
	fs := m.st.fetch
	if fs == nil || !m.sumOn || !m.vsumOn {
		return
	}
	type put struct {
		d   int32
		val byte
	}
	per := make([][]put, len(fs.wOff)+1) // per write id: its bytes
	for d, h := range fs.hist {
		for _, v := range h {
			if v.id > 0 {
				per[v.id] = append(per[v.id], put{int32(d), v.val})
			}
		}
	}
	val := make([]byte, len(m.st.dirty))
	dp := slices.Clone(m.dprov)
	for i, o := range m.st.dirty {
		val[i] = m.text[o]
	}
	ts, ds := m.textSum, m.dsum
	m.st.sumBase = m.nwrites
	for id := int(m.nwrites) + 1; id < len(per); id++ {
		for _, p := range per[id] {
			o := uint64(m.st.dirty[p.d])
			ts = add2(sub2(ts, textByteHash(o, val[p.d], dp[p.d])), textByteHash(o, p.val, uint16(id)))
			ds += m.viewHash(int(p.d), uint16(id), uint16(id)) - m.viewHash(int(p.d), dp[p.d], dp[p.d])
			val[p.d], dp[p.d] = p.val, uint16(id)
		}
		m.st.textSumAt = append(m.st.textSumAt, ts)
		m.st.dsumAt = append(m.st.dsumAt, ds)
	}
}

// initSums computes textSum and histSum from scratch, once the sites and
// offsets the patcher's ops may write are known; write and snapshotSites
// keep them from then on.
func (m *Machine) initSums() {
	m.textSum, m.histSum = [2]uint64{}, [2]uint64{}
	for _, i := range m.st.opDirty {
		o := uint64(m.st.dirty[i])
		m.textSum = add2(m.textSum, textByteHash(o, m.text[o], m.prov[o]))
	}
	for _, si := range m.st.opSites {
		h := m.hist[si]
		m.histSum = add2(m.histSum, siteHash(si, len(h), &h[len(h)-1]))
	}
	m.sumOn, m.sharedOK = true, false
}

// cpuRecord is CPU c's flags in its hash record, the task it runs left out.
func (m *Machine) cpuRecord(c int) uint64 {
	cp := m.cpus[c]
	return b2u(cp.Stopper)<<8 | b2u(cp.IPI)<<9 | b2u(m.gpCPUs&(1<<c) != 0)<<10 |
		b2u(m.stopOn && int8(c) == m.stopCPU)<<11 | uint64(m.tr.resched>>c&1)<<12
}

// hashTaskState feeds h task t's registers, flags, link taint, shadow
// stack and (strict) pass record, addresses rebased by rb.
func (m *Machine) hashTaskState(h *hasher, t int8, rb *rebase) {
	tk := &m.tasks[t]
	*h, *rb = m.core.hashTask(*h, t, *rb)
	h.u64(uint64(tk.State)<<8 | b2u(tk.InTrap)<<16 | b2u(tk.Preempted)<<17)
	if mon, ok := m.monitorOf(t); ok { // its CPU's exclusive monitor (monitor.go)
		h.u64(rb.v(mon.Addr))
		h.u64(uint64(mon.Size) | 0x6d6f6e<<8)
	}
	if tk.link.on {
		h.u64(rb.v(tk.link.val) ^ rb.v(tk.link.from)<<1 ^ uint64(tk.link.src)<<56)
	}
	h.u64(uint64(tk.Shadow.N))
	for i := 0; i < int(tk.Shadow.N); i++ {
		f := tk.Shadow.Frames[i]
		h.u64(rb.v(f.Ret))
		h.u64(rb.v(f.SP))
		h.u64(f.Callee<<8 | uint64(f.Pop))
	}
	if m.ref != nil { // the wrong-result detector's progress (results.go)
		h.u64(uint64(tk.Results.Returns) | uint64(tk.Results.Stores)<<32)
	}
	if m.know != nil && int(t) < m.cfg.Tasks { // what it knows was stored (stable.go)
		m.hashKnow(h, t)
	}
	if m.cfg.Strict {
		p := &tk.Pass
		h.u64(uint64(uint16(p.Site)) | uint64(p.Seen)<<16 | b2u(p.Open)<<48)
		for _, w := range p.Write {
			h.u64(uint64(w))
		}
	}
}

// runnable is the run queue as a set of tasks.
func (m *Machine) runnable() uint64 {
	var r uint64
	for i := int8(0); i < m.nrunq; i++ {
		r |= 1 << m.runq[i]
	}
	return r
}

// hashProgress feeds h the patcher's progress and the waits. The CPUs a
// sync_core still waits for (ipiWait) are those with the IPI pending, a
// bit of each CPU's record: hashed by CPU number only when the CPUs are
// (exact), so that the symmetric hash stays the same for every renaming.
func (m *Machine) hashProgress(h *hasher, exact bool) {
	h.u64(uint64(m.pop) | uint64(m.psub)<<32)
	h.u64(b2u(m.stopOn) | uint64(m.gpKind)<<16 | b2u(m.spin)<<48 | b2u(m.bpOn)<<49 | uint64(m.bpOp)<<50)
	if exact {
		h.u64(uint64(m.ipiWait))
	}
	h.u64(uint64(m.nwrites)<<32 | b2u(m.done)<<63 | b2u(m.outOfSteps)<<62)
}

// sortSmall sorts a handful of values in place (insertion sort: no
// allocation, and at most MaxCPUs values).
func sortSmall(v []uint64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// hasher is a two-lane multiply-mix hash (128 bits of state). Each lane
// folds two words per 64×64→128-bit multiply (the first word of a pair
// waits in p), and both factors of every multiply depend on the lane, so
// no input value zeroes it. It is not cryptographic; it is deterministic
// across runs and platforms.
type hasher struct {
	a, b, p uint64
	n       uint64 // words fed
}

func (h *hasher) init() { *h = hasher{a: 0x9e3779b97f4a7c15, b: 0xc2b2ae3d27d4eb4f} }

// mum is the folded 128-bit product of x and y.
func mum(x, y uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return hi ^ lo
}

func mix(x uint64) uint64 { return mum(x^0x2d358dccaa6c78a5, 0x8bb84b93962eacc9) }

func (h *hasher) u64(v uint64) {
	h.n++
	if h.n&1 != 0 {
		h.p = v
		return
	}
	h.fold(v)
}

// fold folds p and v into the lanes: u64's second word of a pair, out of
// line so that u64 inlines.
//
//go:noinline
func (h *hasher) fold(v uint64) { h.pair(h.p, v) }

func (h *hasher) pair(p, v uint64) {
	h.a = mum(h.a^p^0xa0761d6478bd642f, bits.RotateLeft64(h.a, 32)^v^0xe7037ed1a0b428db)
	h.b = mum(h.b^v^0x8ebc6af09c88c6e3, bits.RotateLeft64(h.b, 29)^p^0x589965cc75374cc3)
}

func (h *hasher) bytes(p []byte) {
	for len(p) >= 8 {
		h.u64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	var tail [8]byte
	copy(tail[:], p)
	h.u64(binary.LittleEndian.Uint64(tail[:]) ^ uint64(len(p))<<56)
}

// sum is the hash of the words fed so far (their number included).
func (h *hasher) sum() [2]uint64 {
	a, b := h.a, h.b
	if h.n&1 != 0 {
		x := *h
		x.pair(h.p, 0)
		a, b = x.a, x.b
	}
	a ^= h.n * 0x9e3779b97f4a7c15
	return [2]uint64{mix(a ^ b>>7), mix(b ^ a<<9)}
}
