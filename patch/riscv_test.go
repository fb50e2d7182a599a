package patch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

func rvImage(t *testing.T, era string) *kernel.Image {
	t.Helper()
	img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: era})
	require.NoError(t, err)
	return img
}

// The RISC-V pieces, as hex words (kernel-history §1.0), at f0's site of
// era 2: ftrace_caller lies 0x24 bytes past the site, ftrace_regs_caller
// 0x1124 (one 4 KiB page and 0x124 bytes).
func TestAssembleRISCV(t *testing.T) {
	img := rvImage(t, kernel.RVPFE8)
	site := img.Sites[0].Addr
	fc, _ := img.Symbol("ftrace_caller")
	frc, _ := img.Symbol("ftrace_regs_caller")
	require.Equal(t, uint64(0x24), fc-site)
	require.Equal(t, uint64(0x1124), frc-site)
	for _, c := range []struct {
		insn string
		off  uint64
		want string
	}{
		{"nop", 0, "00000013"},
		{"c.nop", 0, "0001"},
		{"auipc t0, ftrace_caller", 0, "00000297"},
		{"jalr t0, ftrace_caller", 4, "024282e7"},
		{"auipc t0, ftrace_regs_caller", 0, "00001297"},
		{"jalr t0, ftrace_regs_caller", 4, "124282e7"},
		{"auipc ra, ftrace_caller", 0, "00000097"},
		{"jalr ra, ftrace_caller", 4, "024080e7"},
		{"call t0, ftrace_caller", 0, "00000297 024282e7"},
		{"call ftrace_caller", 0, "00000097 024080e7"},
		{"sd ra, -8(sp)", 0, "fe113c23"},
		{"ld ra, -8(sp)", 0, "ff813083"},
		{"jalr t0, 0(t0)", 4, "000282e7"},
		{"auipc t0, 0x0", 0, "00000297"},
		{"000282e7", 0, "000282e7"},
		{"  JALR  x5, ftrace_caller ", 4, "024282e7"},
	} {
		b, err := Assemble(img, c.insn, site+c.off)
		require.NoError(t, err, c.insn)
		unit := 4
		if len(b) == 2 {
			unit = 2
		}
		assert.Equal(t, c.want, hexUnits(b, unit), c.insn)
	}
	for _, c := range []struct{ insn, err string }{
		{"auipc t0, nowhere", `"auipc t0, nowhere": unknown symbol "nowhere"`},
		{"jalr q9, ftrace_caller", `"jalr q9, ftrace_caller": unknown register q9`},
		{"sd ra, 4096(sp)", `"sd ra, 4096(sp)": offset out of range -2048..2047`},
		{"sd ra, ftrace_caller", `"sd ra, ftrace_caller": want sd REG, N(REG)`},
		{"ecall", `"ecall": cannot assemble (write it as 8 or 4 hex digits)`},
		{"00000053", `"00000053" (fadd.s ft0,ft0,ft0) does not decode to an instruction the simulator runs`},
		{"0000", `"0000" ((undecodable)) does not decode to an instruction the simulator runs`},
	} {
		_, err := Assemble(img, c.insn, site)
		require.Error(t, err, c.insn)
		assert.Equal(t, c.err, err.Error())
	}
}

func hexUnits(b []byte, unit int) string {
	s := ""
	for i := 0; i < len(b); i += unit {
		if i > 0 {
			s += " "
		}
		if unit == 2 {
			s += riscv.Half(uint16(b[i]) | uint16(b[i+1])<<8).String()
		} else {
			s += riscv.Word(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24).String()
		}
	}
	return s
}

// Every RISC-V built-in validates and compiles on its era's layout, and its
// program has the shape Linux's code has.
func TestRISCVBuiltins(t *testing.T) {
	for _, c := range []struct {
		name, era string
		boot      int // boot stores per site
		ops       []sched.OpKind
		stores    int // stores of the first op
	}{
		{"rv-mcount", kernel.RVMcount, 2, []sched.OpKind{sched.OpStopMachine, sched.OpStopMachine}, 2},
		{"rv-pfe16", kernel.RVPFE16, 4, []sched.OpKind{sched.OpStopMachine, sched.OpStopMachine}, 4},
		{"rv-pfe8", kernel.RVPFE8, 2, []sched.OpKind{sched.OpStopMachine, sched.OpStopMachine}, 2},
		{"rv-atomic", kernel.RVAtomic, 2, []sched.OpKind{sched.OpStore, sched.OpFlushIcacheAll, sched.OpStore, sched.OpFlushIcacheAll}, 1},
		{"rv-pfe8-retarget", kernel.RVPFE8, 2, []sched.OpKind{sched.OpStopMachine, sched.OpStopMachine}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ok := Lookup(kernel.RISCV64, c.name)
			require.True(t, ok)
			assert.Equal(t, c.era, s.Prologue)
			img := rvImage(t, s.Prologue)
			prog, err := Compile(s, img, 2)
			require.NoError(t, err)
			assert.Len(t, prog.Boot, c.boot)
			var kinds []sched.OpKind
			for _, op := range prog.Ops {
				kinds = append(kinds, op.Kind)
			}
			assert.Equal(t, c.ops, kinds)
			assert.Len(t, prog.Ops[0].Stores, c.stores)
			for _, st := range prog.Ops[0].Stores {
				// gcc puts the -pg call at f+0xe: 2 mod 4, two halfword
				// fetches under Ziccif; the other eras' sites are aligned.
				assert.Equal(t, c.era == kernel.RVMcount, st.Addr%4 == 2, "%#x", st.Addr)
			}
		})
	}
	// The atomic era's only run-time store is the jalr word at rec->ip.
	s, _ := Lookup(kernel.RISCV64, "rv-atomic")
	img := rvImage(t, kernel.RVAtomic)
	prog, err := Compile(s, img, 2)
	require.NoError(t, err)
	assert.Equal(t, img.Sites[0].Call, prog.Ops[0].Stores[0].Addr)
	assert.Equal(t, "024282e7", hexUnits(prog.Ops[0].Stores[0].Bytes, 4))
	assert.Equal(t, "00000013", hexUnits(prog.Ops[2].Stores[0].Bytes, 4))
}

// A scenario file can say the same: layout, a retarget between the two
// trampolines, flush_icache_all.
func TestRISCVFile(t *testing.T) {
	const text = `strategy retarget
arch     riscv64
layout   pfe8
state    enabled=regs disabled=caller
form     caller 0: auipc t0, ftrace_caller | 4: jalr t0, ftrace_caller
form     regs   0: auipc t0, ftrace_regs_caller | 4: jalr t0, ftrace_regs_caller
boot     caller
enable   stop_machine regs
enable   flush_icache_all
disable  stop_machine caller
`
	f, err := ParseFile("retarget.strategy", strings.NewReader(text))
	require.NoError(t, err)
	assert.Equal(t, kernel.RVPFE8, f.Strategy.Prologue)
	img := rvImage(t, kernel.RVPFE8)
	prog, err := Compile(f.Strategy, img, 2)
	require.NoError(t, err)
	require.Len(t, prog.Ops, 3)
	assert.Equal(t, sched.OpFlushIcacheAll, prog.Ops[1].Kind)
	assert.Equal(t, "00001297 124282e7", hexUnits(append(prog.Ops[0].Stores[0].Bytes, prog.Ops[0].Stores[1].Bytes...), 4))
}
