package sched_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// exclVar is the shared counter of the LL/SC fixtures.
const exclVar = 0x200000

// exclText is, per ISA, a worker that increments the word at exclVar with
// an LL/SC loop and exits: its words (as binutils assembles them), the
// offsets of the load- and store-exclusive, and the register that holds
// the store's status.
var exclText = []struct {
	arch   kernel.Arch
	words  []uint32
	ll, sc uint64
	status int
	align  int
	name   string
}{
	{kernel.ARM, []uint32{
		0xe3001000, // movw r1, #0
		0xe3401020, // movt r1, #32
		0xe1910f9f, // 1: ldrex r0, [r1]
		0xe2800001, // add r0, r0, #1
		0xe1812f90, // strex r2, r0, [r1]
		0xe3520000, // cmp r2, #0
		0x1afffffa, // bne 1b
		0xe320f000, // nop (exit)
	}, 8, 16, 2, 4, "arm"},
	{kernel.ARM64, []uint32{
		0xd2a00401, // mov x1, #0x200000
		0x885f7c20, // 1: ldxr w0, [x1]
		0x11000400, // add w0, w0, #1
		0x88027c20, // stxr w2, w0, [x1]
		0x35ffffa2, // cbnz w2, 1b
		0xd503201f, // nop (exit)
	}, 4, 12, 2, 4, "arm64"},
	{kernel.RISCV64, []uint32{
		0x002005b7, // lui a1, 0x200
		0x1005a52f, // 1: lr.w a0, (a1)
		0x00150513, // addi a0, a0, 1
		0x18a5a62f, // sc.w a2, a0, (a1)
		0xfe061ae3, // bnez a2, 1b
		0x00000013, // nop (exit)
	}, 4, 12, 12, 2, "riscv64"},
}

func exclImage(arch kernel.Arch) (*kernel.Image, uint64, uint64, int) {
	for _, x := range exclText {
		if x.arch != arch {
			continue
		}
		img := &kernel.Image{Arch: arch, Base: 0x8000, Entry: 0x8000, Align: x.align}
		for _, w := range x.words {
			img.Text = binary.LittleEndian.AppendUint32(img.Text, w)
		}
		img.Hooks = []kernel.Hook{{Addr: img.Base + uint64(len(img.Text)) - 4, Kind: kernel.HookExit}}
		img.Symbols = []kernel.Symbol{{Name: "inc", Addr: img.Base, Size: uint64(len(img.Text))}}
		img.Data = []kernel.Segment{{Name: ".data", Addr: exclVar, Bytes: make([]byte, 8)}}
		return img, img.Base + x.ll, img.Base + x.sc, x.status
	}
	panic("no text")
}

// exclMachine drives a machine by hand: do applies the option of kind
// on cpu (to task, for picks and preemptions), failing if it is not
// offered.
type exclMachine struct {
	t *testing.T
	m *sched.Machine
}

func (e exclMachine) do(kind sched.ActionKind, cpu, task int) {
	e.t.Helper()
	opts := e.m.Options(nil)
	for _, a := range opts {
		if a.Kind == kind && int(a.CPU) == cpu && (kind == sched.ActRun || int(a.Task) == task) {
			e.m.Apply(a)
			return
		}
	}
	e.t.Fatalf("no %v on cpu%d (task %d) among %v", kind, cpu, task, opts)
}

// runTo steps cpu until its task's pc is pc.
func (e exclMachine) runTo(cpu, task int, pc uint64) {
	e.t.Helper()
	for i := 0; e.m.PC(task) != pc; i++ {
		require.Less(e.t, i, 100, "task %d never reached %#x", task, pc)
		e.do(sched.ActRun, cpu, 0)
	}
}

func (e exclMachine) counter() uint32 {
	return binary.LittleEndian.Uint32(e.m.DataBytes(exclVar, 4))
}

