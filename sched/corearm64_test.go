package sched_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

func arm64Machine(t testing.TB, strategy string, cfg sched.Config) *sched.Machine {
	t.Helper()
	st, ok := patch.Lookup(kernel.ARM64, strategy)
	require.True(t, ok, strategy)
	img, err := kernel.Build(kernel.ARM64, kernel.Config{Prologue: st.Prologue})
	require.NoError(t, err)
	prog, err := patch.Compile(st, img, 2)
	require.NoError(t, err)
	m, err := sched.New(img, cfg, prog)
	require.NoError(t, err)
	return m
}

// Linux's arm64 strategies on random runs of 3 CPUs and 3 tasks: no
// hazard, the services behave, and every traced call reaches the tracer
// with (rec->ip, the worker's return address).
func TestARM64ServicesOnRandomRuns(t *testing.T) {
	for _, c := range []struct{ strategy, trace string }{
		{"arm64-nop-bl", "tracer: f0+0x4 called from worker+0x18"},
		{"arm64-call-ops", "tracer: f0+0x4 called from worker+0x18"},
		{"arm64-mcount", "tracer: f0+0x18 called from worker+0x18"},
	} {
		t.Run(c.strategy, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			traced := 0
			for i := 0; i < 100; i++ {
				m := arm64Machine(t, c.strategy, sched.Config{CPUs: 3, Tasks: 3, Record: true})
				runRandom(m, rng, 3)
				require.Empty(t, m.Hazards(), "run %d", i)
				require.True(t, m.Done())
				checkServices(t, m, sched.PreemptFull)
				for _, e := range m.Trace() {
					if e.Kind == sched.EvTrace {
						require.Equal(t, c.trace, e.Text)
						traced++
					}
				}
			}
			assert.Greater(t, traced, 0)
		})
	}
}

// RunLocal(1) takes exactly the step Options would offer alone, on arm64.
func TestARM64RunLocalIsApplyOfTheOnlyOption(t *testing.T) {
	for _, strategy := range []string{"arm64-nop-bl", "arm64-call-ops", "arm64-both-sm"} {
		rng := rand.New(rand.NewSource(5))
		local := 0
		for run := 0; run < 20; run++ {
			m := arm64Machine(t, strategy, sched.Config{CPUs: 2, Tasks: 2})
			var buf []sched.Action
			for !m.Done() {
				probe := m.Clone()
				buf = m.OptionsWithin(buf, 2)
				if len(buf) == 0 {
					break
				}
				if probe.RunLocal(1) == 1 {
					local++
					require.Len(t, buf, 1)
					m.Apply(buf[0])
					require.Equal(t, m.Hash(), probe.Hash())
					require.Equal(t, m.Hazards(), probe.Hazards())
					continue
				}
				m.Apply(buf[rng.Intn(len(buf))])
			}
		}
		require.Greater(t, local, 0, strategy)
	}
}

// A BL into ftrace_caller with x9 never set (the boot wrote the BL but not
// mov x9, x30): ftrace_caller hands the tracer parent ip 0, restores x30
// from it, and f0 returns to 0.
func TestARM64StaleX9(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{})
	require.NoError(t, err)
	s := img.Sites[0]
	bl, ok := arm64.BL(s.Call, 0x400000+0x50)
	require.True(t, ok)
	fc, _ := img.Symbol("ftrace_caller")
	require.Equal(t, uint64(0x400050), fc)
	prog := &sched.Program{Boot: []sched.Store{{Addr: s.Call, Bytes: bl.Bytes(), Site: 0, Off: 4, Form: "bl-only"}}}
	m, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 1, Record: true}, prog)
	require.NoError(t, err)
	var buf []sched.Action
	for !m.Done() {
		buf = m.Options(buf)
		require.NotEmpty(t, buf)
		m.Apply(buf[0])
	}
	h := m.Hazards()
	require.NotEmpty(t, h)
	assert.Equal(t, detect.BadReturn, h[0].Kind)
	assert.Equal(t, "f0+0x1c", h[0].Where)
	assert.Equal(t, "return to 0x0 <outside text>; its call to f0 expected 0x400018 <worker+0x18>", h[0].Detail)
	var traced []string
	for _, e := range m.Trace() {
		if e.Kind == sched.EvTrace {
			traced = append(traced, e.Text)
		}
	}
	assert.Equal(t, []string{"tracer: f0+0x4 called from 0x0"}, traced)
}

// straightA64 is register and stack work in the style of compiled code.
var straightA64 = []uint32{
	0xd2800204, // mov x4, #0x10
	0x8b040085, // add x5, x4, x4
	0xf10004a5, // subs x5, x5, #0x1
	0xd37ef4a5, // lsl x5, x5, #2
	0xf90003e5, // str x5, [sp]
	0xf94003e0, // ldr x0, [sp]
	0x8b040000, // add x0, x0, x4
	0xf100001f, // cmp x0, #0x0
	0x1a9f07e1, // cset w1, ne
	0x9b027c21, // mul x1, x1, x2
	0xaa020023, // orr x3, x1, x2
	0xca030062, // eor x2, x3, x3
	0x91000463, // add x3, x3, #0x1
	0xa9bf0fe3, // stp x3, x3, [sp, #-16]!
	0,          // ldp x3, x6, [sp], #16 (filled in: LDP into x3 twice is CONSTRAINED UNPREDICTABLE)
}

