package sched_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// The step benchmarks measure the explorer's inner loop, Options then
// Apply, one simulated instruction per op, on one CPU with one worker (the
// patcher has nothing to do and exits first). Each reports simulated
// instructions per second (insns/s) and must not allocate.
//
//	go test -run '^$' -bench Step -benchmem ./sched

// straightA32 is register and stack work in the style of compiled code,
// repeated to fill the text, then a branch back to the start.
var straightA32 = []uint32{
	0xe3a04010, // mov r4, #16
	0xe0845004, // add r5, r4, r4
	0xe2555001, // subs r5, r5, #1
	0xe1a05105, // lsl r5, r5, #2
	0xe58d5000, // str r5, [sp]
	0xe59d0000, // ldr r0, [sp]
	0xe0800004, // add r0, r0, r4
	0xe3500000, // cmp r0, #0
	0x13a01001, // movne r1, #1
	0x03a01000, // moveq r1, #0
	0xe0010291, // mul r1, r1, r2
	0xe1813002, // orr r3, r1, r2
	0xe0232003, // eor r2, r3, r3
	0xe2833001, // add r3, r3, #1
	0xe52d3004, // push {r3}
	0xe49d3004, // pop {r3}
}

// straightX86 is the same kind of code for x86-64 (AT&T syntax).
var straightX86 = [][]byte{
	{0x48, 0xc7, 0xc0, 0x10, 0, 0, 0}, // mov $16, %rax
	{0x48, 0x89, 0xc3},                // mov %rax, %rbx
	{0x48, 0x01, 0xc3},                // add %rax, %rbx
	{0x48, 0x83, 0xeb, 0x01},          // sub $1, %rbx
	{0x48, 0xc1, 0xe3, 0x02},          // shl $2, %rbx
	{0x48, 0x89, 0x1c, 0x24},          // mov %rbx, (%rsp)
	{0x48, 0x8b, 0x0c, 0x24},          // mov (%rsp), %rcx
	{0x48, 0x39, 0xc1},                // cmp %rax, %rcx
	{0x48, 0x31, 0xd2},                // xor %rdx, %rdx
	{0x53},                            // push %rbx
	{0x5b},                            // pop %rbx
}

const stepTextBytes = 16 << 10

func straightImage(arch kernel.Arch) *kernel.Image {
	img := &kernel.Image{Arch: arch, Base: 0x8000, Entry: 0x8000, Align: 4}
	switch arch {
	case kernel.ARM:
		img.Text = binary.LittleEndian.AppendUint32(img.Text, 0xe24dd040) // sub sp, sp, #64
		for len(img.Text) < stepTextBytes {
			for _, w := range straightA32 {
				img.Text = binary.LittleEndian.AppendUint32(img.Text, w)
			}
		}
		// b <loop>: offset from pc+8, in words.
		off := -(len(img.Text) - 4 + 8) / 4
		img.Text = binary.LittleEndian.AppendUint32(img.Text, 0xea000000|uint32(off)&0xffffff)
	case kernel.X86:
		img.Align = 1
		img.Text = append(img.Text, 0x48, 0x83, 0xec, 0x40) // sub $64, %rsp
		for len(img.Text) < stepTextBytes {
			for _, b := range straightX86 {
				img.Text = append(img.Text, b...)
			}
		}
		// jmp rel32 <loop>
		rel := -(len(img.Text) - 4 + 5)
		img.Text = append(img.Text, 0xe9)
		img.Text = binary.LittleEndian.AppendUint32(img.Text, uint32(int32(rel)))
	}
	img.Symbols = []kernel.Symbol{{Name: "straight", Addr: img.Base, Size: uint64(len(img.Text))}}
	return img
}

// running returns m once its worker is on the CPU and the patcher is gone.
func running(tb testing.TB, m *sched.Machine) {
	var buf []sched.Action
	for i := 0; i < 8; i++ {
		buf = m.Options(buf)
		if len(buf) == 0 {
			tb.Fatalf("the machine stopped during setup: %v", m.Hazards())
		}
		m.Apply(buf[0])
	}
	if len(m.Hazards()) > 0 {
		tb.Fatalf("hazard during setup: %v", m.Hazards()[0])
	}
}

func benchStraight(b *testing.B, arch kernel.Arch) {
	img := straightImage(arch)
	m, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 1, MaxSteps: 1 << 62}, &sched.Program{})
	if err != nil {
		b.Fatal(err)
	}
	running(b, m)
	buf := make([]sched.Action, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		buf = m.Options(buf)
		m.Apply(buf[0])
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "insns/s")
	if h := m.Hazards(); len(h) > 0 {
		b.Fatalf("hazard: %v", h[0])
	}
}