// TestExclusiveMonitor: per ISA, (a) a store-exclusive after another CPU's
// store to the reserved word fails (status 1) and its loop retries; (b)
// one after a preemption (a context switch, even back to the same task)
// fails; (c) an uninterrupted pair succeeds (status 0). Every run ends
// with the counter exact.
func TestExclusiveMonitor(t *testing.T) {
	for _, x := range exclText {
		t.Run(x.name, func(t *testing.T) {
			img, ll, sc, st := exclImage(x.arch)
			newM := func(t *testing.T, cpus, tasks int) exclMachine {
				m, err := sched.New(img, sched.Config{CPUs: cpus, Tasks: tasks, Unreduced: true}, &sched.Program{})
				require.NoError(t, err)
				return exclMachine{t, m}
			}
			t.Run("uninterrupted", func(t *testing.T) {
				e := newM(t, 1, 1)
				e.do(sched.ActPick, 0, 0)
				e.runTo(0, 0, ll)
				e.do(sched.ActRun, 0, 0) // the load-exclusive
				assert.Equal(t, isa.Monitor{Addr: exclVar, Size: 4, Armed: true}, e.m.MonitorOfCPU(0))
				e.runTo(0, 0, sc)
				e.do(sched.ActRun, 0, 0) // the store-exclusive
				assert.Equal(t, uint64(0), e.m.Reg(0, st), "status")
				assert.Equal(t, uint32(1), e.counter())
				assert.False(t, e.m.MonitorOfCPU(0).Armed)
			})
			t.Run("remote store", func(t *testing.T) {
				e := newM(t, 2, 2)
				e.do(sched.ActPick, 0, 0)
				e.do(sched.ActPick, 1, 1)
				e.runTo(0, 0, sc) // task 0 holds the reservation
				require.True(t, e.m.MonitorOfCPU(0).Armed)
				e.runTo(1, 1, sc)
				e.do(sched.ActRun, 1, 0) // task 1's pair succeeds: a store to the word
				assert.Equal(t, uint64(0), e.m.Reg(1, st))
				assert.Equal(t, uint32(1), e.counter())
				assert.False(t, e.m.MonitorOfCPU(0).Armed, "cpu1's store cleared cpu0's monitor")
				e.do(sched.ActRun, 0, 0)
				assert.Equal(t, uint64(1), e.m.Reg(0, st), "so task 0's store-exclusive fails")
				assert.Equal(t, uint32(1), e.counter(), "and stores nothing")
				e.runTo(0, 0, sc) // the retry
				e.do(sched.ActRun, 0, 0)
				assert.Equal(t, uint64(0), e.m.Reg(0, st))
				assert.Equal(t, uint32(2), e.counter(), "no update lost")
			})
			t.Run("remote load", func(t *testing.T) {
				e := newM(t, 2, 2)
				e.do(sched.ActPick, 0, 0)
				e.do(sched.ActPick, 1, 1)
				e.runTo(0, 0, sc)
				e.runTo(1, 1, sc) // task 1's load-exclusive of the word clears nothing
				assert.True(t, e.m.MonitorOfCPU(0).Armed)
				assert.True(t, e.m.MonitorOfCPU(1).Armed)
				e.do(sched.ActRun, 0, 0)
				assert.Equal(t, uint64(0), e.m.Reg(0, st))
				e.do(sched.ActRun, 1, 0)
				assert.Equal(t, uint64(1), e.m.Reg(1, st), "task 0's store cleared cpu1's monitor")
			})
			for _, to := range []int{1} {
				t.Run(fmt.Sprintf("preempted to task %d", to), func(t *testing.T) {
					e := newM(t, 1, 2)
					e.do(sched.ActPick, 0, 0)
					e.runTo(0, 0, sc)
					e.do(sched.ActPreempt, 0, to)
					assert.False(t, e.m.MonitorOfCPU(0).Armed, "a context switch clears the monitor")
					if to != 0 {
						e.do(sched.ActPreempt, 0, 0)
					}
					require.Equal(t, sc, e.m.PC(0))
					e.do(sched.ActRun, 0, 0)
					assert.Equal(t, uint64(1), e.m.Reg(0, st), "the store-exclusive after the switch fails")
					assert.Equal(t, uint32(0), e.counter())
					e.runTo(0, 0, sc)
					e.do(sched.ActRun, 0, 0)
					assert.Equal(t, uint64(0), e.m.Reg(0, st))
					assert.Equal(t, uint32(1), e.counter())
				})
			}
			t.Run("timer interrupt back to the same task", func(t *testing.T) {
				// Offered while synchronize_sched waits for this CPU.
				m, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 1, Unreduced: true}, &sched.Program{Ops: []sched.Op{{Kind: sched.OpSyncSched}}})
				require.NoError(t, err)
				e := exclMachine{t, m}
				e.do(sched.ActPick, 0, 0)
				e.do(sched.ActPick, 1, 1) // the patcher
				e.runTo(0, 0, sc)
				e.do(sched.ActRun, 1, 0) // synchronize_sched() starts waiting
				require.True(t, e.m.MonitorOfCPU(0).Armed)
				e.do(sched.ActPreempt, 0, 0)
				assert.False(t, e.m.MonitorOfCPU(0).Armed, "the exception return clears the monitor")
				e.do(sched.ActRun, 0, 0)
				assert.Equal(t, uint64(1), e.m.Reg(0, st))
			})
			t.Run("hash and clone", func(t *testing.T) {
				e := newM(t, 1, 1)
				e.do(sched.ActPick, 0, 0)
				e.runTo(0, 0, sc)
				c := e.m.Clone()
				assert.Equal(t, e.m.Hash(), c.Hash())
				assert.Equal(t, e.m.MonitorOfCPU(0), c.MonitorOfCPU(0))
				c.ClearMonitorOfCPU(0)
				assert.NotEqual(t, e.m.Hash(), c.Hash(), "the monitor is part of the state")
				d := c.Clone()
				d.CopyFrom(e.m)
				assert.Equal(t, e.m.Hash(), d.Hash())
				assert.True(t, d.MonitorOfCPU(0).Armed)
			})
		})
	}
}

