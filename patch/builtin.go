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

func sm(refs ...Ref) Step { return Step{Kind: StopMachine, Writes: refs} }

func ref(form string, offs ...int) Ref { return Ref{Form: form, Offs: offs} }

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
	return []*Strategy{
		{
			Name: "nop-nop", Arch: kernel.ARM,
			Origin: "seed 000: both words to mov r0,r0 (unsafe under preemption)",
			Forms:  []Form{armEnabled, armNops},
			Boot:   []Ref{ref("nops")}, Enable: []Step{sm(ref("enabled"))}, Disable: []Step{sm(ref("nops"))},
			Enabled: "enabled", Disabled: "nops",
		},
		{
			Name: "jmp-over", Arch: kernel.ARM,
			Origin: "seed 000: b 1f over the call (Steve's suggestion)",
			Forms:  []Form{armEnabled, armJump},
			Boot:   []Ref{ref("jump")}, Enable: []Step{sm(ref("enabled", 0))}, Disable: []Step{sm(ref("jump"))},
			Enabled: "enabled", Disabled: "jump",
		},
		{
			Name: "pop-lr", Arch: kernel.ARM,
			Origin: "Linux 2010-2022: pop {lr} over the bl (ARM: 6318/1)",
			Forms:  []Form{armEnabled, armPopLR},
			Boot:   []Ref{ref("pop-lr")}, Enable: []Step{sm(ref("enabled", 4))}, Disable: []Step{sm(ref("pop-lr"))},
			Enabled: "enabled", Disabled: "pop-lr",
		},
		{
			Name: "add-sp", Arch: kernel.ARM,
			Origin: "Linux since 2022: add sp,sp,#4 over the bl",
			Forms:  []Form{armEnabled, armAddSP},
			Boot:   []Ref{ref("add-sp")}, Enable: []Step{sm(ref("enabled", 4))}, Disable: []Step{sm(ref("add-sp"))},
			Enabled: "enabled", Disabled: "add-sp",
		},
		twoStep("two-step-sched", "seed 000: jump, synchronize_sched(), then nops (Philippe's proposal)", SyncSched),
		twoStep("two-step-rcu-tasks", "jump, synchronize_rcu_tasks(), then nops (what Linux later built)", SyncRCUTasks),
	}
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
