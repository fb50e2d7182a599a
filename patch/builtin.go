package patch

import "github.com/mcountsim/mcountsim/kernel"

// ARM site: offset 0 is the push {lr}, offset 4 the bl (rec->ip).
var (
	armEnabled = Form{Name: "enabled", Pieces: []Piece{{0, "push {lr}"}, {4, "bl __gnu_mcount_nc"}}}
	armNops    = Form{Name: "nops", Pieces: []Piece{{0, "mov r0, r0"}, {4, "mov r0, r0"}}}
	armJump    = Form{Name: "jump", Pieces: []Piece{{0, "b .+8"}}}
	armPopLR   = Form{Name: "pop-lr", Pieces: []Piece{{4, "pop {lr}"}}}
	armAddSP   = Form{Name: "add-sp", Pieces: []Piece{{4, "add sp, sp, #4"}}}
)

// x86 site: the 5-byte call (rec->ip) at offset 0.
var (
	x86Enabled  = Form{Name: "enabled", Pieces: []Piece{{0, "call ftrace_caller"}}}
	x86Disabled = Form{Name: "nop5", Pieces: []Piece{{0, "nop5"}}}
	x86Int3     = Form{Name: "int3", Pieces: []Piece{{0, "int3"}}}
)

// pokeBP is text_poke_bp's protocol writing form over a 5-byte site:
// publish the handler's table, int3 over byte 0, sync_core everywhere,
// bytes 1-4, sync_core, byte 0, sync_core, withdraw the table.
func pokeBP(form string) []Step {
	sync := Step{Kind: SyncCore}
	return []Step{
		{Kind: BreakpointOn, Writes: []Ref{ref(form)}},
		{Kind: Write, Writes: []Ref{ref("int3")}}, sync,
		{Kind: Write, Writes: []Ref{{Form: form, Offs: []int{0}, Bytes: [2]int{1, 5}}}}, sync,
		{Kind: Write, Writes: []Ref{{Form: form, Offs: []int{0}, Bytes: [2]int{0, 1}}}}, sync,
		{Kind: BreakpointOff},
	}
}

func sm(refs ...Ref) Step { return Step{Kind: StopMachine, Writes: refs} }

func ref(form string, offs ...int) Ref { return Ref{Form: form, Offs: offs} }

// oneStopMachine completes s, a strategy over the forms on and off: its
// sites boot as off, and each transition writes the other form (on at the
// offsets onOffs, all when none) in one stop_machine.
func oneStopMachine(s Strategy, on, off Form, onOffs ...int) *Strategy {
	s.Forms = []Form{on, off}
	s.Boot = []Ref{ref(off.Name)}
	s.Enable = []Step{sm(ref(on.Name, onOffs...))}
	s.Disable = []Step{sm(ref(off.Name))}
	s.Enabled, s.Disabled = on.Name, off.Name
	return &s
}

func twoStep(name, origin string, wait StepKind) *Strategy {
	return &Strategy{
		Name: name, Arch: kernel.ARM, Origin: origin,
		Forms:   []Form{armEnabled, armNops, armJump},
		Boot:    []Ref{ref("nops")},
		Enable:  []Step{sm(ref("jump")), {Kind: wait}, sm(ref("enabled", 4)), sm(ref("enabled", 0))},
		Disable: []Step{sm(ref("jump")), {Kind: wait}, sm(ref("nops"))},
		Enabled: "enabled", Disabled: "nops",
	}
}

// Builtins returns the built-in strategies (model.md §2), freshly built.
func Builtins() []*Strategy {
	return append([]*Strategy{
		oneStopMachine(Strategy{
			Name: "nop-nop", Arch: kernel.ARM,
			Origin: "ftrace performance impact with different configuration (linux-arm-kernel, December 2011): both words to mov r0,r0 (unsafe under preemption)",
		}, armEnabled, armNops),
		oneStopMachine(Strategy{
			Name: "jmp-over", Arch: kernel.ARM,
			Origin: "ftrace performance impact with different configuration (linux-arm-kernel, December 2011): b 1f over the call (Steve's suggestion)",
		}, armEnabled, armJump, 0),
		oneStopMachine(Strategy{
			Name: "pop-lr", Arch: kernel.ARM,
			Origin: "Linux 2010-2022: pop {lr} over the bl (ARM: 6318/1)",
		}, armEnabled, armPopLR, 4),
		oneStopMachine(Strategy{
			Name: "add-sp", Arch: kernel.ARM,
			Origin: "Linux since 2022: add sp,sp,#4 over the bl",
		}, armEnabled, armAddSP, 4),
		twoStep("two-step-sched", "ftrace performance impact with different configuration (linux-arm-kernel, December 2011): jump, synchronize_sched(), then nops (Philippe's proposal)", SyncSched),
		twoStep("two-step-rcu-tasks", "jump, synchronize_rcu_tasks(), then nops (what Linux later built)", SyncRCUTasks),
		{
			Name: "plain-write", Arch: kernel.X86,
			Origin:  "the unsafe foil: the 5 bytes stored one by one, no protocol",
			Forms:   []Form{x86Enabled, x86Disabled},
			Boot:    []Ref{ref("nop5")},
			Enable:  []Step{{Kind: Write, Writes: []Ref{ref("enabled")}, Bytewise: true}},
			Disable: []Step{{Kind: Write, Writes: []Ref{ref("nop5")}, Bytewise: true}},
			Enabled: "enabled", Disabled: "nop5",
		},
		oneStopMachine(Strategy{
			Name: "stop-machine", Arch: kernel.X86,
			Origin: "Linux 2008-2012: one stop_machine storing the 5 bytes",
		}, x86Enabled, x86Disabled),
		{
			Name: "text-poke-bp", Arch: kernel.X86,
			Origin: "Linux since 2012: int3, sync_core, bytes 1-4, sync_core, byte 0, sync_core",
			Forms:  []Form{x86Enabled, x86Disabled, x86Int3},
			Boot:   []Ref{ref("nop5")}, Enable: pokeBP("enabled"), Disable: pokeBP("nop5"),
			Enabled: "enabled", Disabled: "nop5",
		},
	}, append(arm64Builtins(), riscvBuiltins()...)...)
}

// Lookup returns the built-in strategy called name for arch.
func Lookup(arch kernel.Arch, name string) (*Strategy, bool) {
	for _, s := range Builtins() {
		if s.Name == name && s.Arch == arch {
			return s, true
		}
	}
	return nil, false
}
