package x86

import (
	"errors"
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/arch/x86/x86asm"
)

func TestUndecodable(t *testing.T) {
	for _, tc := range []struct {
		code      string
		truncated bool
	}{
		{"d6", false},                  // SALC is invalid in 64-bit mode
		{"0f 04", false},               // reserved opcode
		{"0f 1e", true},                // a hint NOP without its ModR/M
		{"0f 1c 80 00", true},          // a hint NOP without its disp32
		{"e8", true},                   // call rel32 without its displacement
		{"e8 00 00", true},             //
		{"8b 04 25", true},             // mov with SIB and no disp32: x86asm says Op 0, no error
		{"0f 1f 44 00", true},          // the 5-byte NOP cut short, as a torn write may leave it
		{"48", true},                   // a lone REX prefix
		{"66 66 66 66 66 66 66", true}, // prefixes only
	} {
		t.Run(tc.code, func(t *testing.T) {
			code := unhex(tc.code)
			_, err := Decode(0x1000, code)
			require.Error(t, err)
			assert.ErrorIs(t, err, isa.ErrUndecodable)
			var e *isa.Fault
			require.True(t, errors.As(err, &e))
			assert.Equal(t, uint64(0x1000), e.PC)
			assert.Equal(t, code, e.Bytes)
			assert.Empty(t, e.Disasm)
			assert.Equal(t, tc.truncated, errors.Is(err, errTruncated), err.Error())
			assert.Contains(t, err.Error(), "pc 0x1000: ")
			assert.Equal(t, "(bad)", DisasmBytes(0x1000, code))
		})
	}
	// Sixteen prefixes exceed the 15-byte limit: undecodable, not truncated.
	code := unhex("66666666666666666666666666666690")
	_, err := Decode(0, code)
	require.ErrorIs(t, err, isa.ErrUndecodable)
	var e *isa.Fault
	require.True(t, errors.As(err, &e))
	assert.Len(t, e.Bytes, MaxLen)
}

// TestHintNops checks the reserved-NOP opcodes that x86asm does not
// decode: the lengths are those objdump 2.40 finds.
func TestHintNops(t *testing.T) {
	for _, tc := range []struct{ code, objdump, disasm string }{
		{"0f 19 00", "nopl (%rax)", "nopl (%rax)"},
		{"0f 1a 44 00 00", "bndldx 0x0(%rax,%rax,1),%bnd0", "nopl (%rax,%rax)"},
		{"0f 1b c0", "nop %eax", "nop %eax"},
		{"0f 1c 80 00 00 00 00", "cldemote 0x0(%rax)", "nopl (%rax)"},
		{"0f 1d 00", "nopl (%rax)", "nopl (%rax)"},
		{"0f 1e fa", "nop %edx", "nop %edx"},
		{"66 0f 19 00", "nopw (%rax)", "nopw (%rax)"},
		{"f3 0f 1e fb", "endbr32", "rep nop %ebx"},
		{"0f 1e 00", "nopl (%rax)", "nopl (%rax)"},
		{"0f 1f 38", "nopl (%rax)", "nopl (%rax)"},
		{"41 0f 1a 44 24 08", "bndldx 0x8(%r12),%bnd0", "nopl 0x8(%r12,%riz)"},
	} {
		t.Run(tc.objdump, func(t *testing.T) {
			code := unhex(tc.code)
			runExecCases(t, []execCase{{name: tc.code, code: tc.code, flow: isa.FlowNext, log: []access{},
				init: func(r *Regs, m *testBus) { r.R[RAX] = 0xdead; fl(r, "ZO") }}})
			inst, err := Decode(0x1000, append(code, 0xcc, 0xcc))
			require.NoError(t, err)
			assert.Equal(t, len(code), int(inst.Len))
			assert.Equal(t, tc.disasm, Disasm(&inst, 0x1000, nil))
		})
	}
}

