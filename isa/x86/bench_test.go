package x86

import "testing"

// benchText is a straight-line function body that returns the stack to
// where it started: a benchmark loop can run it over and over.
var benchText = unhex(
	"55" + // push %rbp
		"48 89 e5" + // mov %rsp,%rbp
		"48 83 ec 10" + // sub $0x10,%rsp
		"0f 1f 44 00 00" + // nopl (%rax,%rax)
		"48 89 7d f8" + // mov %rdi,-0x8(%rbp)
		"48 8b 45 f8" + // mov -0x8(%rbp),%rax
		"48 83 c0 01" + // add $0x1,%rax
		"48 83 f8 05" + // cmp $0x5,%rax
		"0f 9f c1" + // setg %cl
		"48 0f 4f c1" + // cmovg %rcx,%rax
		"48 8d 4c 24 08" + // lea 0x8(%rsp),%rcx
		"48 6b c0 03" + // imul $0x3,%rax,%rax
		"48 c1 e0 02" + // shl $0x2,%rax
		"c9") // leave

// BenchmarkExec runs benchText through a Cache: one op is one instruction
// (a cache hit and an Exec). It must not allocate.
func BenchmarkExec(b *testing.B) {
	const base = 0x1000
	c := NewCache(base, len(benchText))
	m := newTestBus(testMem, 0x100)
	m.log = false
	r := Regs{RIP: base}
	r.R[RSP] = testStack
	end := uint64(base + len(benchText))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r.RIP == end {
			r.RIP = base
		}
		inst, err := c.Lookup(r.RIP, benchText[r.RIP-base:])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Exec(inst, &r, m); err != nil {
			b.Fatal(err)
		}
	}
	if r.R[RSP] != testStack && r.RIP == end {
		b.Fatalf("rsp %#x after the body", r.R[RSP])
	}
}

// BenchmarkDecode measures a cache miss: x86asm.Decode and compile.
func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(0x1000, benchText[1:]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestExecDoesNotAllocate(t *testing.T) {
	const base = 0x1000
	c := NewCache(base, len(benchText))
	m := newTestBus(testMem, 0x100)
	m.log = false
	r := Regs{RIP: base}
	r.R[RSP] = testStack
	run := func() {
		r.RIP = base
		for r.RIP != base+uint64(len(benchText)) {
			inst, err := c.Lookup(r.RIP, benchText[r.RIP-base:])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Exec(inst, &r, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	run() // fill the cache
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("%v allocations per run of the body", n)
	}
	if r.R[RSP] != testStack {
		t.Fatalf("rsp %#x after the body", r.R[RSP])
	}
}
