package x86

import (
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	rsi = uint64(RSI)
	rdi = uint64(RDI)
)

// TestExecStrops checks the instructions of strops.go on values worked out
// by hand from the SDM (TestStringDifferential and TestFormsDifferential
// check them against the CPU): one Exec is one iteration.
func TestExecStrops(t *testing.T) {
	again := func(r *Regs, m *testBus) { r.RIP = testPC }
	both := func(fs ...func(r *Regs, m *testBus)) func(r *Regs, m *testBus) {
		return func(r *Regs, m *testBus) {
			for _, f := range fs {
				f(r, m)
			}
		}
	}
	runExecCases(t, []execCase{
		{name: "movsb", code: "a4", init: both(regs(rsi, testData, rdi, testData+8), word(testData, 0x1122)),
			want: both(regs(rsi, testData+1, rdi, testData+9), word(testData+8, 0x22)),
			log:  []access{{false, testData, 1, 0x22, isa.NoReg}, {true, testData + 8, 1, 0x22, isa.NoReg}}},
		{name: "rep movsq: one iteration, rip stays", code: "f3 48 a5", init: both(regs(rcx, 2, rsi, testData, rdi, testData+16), word(testData, ones)),
			want: both(regs(rcx, 1, rsi, testData+8, rdi, testData+24), word(testData+16, ones), again), flow: isa.FlowBranch},
		{name: "rep movsq: the last iteration", code: "f3 48 a5", init: both(regs(rcx, 1, rsi, testData, rdi, testData+16), word(testData, 5)),
			want: both(regs(rcx, 0, rsi, testData+8, rdi, testData+24), word(testData+16, 5))},
		{name: "rep stos with rcx 0 does nothing", code: "f3 48 ab", init: regs(rax, 7, rcx, 0, rdi, testData), log: []access{}},
		{name: "rep stosl stores eax from rax", code: "f3 ab", init: regs(rax, 0x1_0000_0009, rcx, 3, rdi, testData),
			want: both(regs(rcx, 2, rdi, testData+4), word(testData, 9), again), flow: isa.FlowBranch,
			log: []access{{true, testData, 4, 9, uint8(RAX)}}},
		{name: "lodsl zero-extends", code: "ad", init: both(regs(rax, ones, rsi, testData), word(testData, 0x8000_0001)),
			want: regs(rax, 0x8000_0001, rsi, testData+4)},
		{name: "lodsw keeps the rest", code: "66 ad", init: both(regs(rax, ones, rsi, testData), word(testData, 0x1234)),
			want: regs(rax, ones&^0xffff|0x1234, rsi, testData+2)},
		flagsCase("repne scasb stops on a match", "f2 ae", "", "ZP", both(regs(rax, 0x41, rcx, 5, rdi, testData), word(testData, 0x41)),
			regs(rcx, 4, rdi, testData+1)),
		withFlow(flagsCase("repne scasb goes on", "f2 ae", "", "CSAP", both(regs(rax, 0x41, rcx, 5, rdi, testData), word(testData, 0x42)),
			both(regs(rcx, 4, rdi, testData+1), again)), isa.FlowBranch),
		flagsCase("repe cmpsb stops on a difference", "f3 a6", "Z", "CSPA", both(regs(rcx, 9, rsi, testData, rdi, testData+8), word(testData, 1), word(testData+8, 2)),
			regs(rcx, 8, rsi, testData+1, rdi, testData+9)),
		flagsCase("cmpsq", "48 a7", "", "ZP", both(regs(rcx, 9, rsi, testData, rdi, testData+8), word(testData, 3), word(testData+8, 3)),
			regs(rsi, testData+8, rdi, testData+16)),
		flagsCase("rcl 1 through CF", "48 d1 d0", "C", "CO", regs(rax, 1<<63), regs(rax, 1)),
		flagsCase("rcr 1: OF from the operand's MSB and the old CF", "48 d1 d8", "C", "O", regs(rax, 2), regs(rax, 1<<63|1)),
		flagsCase("rcl 8 by 9 rotates nothing, CF kept", "c0 d0 09", "CO", "C", regs(rax, 0x1_0081), nil),
		flagsCase("rcr 32 by 33 is by 1", "c1 d8 21", "", "C", regs(rax, 0xffff_ffff_0000_0003), regs(rax, 1)),
		flagsCase("rcl cl 0 changes nothing", "48 d3 d0", "SO", "SO", regs(rax, 6, rcx, 0x40), nil),
		flagsCase("stc", "f9", "Z", "ZC", nil, nil),
		flagsCase("clc", "f8", "CS", "S", nil, nil),
		flagsCase("cmc", "f5", "C", "", nil, nil),
		flagsCase("cld", "fc", "CZ", "CZ", nil, nil),
		flagsCase("lahf", "9f", "SZAPCO", "SZAPCO", regs(rax, 0x1234_5678), regs(rax, 0x1234_d778)),
		flagsCase("sahf keeps OF", "9e", "O", "OSC", regs(rax, 0x8100), nil),
	})
}

func withFlow(c execCase, f isa.Flow) execCase {
	c.flow = f
	return c
}

// TestStropsRefused: std and repne on a non-comparing string instruction
// are refused with the pc, bytes and disassembly; a string operand through
// fs, and a 32-bit address size, likewise.
func TestStropsRefused(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"fd", "pc 0x1000: fd (std): std: the direction flag is modelled clear: unsupported instruction"},
		{"f2 a4", "pc 0x1000: f2 a4 (repn movsb %ds:(%rsi),%es:(%rdi)): repne on a string instruction that does not compare: unsupported instruction"},
		{"64 a4", "pc 0x1000: 64 a4 (movsb %fs:(%rsi),%es:(%rdi)): fs segment override: unsupported instruction"},
		{"67 f3 aa", "pc 0x1000: 67 f3 aa (rep stos %al,%es:(%edi)): 32-bit address size: unsupported instruction"},
	} {
		inst, err := Decode(testPC, unhex(c.code))
		require.NoError(t, err, c.code)
		r := Regs{RIP: testPC}
		_, err = Exec(&inst, &r, noMem{})
		require.ErrorIs(t, err, isa.ErrUnsupported, c.code)
		assert.Equal(t, c.want, err.Error())
	}
}

// TestStropsMemAddr: a string instruction's next access; movs and cmps
// report the span covering both of theirs; none is stack-or-literal.
func TestStropsMemAddr(t *testing.T) {
	var r Regs
	r.R[RSI], r.R[RDI] = 0x2000, 0x1000
	for _, c := range []struct {
		code  string
		addr  uint64
		size  int
		store bool
		ok    bool
	}{
		{"f3 48 ab", 0x1000, 8, true, true},
		{"ae", 0x1000, 1, false, true},
		{"66 ad", 0x2000, 2, false, true},
		{"f3 a4", 0x1000, 0x1001, true, true},
		{"48 a7", 0x1000, 0x1008, false, true},
	} {
		inst, err := Decode(testPC, unhex(c.code))
		require.NoError(t, err)
		r.RIP = testPC
		addr, size, store, ok := MemAddr(&inst, &r)
		assert.Equal(t, [4]any{c.addr, c.size, c.store, c.ok}, [4]any{addr, size, store, ok}, c.code)
		assert.False(t, StackOrLiteral(&inst), c.code)
	}
	r.R[RSI] = 1 << 40
	inst, err := Decode(testPC, unhex("a4"))
	require.NoError(t, err)
	_, _, _, ok := MemAddr(&inst, &r)
	assert.False(t, ok, "a span past 1 GiB")
}