func TestUnsupported(t *testing.T) {
	for _, tc := range []struct{ code, disasm string }{
		{"0f 0b", "ud2"},
		{"f4", "hlt"},
		{"0f 05", "syscall"},
		{"0f a2", "cpuid"},
		{"fd", "std"},
		{"f2 a4", "repn movsb %ds:(%rsi),%es:(%rdi)"},
		{"64 48 a5", "movsq %fs:(%rsi),%es:(%rdi)"},
		{"cd 03", "int $0x3"},
		{"64 48 8b 04 25 28 00 00 00", "mov %fs:0x28,%rax"}, // gs is the kernel's per-CPU base (TestGSOperands)
		{"67 8b 00", "mov (%eax),%eax"},
		{"66 c3", "retw"},
		{"66 50", "push %ax"},
		{"e3 fe", "jrcxz 0x1000"},
		{"48 0f c7 0e", "cmpxchg16b (%rsi)"},
		// SSE (the kernel builds with -mno-sse; user code may not): refused
		// by name.
		{"0f 10 00", "movups (%rax),%xmm0"},
		{"66 0f ef c0", "pxor %xmm0,%xmm0"},
		{"f2 0f 59 c1", "mulsd %xmm1,%xmm0"},
		{"66 0f 6f 06", "movdqa (%rsi),%xmm0"},
	} {
		t.Run(tc.disasm, func(t *testing.T) {
			code := unhex(tc.code)
			inst, err := Decode(0x1000, code)
			require.NoError(t, err, "decodes; fails only when executed")
			assert.Equal(t, tc.disasm, Disasm(&inst, 0x1000, nil))
			r := Regs{RIP: 0x1000}
			r.R[RSP] = testStack
			before := r
			m := newTestBus(testMem, 0x100)
			_, err = Exec(&inst, &r, m)
			require.Error(t, err)
			assert.ErrorIs(t, err, isa.ErrUnsupported)
			var e *isa.Fault
			require.True(t, errors.As(err, &e))
			assert.Equal(t, uint64(0x1000), e.PC)
			assert.Equal(t, code, e.Bytes)
			assert.Equal(t, tc.disasm, e.Disasm)
			assert.Equal(t, before, r, "an unsupported instruction changes nothing")
			assert.Empty(t, m.seen)
		})
	}
}

func TestInt3(t *testing.T) {
	inst, err := Decode(0x1000, Int3())
	require.NoError(t, err)
	r := Regs{RIP: 0x1000, ZF: true}
	r.R[RSP] = testStack
	before := r
	m := newTestBus(testMem, 0x100)
	_, err = Exec(&inst, &r, m)
	require.ErrorIs(t, err, isa.ErrBreakpoint)
	assert.NotErrorIs(t, err, isa.ErrUnsupported)
	var e *isa.Fault
	require.True(t, errors.As(err, &e))
	assert.Equal(t, uint64(0x1000), e.PC)
	assert.Equal(t, "int3", e.Disasm)
	assert.Equal(t, before, r, "RIP stays at the int3")
	assert.Empty(t, m.seen)
}

func TestMemoryFault(t *testing.T) {
	m := newTestBus(testMem, 0x100)
	for _, code := range [][]byte{Push(RAX), Pop(RAX), Ret(), MovLoad(RAX, RBX, 0), MovStore(RBX, 0, RAX)} {
		inst, err := Decode(0x1000, code)
		require.NoError(t, err)
		r := Regs{RIP: 0x1000}
		r.R[RSP], r.R[RBX] = 0x10, 0x10
		before := r
		_, err = Exec(&inst, &r, m)
		require.ErrorIs(t, err, isa.ErrMemory, Disasm(&inst, 0x1000, nil))
		var e *isa.Fault
		require.True(t, errors.As(err, &e))
		assert.Equal(t, uint64(0x1000), e.PC)
		assert.Equal(t, before, r, "a faulting %s changes no register", Disasm(&inst, 0x1000, nil))
	}
	// A CALL whose push faults leaves rsp and RIP alone too.
	code, _ := CallRel32(0x1000, 0x2000)
	inst, err := Decode(0x1000, code)
	require.NoError(t, err)
	r := Regs{RIP: 0x1000}
	_, err = Exec(&inst, &r, m)
	require.ErrorIs(t, err, isa.ErrMemory)
	assert.Equal(t, Regs{RIP: 0x1000}, r)
}

func TestDisasm(t *testing.T) {
	sym := func(a uint64) string {
		return map[uint64]string{0x2000: "ftrace_caller", 0x8000: "counter"}[a]
	}
	for _, tc := range []struct {
		pc   uint64
		code string
		want string
	}{
		{0x1000, "e8 fb 0f 00 00", "callq 0x2000 <ftrace_caller>"},
		{0x1000, "e8 fc 0f 00 00", "callq 0x2001"},
		{0, "e8 00 00 00 00", "callq 0x5"},
		{0, "eb fe", "jmp 0x0"},
		{0x1000, "75 fe", "jne 0x1000"},
		{0x1000, "48 8b 05 f9 6f 00 00", "mov counter,%rax"},
		{0x1000, "f3 0f 1e fa", "endbr64"},
		{0x1000, "0f 1f 44 00 00", "nopl (%rax,%rax)"},
		{0x1000, "ff 15 00 00 00 00", "callq *(%rip)"},
	} {
		inst, err := Decode(tc.pc, unhex(tc.code))
		require.NoError(t, err)
		assert.Equal(t, tc.want, Disasm(&inst, tc.pc, sym), tc.code)
	}
}