// TestExclusiveIncrementsExhaustive: two tasks on two CPUs each increment
// the shared word once through their LL/SC loop; every run of an
// exhaustive search (every option of Options, preemptions up to 2, with
// and without the partial-order reduction) ends with the word exactly 2,
// and the search reaches store-exclusives that fail (the interleavings in
// which the other CPU's store or a preemption falls between the pair are
// not pruned).
func TestExclusiveIncrementsExhaustive(t *testing.T) {
	for _, x := range exclText {
		for _, unreduced := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/unreduced=%v", x.name, unreduced), func(t *testing.T) {
				img, _, sc, st := exclImage(x.arch)
				m, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 2, Unreduced: unreduced}, &sched.Program{})
				require.NoError(t, err)
				seen := map[[2]uint64]int{}
				var runs, failed, states int
				var walk func(m *sched.Machine)
				walk = func(m *sched.Machine) {
					states++
					require.Less(t, states, 200000)
					for task := range 2 {
						if m.Task(task).State != sched.Exited && m.PC(task) == sc+4 && m.Reg(task, st) == 1 {
							failed++
						}
					}
					if m.Done() {
						runs++
						require.Empty(t, m.Hazards())
						require.Equal(t, uint32(2), binary.LittleEndian.Uint32(m.DataBytes(exclVar, 4)), "a lost update")
						return
					}
					h := m.Hash()
					if p, ok := seen[h]; ok && p <= m.Preemptions() {
						return
					}
					seen[h] = m.Preemptions()
					opts := m.OptionsWithin(nil, 2)
					require.NotEmpty(t, opts, "deadlock")
					for _, a := range opts {
						c := m.Clone()
						c.Apply(a)
						walk(c)
					}
				}
				walk(m)
				t.Logf("%d states, %d runs, %d failed store-exclusives", states, runs, failed)
				assert.Positive(t, runs)
				assert.Positive(t, failed, "no interleaving made a store-exclusive fail")
			})
		}
	}
}

// TestExclusiveOnStackIsVisible: an LL/SC pair on the task's own stack (an
// atomic on a local variable) is still an access to the CPU's monitor,
// which a preemption clears: the reduction offers the preemption between
// the pair, so the search reaches a store-exclusive that fails.
func TestExclusiveOnStackIsVisible(t *testing.T) {
	img := &kernel.Image{Arch: kernel.ARM, Base: 0x8000, Entry: 0x8000, Align: 4}
	for _, w := range []uint32{
		0xe24dd008, // sub sp, sp, #8
		0xe19d0f9f, // 1: ldrex r0, [sp]
		0xe2800001, // add r0, r0, #1
		0xe18d2f90, // strex r2, r0, [sp]
		0xe3520000, // cmp r2, #0
		0x1afffffa, // bne 1b
		0xe320f000, // nop (exit)
	} {
		img.Text = binary.LittleEndian.AppendUint32(img.Text, w)
	}
	img.Hooks = []kernel.Hook{{Addr: img.Base + uint64(len(img.Text)) - 4, Kind: kernel.HookExit}}
	m, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 2}, &sched.Program{})
	require.NoError(t, err)
	failed := 0
	seen := map[[2]uint64]int{}
	var walk func(m *sched.Machine)
	walk = func(m *sched.Machine) {
		for task := range 2 {
			if m.Task(task).State != sched.Exited && m.PC(task) == img.Base+16 && m.Reg(task, 2) == 1 {
				failed++
			}
		}
		h := m.Hash()
		if p, ok := seen[h]; m.Done() || ok && p <= m.Preemptions() {
			return
		}
		seen[h] = m.Preemptions()
		for _, a := range m.OptionsWithin(nil, 1) {
			c := m.Clone()
			c.Apply(a)
			walk(c)
		}
	}
	walk(m)
	assert.Positive(t, failed, "the preemption between ldrex and strex was pruned")
}
