package sched_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// envVar is the shared word of the env-cell fixtures; its initial value
// is 7.
const envVar = 0x200000

// envImage is an ARM text whose worker runs words from the entry, then
// exits (a nop bound to the exit hook); a second nop is the schedule()
// hook the stand-ins loop on.
func envImage(words ...uint32) *kernel.Image {
	img := &kernel.Image{Arch: kernel.ARM, Base: 0x8000, Entry: 0x8000, Align: 4}
	words = append(append([]uint32{
		0xe3001000, // movw r1, #0
		0xe3401020, // movt r1, #32: r1 = envVar
	}, words...), 0xe320f000, 0xe320f000) // nop (exit), nop (schedule)
	for _, w := range words {
		img.Text = binary.LittleEndian.AppendUint32(img.Text, w)
	}
	end := img.Base + uint64(len(img.Text))
	img.Hooks = []kernel.Hook{{Addr: end - 8, Kind: kernel.HookExit}, {Addr: end - 4, Kind: kernel.HookSchedule}}
	img.Symbols = []kernel.Symbol{{Name: "w", Addr: img.Base, Size: uint64(len(img.Text))}}
	data := make([]byte, 16)
	binary.LittleEndian.PutUint32(data, 7)
	img.Data = []kernel.Segment{{Name: ".data", Addr: envVar, Bytes: data}}
	return img
}

// envMachine is worker 0's modular machine of img (2 CPUs, 2 workers, no
// patcher ops) with the value sets env, worker 0 picked on cpu0 and run
// to its first step that is not thread-local.
func envMachine(t *testing.T, img *kernel.Image, env *sched.EnvCells) *sched.Machine {
	t.Helper()
	m, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 2, Focus: 1, Env: env}, &sched.Program{})
	require.NoError(t, err)
	e := exclMachine{t, m}
	e.do(sched.ActPick, 0, 0)
	m.RunLocal(100)
	return m
}

// runs of cpu0 among opts.
func cpu0Runs(opts []sched.Action) []sched.Action {
	var out []sched.Action
	for _, a := range opts {
		if a.CPU == 0 && a.Kind == sched.ActRun {
			out = append(out, a)
		}
	}
	return out
}

// A load of a cell is offered once per value of its set (the initial
// value and the seeded or stored ones, in order), never as a thread-local
// step; each variant reads its value; the store after it writes nothing
// and collects the value its set lacks, so that the next round's set
// holds it.
func TestEnvCellLoads(t *testing.T) {
	img := envImage(
		0xe5910000, // ldr r0, [r1]
		0xe2800001, // add r0, r0, #1
		0xe5810000, // str r0, [r1]
	)
	env := sched.NewEnvCells()
	env.Seed(envVar, 4, 9)
	m := envMachine(t, img, env)
	require.Equal(t, uint64(0x8008), m.PC(0), "RunLocal stops before the load of the cell")
	assert.Equal(t, 0, m.RunLocal(100))
	// Nor does the memo, memoizing every stretch, record through it.
	mm, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 2, Focus: 1, Env: env, MemoAll: true}, &sched.Program{})
	require.NoError(t, err)
	exclMachine{t, mm}.do(sched.ActPick, 0, 0)
	mm.RunLocal(100)
	assert.Equal(t, uint64(0x8008), mm.PC(0))
	assert.Equal(t, 0, mm.RunLocal(100))
	assert.Len(t, cpu0Runs(mm.Options(nil)), 2)
	runs := cpu0Runs(m.Options(nil))
	require.Equal(t, []sched.Action{{CPU: 0, Kind: sched.ActRun, Load: 1}, {CPU: 0, Kind: sched.ActRun, Load: 2}}, runs)
	assert.Equal(t, "cpu0 run (load variant 2)", runs[1].String())
	assert.Equal(t, 1, env.Cells())
	assert.Equal(t, 2, env.Values())
	for i, want := range []uint64{7, 9} {
		c := m.Clone()
		c.Apply(runs[i])
		require.Empty(t, c.Hazards())
		assert.Equal(t, want, c.Reg(0, 0), "variant %d", i+1)
		e := exclMachine{t, c}
		e.do(sched.ActRun, 0, 0) // add
		e.do(sched.ActRun, 0, 0) // str
		require.Empty(t, c.Hazards())
		assert.Equal(t, []byte{7, 0, 0, 0}, c.DataBytes(envVar, 4), "a modular machine writes no cell")
	}
	assert.True(t, env.Grew(), "8 and 10 are not in {7, 9}")
	next, err := env.Next()
	require.NoError(t, err)
	m = envMachine(t, img, next)
	assert.Len(t, cpu0Runs(m.Options(nil)), 4, "the next round's set: 7, the seeded 9 and the stored 8 and 10")
	assert.Equal(t, 4, next.Values())
	assert.False(t, next.Grew())
}

// A first round knows no cell: a store outside the stacks is collected
// (not a fault, as it is without Config.Env) and makes the cell known in
// the next round, its set the initial value and the value stored.
func TestEnvCellsFirstRound(t *testing.T) {
	img := envImage(0xe3a00005, 0xe5810000) // mov r0, #5; str r0, [r1]
	env := sched.NewEnvCells()
	m := envMachine(t, img, env)
	e := exclMachine{t, m}
	e.do(sched.ActRun, 0, 0)
	require.Empty(t, m.Hazards())
	require.True(t, env.Grew())
	next, err := env.Next()
	require.NoError(t, err)
	_ = envMachine(t, img, next)
	assert.Equal(t, []int{1, 2}, []int{next.Cells(), next.Values()})

	bare, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 2, Focus: 1}, &sched.Program{})
	require.NoError(t, err)
	b := exclMachine{t, bare}
	b.do(sched.ActPick, 0, 0)
	bare.RunLocal(100)
	b.do(sched.ActRun, 0, 0)
	require.Len(t, bare.Hazards(), 1)
	assert.Contains(t, bare.Hazards()[0].Detail, "outside the task's stack")
}

