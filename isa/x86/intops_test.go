package x86

import (
	"errors"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const rdx = uint64(RDX)

// TestExecIntOps checks the instructions of intops.go on values worked out
// by hand from the SDM (TestFormsDifferential checks them against the CPU).
func TestExecIntOps(t *testing.T) {
	runExecCases(t, []execCase{
		flagsCase("mul 64", "48 f7 e1", "ZS", "CPZO", regs(rax, 1<<63, rcx, 6), regs(rax, 0, rdx, 3)),
		flagsCase("mul 32 fits", "f7 e1", "CO", "P", regs(rax, 0xffff_0000_0000_0005, rcx, 3, rdx, ones), regs(rax, 15, rdx, 0)),
		flagsCase("mul 8 into ax", "f6 e1", "", "CPZO", regs(rax, 0x1234_00f0, rcx, 0x10, rdx, 7), regs(rax, 0x1234_0f00)),
		flagsCase("mul mem", "48 f7 23", "", "CO", func(r *Regs, m *testBus) { r.R[RAX] = ones; m.put64(testData, ones) }, regs(rax, 1, rdx, ones-1)),
		flagsCase("imul1 64 -1*-1", "48 f7 e9", "CO", "", regs(rax, ones, rcx, ones), regs(rax, 1, rdx, 0)),
		flagsCase("imul1 64 negative", "48 f7 e9", "", "S", regs(rax, ones, rcx, 5), regs(rax, ones-4, rdx, ones)),
		flagsCase("imul1 64 overflow", "48 f7 e9", "", "CPZO", regs(rax, 1<<63, rcx, 2), regs(rax, 0, rdx, ones)),
		flagsCase("imul1 16", "66 f7 e9", "", "CPZO", regs(rax, 0xaaaa_8000, rcx, 2, rdx, 0xbbbb_0000), regs(rax, 0xaaaa_0000, rdx, 0xbbbb_ffff)),
		flagsCase("div 64", "48 f7 f1", "CZ", "CZ", regs(rax, 7, rcx, 2, rdx, 1), regs(rax, 1<<63|3, rdx, 1)),
		flagsCase("div 32", "f7 f1", "", "", regs(rax, 0xffff_ffff_0000_0064, rcx, 7, rdx, 0xffff_ffff_0000_0000), regs(rax, 14, rdx, 2)),
		flagsCase("div 8", "f6 f1", "", "", regs(rax, 0x5500_0103, rcx, 2), regs(rax, 0x5500_0181)),
		flagsCase("idiv 64", "48 f7 f9", "", "", regs(rax, ones-6, rcx, 2, rdx, ones), regs(rax, ones-2, rdx, ones)),
		flagsCase("idiv 64 min/1", "48 f7 f9", "", "", regs(rax, 1<<63, rcx, 1, rdx, ones), regs(rax, 1<<63, rdx, 0)),
		flagsCase("idiv 32 neg divisor", "f7 f9", "", "", regs(rax, 7, rcx, 0xffff_fffe, rdx, 0), regs(rax, 0xffff_fffd, rdx, 1)),
		flagsCase("idiv 8", "f6 f9", "", "", regs(rax, 0xff9c, rcx, 7), regs(rax, 0xfef2)),
		flagsCase("cqo", "48 99", "", "", regs(rax, 1<<63, rdx, 5), regs(rdx, ones)),
		flagsCase("cdq zero-extends", "99", "", "", regs(rax, 0x8000_0000, rdx, 5), regs(rdx, 0xffff_ffff)),
		flagsCase("cwd", "66 99", "", "", regs(rax, 0x7fff, rdx, 0x1234_5678), regs(rdx, 0x1234_0000)),
		flagsCase("cdqe", "48 98", "", "", regs(rax, 0x1_8000_0000), regs(rax, 0xffff_ffff_8000_0000)),
		flagsCase("cwde", "98", "", "", regs(rax, 0x1_0000_8000), regs(rax, 0xffff_8000)),
		flagsCase("cbw", "66 98", "", "", regs(rax, 0x5555_0080), regs(rax, 0x5555_ff80)),
		flagsCase("rol 13 keeps SF ZF PF", "48 c1 c0 0d", "SZP", "SZPCO", regs(rax, 0x0008_0000_0000_0000), regs(rax, 1)),
		flagsCase("rol 1", "48 d1 c0", "", "CO", regs(rax, 1<<63), regs(rax, 1)),
		flagsCase("ror 1", "48 d1 c8", "", "CO", regs(rax, 1), regs(rax, 1<<63)),
		flagsCase("ror cl 0 changes nothing", "48 d3 c8", "C", "C", regs(rax, 6, rcx, 0x40), nil),
		flagsCase("rol 8 by 8 sets CF only", "d2 c0", "", "C", regs(rax, 0x81, rcx, 8), nil),
		flagsCase("ror 32 zero-extends", "c1 c8 04", "", "", regs(rax, 0xffff_ffff_0000_0010), regs(rax, 1)),
		flagsCase("shld 4", "48 0f a4 c8 04", "", "P", regs(rax, 0x0123_4567_89ab_cdef, rcx, 0xf000_0000_0000_0000), regs(rax, 0x1234_5678_9abc_def0|0xf)),
		flagsCase("shrd cl", "48 0f ad c8", "", "CSO", regs(rax, 0x11, rcx, 0x8000_0000_0000_0001), regs(rax, 0x8000_0000_0000_0008)),
		flagsCase("bswap 64", "48 0f c8", "", "", regs(rax, 0x0102_0304_0506_0708), regs(rax, 0x0807_0605_0403_0201)),
		flagsCase("bswap 32", "0f c9", "", "", regs(rcx, 0xffff_ffff_1122_3344), regs(rcx, 0x4433_2211)),
		flagsCase("tzcnt", "f3 48 0f bc c1", "CZ", "", regs(rcx, 0x100), regs(rax, 8)),
		flagsCase("tzcnt zero", "f3 48 0f bc c1", "Z", "C", regs(rcx, 0), regs(rax, 64)),
		flagsCase("tzcnt 16 bit 0", "66 f3 0f bc c1", "C", "Z", regs(rax, ones, rcx, 0x10001), regs(rax, ones&^0xffff)),
		flagsCase("lzcnt 32", "f3 0f bd c1", "", "", regs(rcx, 0x1_0000_0100), regs(rax, 23)),
		flagsCase("popcnt", "f3 48 0f b8 c1", "CSOPA", "", regs(rcx, 0xf0f0), regs(rax, 8)),
		flagsCase("popcnt zero", "f3 48 0f b8 c1", "CS", "Z", regs(rcx, 0), regs(rax, 0)),
		flagsCase("bt imm", "48 0f ba e0 3f", "Z", "ZC", regs(rax, 1<<63), nil),
		flagsCase("bts reg", "48 0f ab c8", "C", "", regs(rax, 0, rcx, 65), regs(rax, 2)),
		flagsCase("btr 32 zero-extends", "0f b3 c8", "", "C", regs(rax, 0xffff_ffff_0000_0001, rcx, 0), regs(rax, 0)),
		flagsCase("btc mem, negative offset", "48 0f bb 0b", "", "C", func(r *Regs, m *testBus) { r.R[RCX] = ones; m.put64(testData-8, 1<<63) }, word(testData-8, 0)),
		flagsCase("bt mem, offset 70", "48 0f a3 0b", "", "C", func(r *Regs, m *testBus) { r.R[RCX] = 70; m.put64(testData+8, 0x40) }, nil),
		flagsCase("xadd", "48 0f c1 c8", "", "CPAZ", regs(rax, 1, rcx, ones), regs(rax, 0, rcx, 1)),
		flagsCase("lock xadd mem", "f0 48 0f c1 0b", "", "", func(r *Regs, m *testBus) { r.R[RCX] = 5; m.put64(testData, 3) }, func(r *Regs, m *testBus) { r.R[RCX] = 3; m.put64(testData, 8) }),
		flagsCase("cmpxchg equal", "48 0f b1 ca", "", "PZ", regs(rax, 9, rcx, 4, rdx, 9), regs(rdx, 4)),
		flagsCase("cmpxchg differs", "48 0f b1 ca", "", "CPAS", regs(rax, 9, rcx, 4, rdx, 10), regs(rax, 10)),
		flagsCase("cmpxchg 32 differs keeps dst", "0f b1 ca", "", "CPAS", regs(rax, 0x7, rcx, 4, rdx, 0xffff_ffff_0000_0008), regs(rax, 8)),
		flagsCase("lock cmpxchg mem", "f0 48 0f b1 0b", "", "PZ", func(r *Regs, m *testBus) { r.R[RAX] = 3; r.R[RCX] = 5; m.put64(testData, 3) }, word(testData, 5)),
		flagsCase("movbe load", "48 0f 38 f0 03", "", "", word(testData, 0x0102_0304_0506_0708), regs(rax, 0x0807_0605_0403_0201)),
		flagsCase("movbe store 16", "66 0f 38 f1 03", "", "", regs(rax, 0xaabb), word(testData, 0xbbaa)),
	})
}

// TestExecIntOpsBus checks the Bus sees what the memory forms do.
func TestExecIntOpsBus(t *testing.T) {
	runExecCases(t, []execCase{
		{name: "cmpxchg mem differs: no store", code: "48 0f b1 0b",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 1; m.put64(testData, 2) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 2; r.CF, r.SF, r.AF, r.PF = true, true, true, true },
			log:  []access{{false, testData, 8, 2, isa.NoReg}}},
		{name: "movbe store from rcx", code: "0f 38 f1 0b",
			init: func(r *Regs, m *testBus) { r.R[RCX] = 0x11223344 },
			want: word(testData, 0x44332211),
			log:  []access{{true, testData, 4, 0x44332211, uint8(RCX)}}},
	})
}

