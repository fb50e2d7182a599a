package sched_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

func machine(t testing.TB, arch kernel.Arch, strategy string, cfg sched.Config) *sched.Machine {
	t.Helper()
	img, err := kernel.Build(arch, kernel.Config{})
	require.NoError(t, err)
	st, ok := patch.Lookup(arch, strategy)
	require.True(t, ok)
	prog, err := patch.Compile(st, img, 2)
	require.NoError(t, err)
	m, err := sched.New(img, cfg, prog)
	require.NoError(t, err)
	return m
}

// runRandom plays one run choosing options at random.
func runRandom(m *sched.Machine, rng *rand.Rand, bound int) {
	var buf []sched.Action
	for !m.Done() {
		buf = m.OptionsWithin(buf, bound)
		if len(buf) == 0 {
			m.Deadlock()
			return
		}
		m.Apply(buf[rng.Intn(len(buf))])
	}
}

// Properties of the kernel services, checked on many random runs of every
// strategy that uses them.
func TestServicesOnRandomRuns(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
		preempt  sched.Preempt
	}{
		{kernel.ARM, "jmp-over", sched.PreemptFull},
		{kernel.ARM, "jmp-over", sched.PreemptNone},
		{kernel.ARM, "two-step-sched", sched.PreemptFull},
		{kernel.ARM, "two-step-rcu-tasks", sched.PreemptFull},
		{kernel.ARM, "two-step-rcu-tasks", sched.PreemptNone},
		{kernel.X86, "text-poke-bp", sched.PreemptFull},
		{kernel.X86, "stop-machine", sched.PreemptNone},
	} {
		t.Run(c.strategy+"/"+c.preempt.String(), func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			for i := 0; i < 150; i++ {
				m := machine(t, c.arch, c.strategy, sched.Config{CPUs: 3, Tasks: 3, Preempt: c.preempt, Record: true})
				runRandom(m, rng, 3)
				if c.strategy != "two-step-sched" {
					require.Empty(t, m.Hazards(), "run %d", i)
				}
				checkServices(t, m, c.preempt)
			}
		})
	}
}

func checkServices(t *testing.T, m *sched.Machine, preempt sched.Preempt) {
	t.Helper()
	cpus, tasks := m.Config().CPUs, m.Config().Tasks
	inStopper := map[int]bool{}
	var gpCall string
	exited := map[int]bool{}
	var owedCPU map[int]bool
	var owedTask map[int]bool
	running := map[int]int{} // cpu -> task
	for _, e := range m.Trace() {
		switch e.Kind {
		case sched.EvPreempt:
			require.NotEqual(t, sched.PreemptNone, preempt, "no preemption under preempt=none")
			delete(owedCPU, e.CPU)
			delete(running, e.CPU)
		case sched.EvSwitch:
			running[e.CPU] = e.Task
		case sched.EvYield:
			delete(owedCPU, e.CPU)
			delete(owedTask, e.Task)
			delete(running, e.CPU)
		case sched.EvExit:
			exited[e.Task] = true
			delete(owedCPU, e.CPU)
			delete(owedTask, e.Task)
			delete(running, e.CPU)
		case sched.EvStopperIn:
			inStopper[e.CPU] = true
			delete(owedCPU, e.CPU)
			delete(running, e.CPU)
		case sched.EvStopperOut:
			inStopper = map[int]bool{}
		case sched.EvStore:
			if e.Task == -1 { // written by the stopper
				require.Len(t, inStopper, cpus, "stop_machine stores only while every CPU spins in its stopper")
			}
		case sched.EvPatch:
			for _, k := range []string{"synchronize_sched", "synchronize_rcu_tasks"} {
				if !strings.Contains(e.Text, k+"() called") {
					continue
				}
				gpCall = e.Text
				owedCPU, owedTask = map[int]bool{}, map[int]bool{}
				if k == "synchronize_sched" {
					for c, tk := range running {
						if c != e.CPU && tk != tasks {
							owedCPU[c] = true
						}
					}
				} else {
					for tk := 0; tk < tasks; tk++ {
						if !exited[tk] {
							owedTask[tk] = true
						}
					}
				}
			}
		case sched.EvWaitDone:
			if strings.Contains(e.Text, "synchronize_sched() returns") {
				require.Empty(t, owedCPU, "synchronize_sched returned before every CPU switched: %s", gpCall)
			}
			if strings.Contains(e.Text, "synchronize_rcu_tasks() returns") {
				require.Empty(t, owedTask, "synchronize_rcu_tasks returned before every task switched voluntarily: %s", gpCall)
			}
		}
	}
}