func TestCacheRevalidates(t *testing.T) {
	const base = 0x1000
	text := make([]byte, 32)
	call, _ := CallRel32(base+4, base+0x20)
	copy(text[4:], call)
	c := NewCache(base, len(text))

	inst, err := c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, x86asm.CALL, inst.Op)
	again, err := c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Same(t, inst, again, "a hit returns the cached entry")

	// A torn write: only byte 0 of the nop5 has landed.
	text[4] = 0x0f
	inst, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, "movhps %xmm0,(%rax)", Disasm(inst, base+4, nil), "0f 17 00 ...: a torn fetch")

	// Byte 0 is the int3 of text_poke_bp.
	text[4] = 0xcc
	inst, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, "int3", Disasm(inst, base+4, nil))

	// Bytes 1–4 change behind the int3: a one-byte instruction does not
	// depend on them, so the entry stays valid.
	copy(text[5:9], Nop5()[1:])
	again, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Same(t, inst, again)
	assert.Equal(t, "int3", Disasm(again, base+4, nil))

	// The last byte lands: the 5-byte NOP.
	text[4] = 0x0f
	inst, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, "nopl (%rax,%rax)", Disasm(inst, base+4, nil))
	assert.Equal(t, Nop5(), inst.Bytes())

	// A change in the last byte of the instruction is seen as well.
	text[8] = 0x01
	inst, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, "nopl 0x1(%rax,%rax)", Disasm(inst, base+4, nil))

	// An undecodable entry is retried once its bytes change.
	copy(text[4:], []byte{0xd6})
	_, err = c.Lookup(base+4, text[4:])
	require.ErrorIs(t, err, isa.ErrUndecodable)
	_, err = c.Lookup(base+4, text[4:])
	require.ErrorIs(t, err, isa.ErrUndecodable, "cached error")
	text[4] = 0x90
	inst, err = c.Lookup(base+4, text[4:])
	require.NoError(t, err)
	assert.Equal(t, "nop", Disasm(inst, base+4, nil))

	// Truncated at the end of the segment, then completed by a longer
	// slice is impossible in one segment; but the bytes before the end may
	// change and make it decodable.
	end := len(text) - 2
	copy(text[end:], []byte{0xe8, 0x00})
	_, err = c.Lookup(base+uint64(end), text[end:])
	require.ErrorIs(t, err, isa.ErrUndecodable)
	copy(text[end:], []byte{0x90, 0xc3})
	inst, err = c.Lookup(base+uint64(end), text[end:])
	require.NoError(t, err)
	assert.Equal(t, "nop", Disasm(inst, base+uint64(end), nil))

	// Outside the segment.
	for _, pc := range []uint64{base - 1, base + uint64(len(text)), 0} {
		_, err = c.Lookup(pc, nil)
		require.ErrorIs(t, err, isa.ErrMemory)
		var e *isa.Fault
		require.True(t, errors.As(err, &e))
		assert.Equal(t, pc, e.PC)
	}
}

// TestDecodeConcurrent runs Decode from several goroutines: under -race it
// proves that x86asm.Decode writes no shared state.
func TestDecodeConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				for _, tc := range encodings {
					inst, err := Decode(tc.pc, tc.got)
					if err != nil || inst.Op != tc.op {
						panic(fmt.Sprintf("%s: %v %v", tc.name, inst.Op, err))
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestStackOrLiteral(t *testing.T) {
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"55", true},                   // push %rbp
		{"5d", true},                   // pop %rbp
		{"e8 00 00 00 00", true},       // call
		{"ff d0", true},                // call *%rax
		{"c3", true},                   // ret
		{"48 89 7c 24 f8", true},       // mov %rdi,-0x8(%rsp)
		{"4c 8b 64 24 08", true},       // mov 0x8(%rsp),%r12
		{"48 8b 05 00 00 00 00", true}, // mov 0x0(%rip),%rax
		{"48 01 c8", true},             // add %rcx,%rax
		{"0f 1f 44 00 00", true},       // nopl: no access
		{"48 8d 04 48", true},          // lea: no access
		{"0f 0b", true},                // ud2: faults
		{"c9", false},                  // leave: loads through rbp
		{"48 8b 03", false},            // mov (%rbx),%rax
		{"48 89 45 f8", false},         // mov %rax,-0x8(%rbp)
		{"48 8b 04 0c", false},         // mov (%rsp,%rcx),%rax
		{"ff 30", false},               // push (%rax)
		{"ff 10", false},               // call *(%rax)
		{"ff 20", false},               // jmp *(%rax)
		{"48 83 03 01", false},         // addq $1,(%rbx)
	} {
		inst, err := Decode(0x1000, unhex(tc.code))
		require.NoError(t, err)
		assert.Equal(t, tc.want, StackOrLiteral(&inst), Disasm(&inst, 0x1000, nil))
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		code   string
		target uint64
		ok     bool
	}{
		{"e8 fb 0f 00 00", 0x2000, true},
		{"eb fe", 0x1000, true},
		{"0f 84 fa 0f 00 00", 0x2000, true},
		{"ff d0", 0, false},
		{"c3", 0, false},
		{"e3 fe", 0, false}, // jrcxz: not executed, so no target
	} {
		inst, err := Decode(0x1000, unhex(tc.code))
		require.NoError(t, err)
		target, ok := inst.Target(0x1000)
		assert.Equal(t, tc.ok, ok, tc.code)
		assert.Equal(t, tc.target, target, tc.code)
	}
}