// What the value sets cannot vouch for is refused with a fault (the check
// then runs the whole search): a load or store that overlaps a cell
// without being it, a stored value in the stack window, an exclusive
// access to a cell, a load the explorer was not offered values for (ldrd
// over two cells), and cells of mixed sizes across rounds.
func TestEnvCellsRefuse(t *testing.T) {
	for _, c := range []struct {
		name  string
		words []uint32
		cells [][2]uint64 // address, size
		want  string
	}{
		{"byte load of a word cell", []uint32{0xe5d10000}, [][2]uint64{{envVar, 4}}, // ldrb r0, [r1]
			"a load that overlaps the 4-byte shared data cell at 0x200000 without being it (1 bytes at 0x200000)"},
		{"byte store into a word cell", []uint32{0xe5c10001}, [][2]uint64{{envVar, 4}}, // strb r0, [r1, #1]
			"a store that overlaps the 4-byte shared data cell at 0x200000 without being it (1 bytes at 0x200001)"},
		{"a pointer into the stack", []uint32{0xe1a0000d, 0xe5810000}, nil, // mov r0, sp; str r0, [r1]
			"lies in the stack window (a pointer into a task's stack)"},
		{"an exclusive load", []uint32{0xe1910f9f}, [][2]uint64{{envVar, 4}}, // ldrex r0, [r1]
			"an exclusive access to shared data"},
		{"two cells in one load", []uint32{0xe1c120d0}, [][2]uint64{{envVar, 4}, {envVar + 4, 4}}, // ldrd r2, r3, [r1]
			"a load of a shared data cell that the explorer was not offered values for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := sched.NewEnvCells()
			for _, x := range c.cells {
				env.Seed(x[0], int(x[1]), 1)
			}
			m := envMachine(t, envImage(c.words...), env)
			for i := 0; !m.Done() && len(m.Hazards()) == 0; i++ {
				require.Less(t, i, 10)
				m.Apply(cpu0Runs(m.Options(nil))[0])
			}
			require.NotEmpty(t, m.Hazards())
			h := m.Hazards()[0]
			assert.Equal(t, detect.Fault, h.Kind)
			assert.Contains(t, h.Detail, c.want)
			assert.Contains(t, h.Detail, "the thread-modular check's value sets do not apply")
		})
	}
	env := sched.NewEnvCells()
	env.Seed(envVar, 4, 1)
	env.Seed(envVar, 8, 1)
	assert.ErrorContains(t, env.Check(), "overlap (stores of mixed sizes)")
}

// On x86 a compare with a memory destination only reads it, and a call
// through memory loads its target: both are offered one step per value
// of their cell's set (the call lands on the value chosen); an add to
// memory, a read-modify-write, is refused.
func TestEnvCellsX86(t *testing.T) {
	img := &kernel.Image{Arch: kernel.X86, Base: 0x8000, Entry: 0x8000, Align: 1}
	img.Text = []byte{
		0x83, 0x3c, 0x25, 0x00, 0x00, 0x20, 0x00, 0x01, // cmpl $1, 0x200000
		0xff, 0x14, 0x25, 0x08, 0x00, 0x20, 0x00, // call *0x200008
		0x90, 0x90, // nop (exit), nop (schedule)
	}
	img.Hooks = []kernel.Hook{{Addr: 0x800f, Kind: kernel.HookExit}, {Addr: 0x8010, Kind: kernel.HookSchedule}}
	img.Symbols = []kernel.Symbol{{Name: "w", Addr: img.Base, Size: 15}, {Name: "exit", Addr: 0x800f, Size: 1}, {Name: "sched", Addr: 0x8010, Size: 1}}
	data := make([]byte, 16)
	binary.LittleEndian.PutUint32(data, 7)
	binary.LittleEndian.PutUint64(data[8:], 0x800f)
	img.Data = []kernel.Segment{{Name: ".data", Addr: envVar, Bytes: data}}
	env := sched.NewEnvCells()
	env.Seed(envVar, 4, 1)
	env.Seed(envVar+8, 8, 0x8010)
	m := envMachine(t, img, env)
	require.Equal(t, uint64(0x8000), m.PC(0))
	runs := cpu0Runs(m.Options(nil))
	require.Len(t, runs, 2, "the compare's two values")
	m.Apply(runs[1])
	require.Empty(t, m.Hazards())
	runs = cpu0Runs(m.Options(nil))
	require.Len(t, runs, 2, "the call's two targets")
	for i, want := range []uint64{0x800f, 0x8010} {
		c := m.Clone()
		c.Apply(runs[i])
		require.Empty(t, c.Hazards())
		assert.Equal(t, want, c.PC(0))
	}

	img.Text[1] = 0x04 // addl $1, 0x200000
	m = envMachine(t, img, env)
	runs = cpu0Runs(m.Options(nil))
	require.Len(t, runs, 1)
	m.Apply(runs[0])
	require.NotEmpty(t, m.Hazards())
	assert.Contains(t, m.Hazards()[0].Detail, "a load of a shared data cell that the explorer was not offered values for")
}
