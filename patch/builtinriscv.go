package patch

import "github.com/mcountsim/mcountsim/kernel"

// riscvPair is the auipc+jalr pair through link that calls target from a
// site's first word (make_call_t0, or the -pg call through ra).
func riscvPair(name, link, target string, at int) Form {
	return Form{Name: name, Pieces: []Piece{{at, "auipc " + link + ", " + target}, {at + 4, "jalr " + link + ", " + target}}}
}

func riscvNops(name string, offs ...int) Form {
	f := Form{Name: name}
	for _, o := range offs {
		f.Pieces = append(f.Pieces, Piece{o, "nop"})
	}
	return f
}

func flush() Step { return Step{Kind: FlushIcacheAll} }

// riscvBuiltins are the RISC-V strategies, one per era of Linux's RISC-V
// dynamic ftrace (kernel-facts §4, kernel-history §1), each on the layout
// of its era (Strategy.Prologue), and a retarget of era 2's enabled sites
// between its two trampolines.
func riscvBuiltins() []*Strategy {
	return []*Strategy{
		oneStopMachine(Strategy{
			Name: "rv-mcount", Arch: kernel.RISCV64, Prologue: kernel.RVMcount,
			Origin: "Linux 2018-2020 (c15ac4fd60d5): -pg, auipc ra+jalr ra after the prologue <-> two nops, under stop_machine",
		}, riscvPair("enabled", "ra", "ftrace_caller", 0), riscvNops("nops", 0, 4)),
		oneStopMachine(Strategy{
			Name: "rv-pfe16", Arch: kernel.RISCV64, Prologue: kernel.RVPFE16,
			Origin: "Linux 2020-2023 (afc76b8b8011): sd ra; auipc ra; jalr ra; ld ra <-> four nops, one write under stop_machine",
		}, Form{Name: "enabled", Pieces: []Piece{{0, "sd ra, -8(sp)"}, {4, "auipc ra, ftrace_caller"}, {8, "jalr ra, ftrace_caller"}, {12, "ld ra, -8(sp)"}}}, riscvNops("nops", 0, 4, 8, 12)),
		oneStopMachine(Strategy{
			Name: "rv-pfe8", Arch: kernel.RISCV64, Prologue: kernel.RVPFE8,
			Origin: "Linux 6.3-6.15 (6724a76cff85): auipc t0+jalr t0 <-> two nops, one write under stop_machine",
		}, riscvPair("enabled", "t0", "ftrace_caller", 0), riscvNops("nops", 0, 4)),
		{
			Name: "rv-atomic", Arch: kernel.RISCV64, Prologue: kernel.RVAtomic,
			Origin: "Linux since 2025 (b2137c3b6d7a, 5aa4ef955884): auipc t0 once at boot; nop <-> jalr t0 by one aligned store, then flush_icache_all()",
			Forms: []Form{
				riscvPair("enabled", "t0", "ftrace_caller", 0),
				{Name: "disabled", Pieces: []Piece{{0, "auipc t0, ftrace_caller"}, {4, "nop"}}},
			},
			Boot:    []Ref{ref("disabled")},
			Enable:  []Step{store(ref("enabled", 4)), flush()},
			Disable: []Step{store(ref("disabled", 4)), flush()},
			Enabled: "enabled", Disabled: "disabled",
		},
		{
			Name: "rv-pfe8-retarget", Arch: kernel.RISCV64, Prologue: kernel.RVPFE8,
			Origin: "8547649981e6: an enabled era-2 site moved between ftrace_caller and ftrace_regs_caller, the auipc+jalr pair rewritten under stop_machine",
			Forms:  []Form{riscvPair("caller", "t0", "ftrace_caller", 0), riscvPair("regs", "t0", "ftrace_regs_caller", 0)},
			// Boot stands for the enable that made every site call ftrace_caller.
			Boot: []Ref{ref("caller")}, Enable: []Step{sm(ref("regs"))}, Disable: []Step{sm(ref("caller"))},
			Enabled: "regs", Disabled: "caller",
		},
	}
}