// The machine is deterministic: the same choices give the same run.
func TestDeterministic(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		a := machine(t, kernel.ARM, "nop-nop", sched.Config{Record: true})
		b := machine(t, kernel.ARM, "nop-nop", sched.Config{Record: true})
		runRandom(a, rand.New(rand.NewSource(seed)), 2)
		runRandom(b, rand.New(rand.NewSource(seed)), 2)
		require.Equal(t, a.Trace(), b.Trace())
		require.Equal(t, a.Hazards(), b.Hazards())
		require.Equal(t, a.Hash(), b.Hash())
	}
}

// A clone is independent of its original and evolves identically.
func TestCloneIndependent(t *testing.T) {
	m := machine(t, kernel.X86, "text-poke-bp", sched.Config{})
	rng := rand.New(rand.NewSource(3))
	var buf []sched.Action
	for i := 0; i < 30; i++ {
		buf = m.OptionsWithin(buf, 2)
		m.Apply(buf[rng.Intn(len(buf))])
	}
	c := m.Clone()
	require.Equal(t, m.Hash(), c.Hash())
	before := m.Hash()
	buf = c.OptionsWithin(buf, 2)
	c.Apply(buf[len(buf)-1])
	assert.Equal(t, before, m.Hash(), "stepping the clone leaves the original alone")
	buf = m.OptionsWithin(buf, 2)
	m.Apply(buf[len(buf)-1])
	assert.Equal(t, m.Hash(), c.Hash(), "the same step from the same state gives the same state")
}

// Options lists preemptions after every other action, so that schedules
// keep their meaning at larger bounds.
func TestPreemptionsListedLast(t *testing.T) {
	m := machine(t, kernel.ARM, "nop-nop", sched.Config{Unreduced: true})
	rng := rand.New(rand.NewSource(9))
	var buf []sched.Action
	seen := 0
	for !m.Done() {
		buf = m.OptionsWithin(buf, 5)
		preempting := false
		for _, a := range buf {
			if a.Kind == sched.ActPreempt {
				preempting = true
				seen++
			} else {
				require.False(t, preempting, "%v after a preemption option", a)
			}
		}
		m.Apply(buf[rng.Intn(len(buf))])
	}
	assert.Greater(t, seen, 0)
}

// Invalid configurations are errors.
func TestConfigErrors(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	for _, cfg := range []sched.Config{{CPUs: 9}, {Tasks: 16}, {StackWords: 8}} {
		_, err := sched.New(img, cfg, &sched.Program{})
		assert.ErrorIs(t, err, sched.ErrConfig, "%+v", cfg)
	}
	_, err = sched.New(img, sched.Config{}, &sched.Program{Boot: []sched.Store{{Addr: 0x10, Bytes: []byte{1}}}})
	assert.ErrorIs(t, err, sched.ErrConfig)
}

// A thread-local step allocates nothing.
func TestLocalStepDoesNotAllocate(t *testing.T) {
	m := machine(t, kernel.ARM, "jmp-over", sched.Config{})
	var buf []sched.Action
	buf = m.Options(buf)
	m.Apply(buf[0]) // switch a task in
	allocs := testing.AllocsPerRun(5, func() {
		buf = m.Options(buf)
		m.Apply(buf[0])
	})
	assert.Equal(t, 0.0, allocs)
}