// benchSite runs the workload loop of the default text, each iteration
// calling f0 through its call site, with the site's bytes written at boot
// (so that every fetch there is a fetch of patchable text): the trampoline
// and the tracer run on every call. The run restarts when it ends.
func benchSite(b *testing.B, arch kernel.Arch) {
	img, err := kernel.Build(arch, kernel.Config{Iterations: 200})
	if err != nil {
		b.Fatal(err)
	}
	s := img.Sites[0]
	off := s.Addr - img.Base
	prog := &sched.Program{Boot: []sched.Store{{Addr: s.Addr, Bytes: append([]byte(nil), img.Text[off:off+uint64(s.Len)]...), Site: 0, Form: "enabled"}}}
	start, err := sched.New(img, sched.Config{CPUs: 1, Tasks: 1}, prog)
	if err != nil {
		b.Fatal(err)
	}
	m := start.Clone()
	buf := make([]sched.Action, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		buf = m.Options(buf)
		if len(buf) == 0 {
			if len(m.Hazards()) > 0 {
				b.Fatalf("hazard: %v", m.Hazards()[0])
			}
			m.CopyFrom(start)
			buf = m.Options(buf)
		}
		m.Apply(buf[0])
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "insns/s")
}

func BenchmarkStep(b *testing.B) {
	b.Run("arm/straight", func(b *testing.B) { benchStraight(b, kernel.ARM) })
	b.Run("arm/site-loop", func(b *testing.B) { benchSite(b, kernel.ARM) })
	b.Run("x86/straight", func(b *testing.B) { benchStraight(b, kernel.X86) })
	b.Run("x86/site-loop", func(b *testing.B) { benchSite(b, kernel.X86) })
}

// TestStepBenchmarkCode checks that the benchmarks' code runs without a
// hazard (so that the benchmarks measure execution, not faults).
func TestStepBenchmarkCode(t *testing.T) {
	for _, arch := range []kernel.Arch{kernel.ARM, kernel.X86} {
		m, err := sched.New(straightImage(arch), sched.Config{CPUs: 1, Tasks: 1, MaxSteps: 1 << 62}, &sched.Program{})
		if err != nil {
			t.Fatal(err)
		}
		running(t, m)
		var buf []sched.Action
		for i := 0; i < 3*stepTextBytes; i++ {
			buf = m.Options(buf)
			m.Apply(buf[0])
		}
		if h := m.Hazards(); len(h) > 0 {
			t.Fatalf("%v: %v", arch, h[0])
		}
		if allocs := testing.AllocsPerRun(1000, func() {
			buf = m.Options(buf)
			m.Apply(buf[0])
		}); allocs != 0 {
			t.Errorf("%v: %v allocations per step", arch, allocs)
		}
	}
}

// straightCores are the straight-line images of BenchmarkRunLocal, one
// per core.
var straightCores = []struct {
	name string
	img  func(testing.TB) *kernel.Image
}{
	{"arm", func(testing.TB) *kernel.Image { return straightImage(kernel.ARM) }},
	{"x86", func(testing.TB) *kernel.Image { return straightImage(kernel.X86) }},
	{"riscv64", straightRVImage},
	{"arm64", straightImageA64},
}

// TestRunLocalStraightCode checks that every core's benchmark code is
// thread-local throughout (one RunLocal takes every step asked for), runs
// without a hazard, and that RunLocal allocates nothing once the words are
// decoded.
func TestRunLocalStraightCode(t *testing.T) {
	for _, c := range straightCores {
		t.Run(c.name, func(t *testing.T) {
			m, err := sched.New(c.img(t), sched.Config{CPUs: 1, Tasks: 1, MaxSteps: 1 << 62}, &sched.Program{})
			require.NoError(t, err)
			running(t, m)
			require.Equal(t, 3*stepTextBytes, m.RunLocal(3*stepTextBytes))
			require.Empty(t, m.Hazards())
			require.Zero(t, testing.AllocsPerRun(100, func() { m.RunLocal(1000) }))
		})
	}
}

// BenchmarkRunLocal measures the explorer's inner loop over thread-local
// code: RunLocal steps the CPU without building option lists, as the
// exhaustive search does between choices. Every core runs its
// straight-line code in the same run, so that their rates compare
// (bench/compare.sh reads them). insns/cpu-s divides by the CPU time the
// process used rather than the wall time: on a loaded machine it is the
// figure to compare.
//
//	go test -run '^$' -bench RunLocal -benchmem ./sched
func BenchmarkRunLocal(b *testing.B) {
	for _, c := range straightCores {
		b.Run(c.name+"/straight", func(b *testing.B) {
			m, err := sched.New(c.img(b), sched.Config{CPUs: 1, Tasks: 1, MaxSteps: 1 << 62}, &sched.Program{})
			if err != nil {
				b.Fatal(err)
			}
			running(b, m)
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime()
			for n := 0; n < b.N; {
				k := m.RunLocal(b.N - n)
				if k == 0 {
					b.Fatal("no local step")
				}
				n += k
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "insns/s")
			if d := cpuTime() - cpu; d > 0 {
				b.ReportMetric(float64(b.N)/d.Seconds(), "insns/cpu-s")
			}
			if h := m.Hazards(); len(h) > 0 {
				b.Fatalf("hazard: %v", h[0])
			}
		})
	}
}