func straightImageA64(tb testing.TB) *kernel.Image {
	code := append([]uint32(nil), straightA64...)
	code[len(code)-1] = uint32(arm64.LdpPost(3, 6, arm64.SP, 16))
	img := &kernel.Image{Arch: kernel.ARM64, Base: 0x8000, Entry: 0x8000, Align: 4}
	img.Text = binary.LittleEndian.AppendUint32(img.Text, 0xd10103ff) // sub sp, sp, #64
	for len(img.Text) < stepTextBytes {
		for _, w := range code {
			img.Text = binary.LittleEndian.AppendUint32(img.Text, w)
		}
	}
	b, ok := arm64.B(img.Base+uint64(len(img.Text)), img.Base+4)
	if !ok {
		tb.Fatal("branch out of range")
	}
	img.Text = binary.LittleEndian.AppendUint32(img.Text, uint32(b))
	img.Symbols = []kernel.Symbol{{Name: "straight", Addr: img.Base, Size: uint64(len(img.Text))}}
	return img
}

// Under CALL_OPS, ftrace_caller's load of the ops literal is a thread-local
// step exactly where each byte of the literal holds the program's last
// write to it (finalText): before that, which ops it reads depends on when
// the patcher's remaining stores come.
func TestARM64FinalLiteralLoadIsLocal(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	touches := func(s sched.Store, lit uint64) bool {
		return s.Addr < lit+8 && lit < s.Addr+uint64(len(s.Bytes))
	}
	var local, visible int
	for run := 0; run < 300 && (local == 0 || visible == 0); run++ {
		m := arm64Machine(t, "arm64-call-ops", sched.Config{CPUs: 2, Tasks: 2, Record: true})
		var ldr uint64
		text := m.Text()
		for off := 0; off+4 <= len(text); off += 4 {
			if binary.LittleEndian.Uint32(text[off:]) == uint32(arm64.Ldur(2, 2, -16)) {
				ldr = m.Image().Base + uint64(off)
			}
		}
		require.NotZero(t, ldr, "ftrace_caller's ldr x2, [x2, #-16]")
		var buf []sched.Action
		for !m.Done() {
			for w := 0; w < 2; w++ {
				if m.PC(w) != ldr {
					continue
				}
				lit := m.Reg(w, 2) - 16 // x2 = x30 &^ 7
				left := 0
				for _, op := range m.Program().Ops {
					for _, s := range op.Stores {
						if touches(s, lit) {
							left++
						}
					}
				}
				for _, wr := range m.Writes() {
					if wr.Transition > 0 && touches(wr.Store, lit) {
						left--
					}
				}
				require.Equal(t, left == 0, sched.LocalNext(m, w), "literal %#x, %d stores to it to come", lit, left)
				if left == 0 {
					local++
				} else {
					visible++
				}
			}
			buf = m.OptionsWithin(buf, 2)
			if len(buf) == 0 {
				break
			}
			m.Apply(buf[rng.Intn(len(buf))])
		}
	}
	require.Positive(t, local)
	require.Positive(t, visible)
}

// A CALL_OPS literal is data to the instrumentation: ftrace_caller loads
// it, no instruction fetch reads it. Under the reference's premise
// (quiet.go) the CPUs' views of its bytes are left out of the state hash,
// while the entry words' are kept, and a fetch whose window holds a byte
// of it ends the run without a verdict.
func TestARM64CallOpsLiteralIsNotFetched(t *testing.T) {
	img, err := kernel.Build(kernel.ARM64, kernel.Config{Prologue: kernel.ARM64PFE42})
	require.NoError(t, err)
	rec, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 1, Preempt: sched.PreemptNone, RecordResults: true}, &sched.Program{})
	require.NoError(t, err)
	runToEnd(rec, nil)
	require.Empty(t, rec.Hazards())
	st, ok := patch.Lookup(kernel.ARM64, "arm64-call-ops")
	require.True(t, ok)
	prog, err := patch.Compile(st, img, 2)
	require.NoError(t, err)
	cfg := sched.Config{CPUs: 1, Tasks: 1, Preempt: sched.PreemptNone, Reference: rec.Results()}
	m, err := sched.New(img, cfg, prog)
	require.NoError(t, err)
	f0, ok := img.Symbol("f0")
	require.True(t, ok)
	var site kernel.Site
	for _, s := range img.Sites {
		if s.Func == "f0" {
			site = s
		}
	}
	require.Equal(t, f0-8, site.Addr, "the literal is the two words before f0")
	for a := site.Addr; a < site.Addr+8; a++ {
		assert.False(t, sched.ViewKeyedAt(m, a), "literal byte %#x", a)
	}
	for a := site.Call; a < site.Call+4; a++ {
		assert.True(t, sched.ViewKeyedAt(m, a), "rec->ip byte %#x", a)
	}

	sched.SetPC(m, 0, site.Addr)
	runToEnd(m, nil)
	assert.True(t, m.PremiseBroken())
	assert.Contains(t, m.BudgetText(), fmt.Sprintf("an instruction fetch at %#x", site.Addr))
}
