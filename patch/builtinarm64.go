package patch

import "github.com/mcountsim/mcountsim/kernel"

// arm64 sites of -fpatchable-function-entry=2 (kernel.ARM64PFE2): offset 0
// is the first entry NOP (mov x9, x30 once ftrace_init_nop ran), offset 4
// the second, rec->ip (NOP or bl ftrace_caller). The table of
// arch/arm64/kernel/ftrace.c:
//
//	| Compiled | Disabled   | Enabled    |
//	| NOP      | MOV X9, LR | MOV X9, LR |
//	| NOP      | NOP        | BL <entry> |
var (
	arm64Enabled  = Form{Name: "enabled", Pieces: []Piece{{0, "mov x9, x30"}, {4, "bl ftrace_caller"}}}
	arm64Disabled = Form{Name: "disabled", Pieces: []Piece{{0, "mov x9, x30"}, {4, "nop"}}}
	arm64Nops     = Form{Name: "nops", Pieces: []Piece{{0, "nop"}, {4, "nop"}}}
)

// arm64 CALL_OPS sites (-fpatchable-function-entry=4,2, kernel.ARM64PFE42):
// the 8-byte ftrace_ops literal at offset 0 (ALIGN_DOWN(rec->ip - 12, 8)),
// then the two entry words at 8 and 12 (rec->ip).
var (
	arm64OpsEnabled  = Form{Name: "enabled", Pieces: []Piece{{0, ".quad tracer_ops"}, {8, "mov x9, x30"}, {12, "bl ftrace_caller"}}}
	arm64OpsDisabled = Form{Name: "disabled", Pieces: []Piece{{0, ".quad ftrace_nop_ops"}, {8, "mov x9, x30"}, {12, "nop"}}}
)

// arm64 -pg sites (kernel.ARM64PG): the bl _mcount word after the frame
// record and "mov x0, x30".
var (
	arm64PGEnabled  = Form{Name: "enabled", Pieces: []Piece{{0, "bl ftrace_caller"}}}
	arm64PGDisabled = Form{Name: "nop", Pieces: []Piece{{0, "nop"}}}
)

func store(refs ...Ref) Step { return Step{Kind: Write, Writes: refs} }

// arm64Builtins are the arm64 strategies: Linux's three eras and the two
// foils that change both entry words.
func arm64Builtins() []*Strategy {
	return []*Strategy{
		{
			Name: "arm64-nop-bl", Arch: kernel.ARM64, Prologue: kernel.ARM64PFE2,
			Origin: "Linux since 5.5 (WITH_REGS, then WITH_ARGS): mov x9,x30 once at boot; NOP <-> BL by one plain store, no stop_machine, no IPI",
			Forms:  []Form{arm64Enabled, arm64Disabled},
			Boot:   []Ref{ref("disabled", 0)},
			Enable: []Step{store(ref("enabled", 4))}, Disable: []Step{store(ref("disabled", 4))},
			Enabled: "enabled", Disabled: "disabled",
		},
		{
			Name: "arm64-call-ops", Arch: kernel.ARM64, Prologue: kernel.ARM64PFE42,
			Origin:  "Linux since 6.3 (WITH_CALL_OPS): the ops literal, then NOP -> BL; to disable, the literal back to ftrace_nop_ops, then BL -> NOP",
			Forms:   []Form{arm64OpsEnabled, arm64OpsDisabled},
			Boot:    []Ref{ref("disabled", 0, 8)},
			Enable:  []Step{store(ref("enabled", 0)), store(ref("enabled", 12))},
			Disable: []Step{store(ref("disabled", 0)), store(ref("disabled", 12))},
			Enabled: "enabled", Disabled: "disabled",
		},
		{
			Name: "arm64-mcount", Arch: kernel.ARM64, Prologue: kernel.ARM64PG,
			Origin: "Linux 3.16-5.4 (-pg): bl _mcount -> NOP at boot, then NOP <-> bl ftrace_caller by one plain store (arch_ftrace_update_code without stop_machine)",
			Forms:  []Form{arm64PGEnabled, arm64PGDisabled},
			Boot:   []Ref{ref("nop")},
			Enable: []Step{store(ref("enabled"))}, Disable: []Step{store(ref("nop"))},
			Enabled: "enabled", Disabled: "nop",
		},
		{
			Name: "arm64-both-plain", Arch: kernel.ARM64, Prologue: kernel.ARM64PFE2,
			Origin: "foil: both entry words toggled (nop,nop <-> mov x9,x30; bl) by plain stores",
			Forms:  []Form{arm64Enabled, arm64Nops},
			Boot:   []Ref{ref("nops")},
			Enable: []Step{store(ref("enabled"))}, Disable: []Step{store(ref("nops"))},
			Enabled: "enabled", Disabled: "nops",
		},
		oneStopMachine(Strategy{
			Name: "arm64-both-sm", Arch: kernel.ARM64, Prologue: kernel.ARM64PFE2,
			Origin: "foil: both entry words toggled under one stop_machine (the arm64 form of the seed's nop-nop)",
		}, arm64Enabled, arm64Nops),
	}
}
