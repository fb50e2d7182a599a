package sched_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// rvCall returns the bytes of auipc+jalr through link from pc to target.
func rvCall(t testing.TB, link int, pc, target uint64) []byte {
	au, jr, ok := riscv.Call(link, pc, target)
	require.True(t, ok)
	return append(au.Bytes(), jr.Bytes()...)
}

func rvSym(t testing.TB, img *kernel.Image, name string) uint64 {
	a, ok := img.Symbol(name)
	require.True(t, ok, name)
	return a
}

// rvSiteForms returns the disabled and enabled bytes of site s of an era,
// as Linux writes them (kernel-facts §4).
func rvSiteForms(t testing.TB, img *kernel.Image, era string, s kernel.Site, target string) (off, on []byte) {
	tr := rvSym(t, img, target)
	nop := riscv.Nop().Bytes()
	switch era {
	case kernel.RVMcount:
		return append(nop, nop...), rvCall(t, riscv.RA, s.Addr, tr)
	case kernel.RVPFE16:
		on = append(riscv.Sd(riscv.RA, riscv.SP, -8).Bytes(), rvCall(t, riscv.RA, s.Addr+4, tr)...)
		on = append(on, riscv.Ld(riscv.RA, riscv.SP, -8).Bytes()...)
		return append(append(append(nop, nop...), nop...), nop...), on
	case kernel.RVPFE8:
		return append(nop, nop...), rvCall(t, riscv.T0, s.Addr, tr)
	}
	call := rvCall(t, riscv.T0, s.Addr, tr)
	return append(call[:4:4], nop...), call
}

// rvRun runs one task alone to its end and returns the machine.
func rvRun(t testing.TB, img *kernel.Image, prog *sched.Program) *sched.Machine {
	m, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 1, StackWords: 128, Record: true}, prog)
	require.NoError(t, err)
	var buf []sched.Action
	for !m.Done() {
		buf = m.Options(buf)
		require.NotEmpty(t, buf)
		m.Apply(buf[0])
	}
	return m
}

// Every era's text runs to completion with its sites disabled and
// enabled: f(x) = g(x)+1 = 2x+1 is computed and the tracer sees each call
// with the site's rec->ip and the worker as parent.
func TestRISCVErasRun(t *testing.T) {
	for _, era := range kernel.RVPrologues {
		for _, enabled := range []bool{false, true} {
			name := era + "/disabled"
			if enabled {
				name = era + "/enabled"
			}
			t.Run(name, func(t *testing.T) {
				img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: era, Functions: 2, Iterations: 3})
				require.NoError(t, err)
				prog := &sched.Program{}
				for i, s := range img.Sites {
					off, on := rvSiteForms(t, img, era, s, "ftrace_caller")
					b := off
					if enabled {
						b = on
					}
					prog.Boot = append(prog.Boot, sched.Store{Addr: s.Addr, Bytes: b, Site: i, Form: "boot"})
				}
				m := rvRun(t, img, prog)
				require.Empty(t, m.Hazards())
				var traces []string
				for _, e := range m.Trace() {
					if e.Kind == sched.EvTrace {
						traces = append(traces, e.Text)
					}
				}
				if !enabled {
					assert.Empty(t, traces)
					return
				}
				require.Len(t, traces, 6)
				// rec->ip: the auipc (eras 0-2) or the jalr slot (era 3);
				// the parent: the return address in the worker.
				assert.Equal(t, "tracer: "+img.Name(img.Sites[0].Call)+" called from worker+0x14", traces[0])
				assert.Equal(t, "tracer: "+img.Name(img.Sites[1].Call)+" called from worker+0x1c", traces[1])
			})
		}
	}
}

// f0's result: the worker passes its loop counter, and after the loop a0
// holds f1(1) = 3 when do_exit runs (the last call before schedule).
func TestRISCVResult(t *testing.T) {
	img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: kernel.RVPFE8, Iterations: 1})
	require.NoError(t, err)
	m := rvRun(t, img, &sched.Program{})
	require.Empty(t, m.Hazards())
	assert.Equal(t, uint64(3), m.Reg(0, riscv.A0)) // f0(1) = g(1)+1
	assert.Equal(t, uint64(0), m.Reg(0, riscv.S0))
}

// The bad-call detector on RISC-V: a site whose jalr runs without its
// auipc (the era-2 enable race) jumps through a stale t0, and the hazard
// says where each half of the target came from.
func TestRISCVBadCallExplained(t *testing.T) {
	img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: kernel.RVPFE8, Iterations: 1})
	require.NoError(t, err)
	s := img.Sites[0]
	_, on := rvSiteForms(t, img, kernel.RVPFE8, s, "ftrace_caller")
	// Boot writes a nop over the auipc and the jalr of a call: the state a
	// task sees that ran the disabled auipc slot and resumed after enable.
	prog := &sched.Program{Boot: []sched.Store{
		{Addr: s.Addr, Bytes: riscv.Nop().Bytes(), Site: 0, Off: 0, Form: "nops"},
		{Addr: s.Addr + 4, Bytes: on[4:], Site: 0, Off: 4, Form: "enabled"},
	}}
	m := rvRun(t, img, prog)
	require.NotEmpty(t, m.Hazards())
	h := m.Hazards()[0]
	assert.Equal(t, detect.BadCall, h.Kind)
	assert.Equal(t, s.Addr+4, h.PC)
	jr, err := riscv.Decode(s.Addr+4, on[4:])
	require.NoError(t, err)
	// t0 is 0 at the first call: the target is the jalr's immediate alone.
	assert.Equal(t, fmt.Sprintf("call from %#x <f0+0x4> to %#x, outside text; low 12 bits %d from jalr t0,%d(t0) at %#x (%s, write#2(boot)); "+
		"upper bits: t0 = 0x0, which no auipc of this task set before the jalr (at %#x it executed 00000013 (nop), write#1(boot))",
		s.Addr+4, uint64(jr.Imm)&^1, jr.Imm, jr.Imm, s.Addr+4, riscv.Word(jr.Enc), s.Addr), h.Detail)
	assert.Equal(t, detect.Fault, m.Hazards()[1].Kind, "then the fetch at the wild address faults")
}