// RunLocal(1) takes exactly the step Options would offer alone.
func TestRunLocalIsApplyOfTheOnlyOption(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
	}{{kernel.ARM, "nop-nop"}, {kernel.ARM, "two-step-rcu-tasks"}, {kernel.X86, "text-poke-bp"}} {
		rng := rand.New(rand.NewSource(5))
		for run := 0; run < 30; run++ {
			m := machine(t, c.arch, c.strategy, sched.Config{CPUs: 2, Tasks: 2})
			var buf []sched.Action
			local := 0
			for !m.Done() {
				probe := m.Clone()
				buf = m.OptionsWithin(buf, 2)
				if len(buf) == 0 {
					break
				}
				if probe.RunLocal(1) == 1 {
					local++
					require.Len(t, buf, 1)
					require.Equal(t, sched.ActRun, buf[0].Kind)
					m.Apply(buf[0])
					require.Equal(t, m.Hash(), probe.Hash())
					require.Equal(t, m.Steps(), probe.Steps())
					require.Equal(t, m.Hazards(), probe.Hazards())
					continue
				}
				m.Apply(buf[rng.Intn(len(buf))])
			}
			require.Greater(t, local, 0)
		}
	}
}

// A function that returns to the right place with its stack pointer moved
// is a stack-imbalance (here f0's pop {r4, pc} turned into ldm sp, {r4, pc},
// which loads the right words but leaves sp 8 bytes low).
func TestStackImbalance(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	f0, ok := img.Symbol("f0")
	require.True(t, ok)
	ret := f0 + 0x14
	require.Equal(t, []byte{0x10, 0x80, 0xbd, 0xe8}, img.Text[ret-img.Base:ret-img.Base+4], "pop {r4, pc}")
	copy(img.Text[ret-img.Base:], []byte{0x10, 0x80, 0x9d, 0xe8}) // ldm sp, {r4, pc}
	st, _ := patch.Lookup(kernel.ARM, "jmp-over")
	prog, err := patch.Compile(st, img, 2)
	require.NoError(t, err)
	m, err := sched.New(img, sched.Config{}, prog)
	require.NoError(t, err)
	var buf []sched.Action
	for !m.Done() && len(m.Hazards()) == 0 {
		buf = m.Options(buf)
		m.Apply(buf[0])
	}
	require.NotEmpty(t, m.Hazards())
	h := m.Hazards()[0]
	assert.Equal(t, detect.StackImbalance, h.Kind)
	assert.Equal(t, ret, h.PC)
	assert.Contains(t, h.Detail, "f0 returned with sp")
}

// RunLocal(k) is k rounds of Apply(Options()[0]) on every core, also when
// the step budget ends the run inside RunLocal's loop: the same state
// hash, steps, hazards, end and budget flag.
func TestRunLocalIsAppliesOfTheOnlyOption(t *testing.T) {
	for _, c := range []struct {
		arch     kernel.Arch
		strategy string
	}{{kernel.ARM, "nop-nop"}, {kernel.X86, "text-poke-bp"}, {kernel.RISCV64, "rv-mcount"}, {kernel.ARM64, "arm64-call-ops"}} {
		t.Run(c.arch.String(), func(t *testing.T) {
			rng := rand.New(rand.NewSource(7))
			local := 0
			for run := 0; run < 20; run++ {
				cfg := sched.Config{CPUs: 2, Tasks: 2, MaxSteps: 20 + rng.Intn(200)}
				var m *sched.Machine
				if c.arch == kernel.ARM64 {
					m = arm64Machine(t, c.strategy, cfg) // its strategies pick the prologue
				} else {
					m = machine(t, c.arch, c.strategy, cfg)
				}
				var buf []sched.Action
				for !m.Done() {
					probe := m.Clone()
					if k := probe.RunLocal(1 + rng.Intn(40)); k > 0 {
						local += k
						for i := 0; i < k; i++ {
							buf = m.Options(buf)
							require.Len(t, buf, 1)
							m.Apply(buf[0])
						}
						require.Equal(t, m.Hash(), probe.Hash())
						require.Equal(t, m.Steps(), probe.Steps())
						require.Equal(t, m.Hazards(), probe.Hazards())
						require.Equal(t, m.Done(), probe.Done())
						require.Equal(t, m.OutOfSteps(), probe.OutOfSteps())
						if m.Done() {
							break
						}
					}
					buf = m.OptionsWithin(buf, 2)
					if len(buf) == 0 {
						break
					}
					m.Apply(buf[rng.Intn(len(buf))])
				}
			}
			require.Greater(t, local, 100)
		})
	}
}