// TestDivideError: a zero divisor, and a quotient that does not fit, are
// a divide error that names the instruction and leaves every register
// (RIP included) as it was.
func TestDivideError(t *testing.T) {
	for _, c := range []struct {
		name, code    string
		rax, rcx, rdx uint64
		want          string
	}{
		{"div by zero", "48 f7 f1", 5, 0, 0, "pc 0x1000: 48 f7 f1 (div %rcx): division by zero: divide error (#DE)"},
		{"div 32 by zero in the low half", "f7 f1", 5, 1 << 32, 0, "(div %ecx): division by zero"},
		{"div quotient too large", "48 f7 f1", 0, 3, 3, "(div %rcx): quotient too large for its destination: divide error (#DE)"},
		{"div 8 quotient too large", "f6 f1", 0x200, 2, 0, "(div %cl): quotient too large"},
		{"idiv min / -1", "48 f7 f9", 1 << 63, ones, ones, "(idiv %rcx): quotient too large"},
		{"idiv 32 min / -1", "f7 f9", 0x8000_0000, 0xffff_ffff, 0xffff_ffff, "(idiv %ecx): quotient too large"},
		{"idiv 8 by zero", "f6 f9", 7, 0x100, 0, "(idiv %cl): division by zero"},
		{"idiv positive overflow", "48 f7 f9", 0, 2, 1, "quotient too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			inst, err := Decode(testPC, unhex(c.code))
			require.NoError(t, err)
			r := Regs{RIP: testPC, CF: true}
			r.R[RAX], r.R[RCX], r.R[RDX] = c.rax, c.rcx, c.rdx
			before := r
			_, err = Exec(&inst, &r, noMem{})
			require.ErrorIs(t, err, ErrDivide)
			assert.False(t, errors.Is(err, isa.ErrUnsupported))
			var f *isa.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, uint64(testPC), f.PC)
			assert.Contains(t, err.Error(), c.want)
			assert.Equal(t, before, r)
		})
	}
}
