package x86

import "testing"

// flagsCase builds an execCase for an instruction that changes registers,
// memory and the flags: before and after are flag sets for fl.
func flagsCase(name, code, before, after string, init, want func(r *Regs, m *testBus)) execCase {
	return execCase{name: name, code: code,
		init: func(r *Regs, m *testBus) {
			fl(r, before)
			if init != nil {
				init(r, m)
			}
		},
		want: func(r *Regs, m *testBus) {
			fl(r, after)
			if want != nil {
				want(r, m)
			}
		}}
}

func regs(kv ...uint64) func(r *Regs, m *testBus) {
	return func(r *Regs, m *testBus) {
		for i := 0; i < len(kv); i += 2 {
			r.R[kv[i]] = kv[i+1]
		}
	}
}

func word(addr, v uint64) func(r *Regs, m *testBus) {
	return func(r *Regs, m *testBus) { m.put64(addr, v) }
}

const ones = ^uint64(0)

// Untyped register numbers for regs.
const (
	rax = uint64(RAX)
	rcx = uint64(RCX)
	r8  = uint64(R8)
)

// TestExecALU checks results and all six status flags; every expectation
// was worked out by hand from the SDM's definition of the instruction.
func TestExecALU(t *testing.T) {
	runExecCases(t, []execCase{
		flagsCase("add carry to zero", "48 01 c8", "", "CPAZ", regs(rax, ones, rcx, 1), regs(rax, 0)),
		flagsCase("add overflow", "48 01 c8", "", "PASO", regs(rax, 1<<63-1, rcx, 1), regs(rax, 1<<63)),
		flagsCase("add 32 overflow", "01 c8", "", "PASO", regs(rax, 0xaaaaaaaa7fffffff, rcx, 1), regs(rax, 0x80000000)),
		flagsCase("add 8 carry", "00 c8", "", "CPAZ", regs(rax, 0x123456789abcdeff, rcx, 1), regs(rax, 0x123456789abcde00)),
		flagsCase("add 16 carry overflow", "66 01 c8", "", "CPZO", regs(rax, 0x8000, rcx, 0x8000), regs(rax, 0)),
		flagsCase("sub borrow", "48 29 c8", "", "CPAS", regs(rax, 0, rcx, 1), regs(rax, ones)),
		flagsCase("sub overflow", "48 29 c8", "", "PAO", regs(rax, 1<<63, rcx, 1), regs(rax, 1<<63-1)),
		flagsCase("cmp $-1", "48 83 f8 ff", "ZSO", "CPA", regs(rax, 5), nil),
		flagsCase("cmp equal", "48 39 c0", "CSO", "PZ", regs(rax, 1234), nil),
		flagsCase("cmpb mem", "80 3b 80", "", "CPSO", word(testData, 0x7f), nil),
		flagsCase("adc", "48 11 c8", "C", "", regs(rax, 1, rcx, 2), regs(rax, 4)),
		flagsCase("adc carry out", "48 11 c8", "C", "CPAZ", regs(rax, ones, rcx, 0), regs(rax, 0)),
		flagsCase("sbb", "48 19 c8", "C", "CPAS", regs(rax, 0, rcx, 0), regs(rax, ones)),
		flagsCase("and", "48 21 c8", "CAO", "P", regs(rax, 0xf0f0, rcx, 0xff00), regs(rax, 0xf000)),
		flagsCase("or", "48 09 c8", "CZ", "S", regs(rax, 1<<63, rcx, 1), regs(rax, 1<<63|1)),
		flagsCase("xor eax", "31 c0", "CS", "PZ", regs(rax, ones), regs(rax, 0)),
		flagsCase("test", "48 85 c0", "CO", "", regs(rax, 0x80), nil),
		flagsCase("test $1,%al", "a8 01", "", "PZ", regs(rax, 2), nil),
		flagsCase("add to mem", "48 01 03", "", "P", func(r *Regs, m *testBus) { r.R[RAX] = 7; m.put64(testData, 5) }, word(testData, 12)),
		flagsCase("add from mem", "48 03 03", "", "CPZ", func(r *Regs, m *testBus) { r.R[RAX] = 0x10; m.put64(testData, ones-0xf) }, regs(rax, 0)),
		flagsCase("addq $1,mem", "48 83 03 01", "", "A", word(testData, 0xf), word(testData, 0x10)),
		flagsCase("inc keeps CF", "48 ff c0", "C", "CPASO", regs(rax, 1<<63-1), regs(rax, 1<<63)),
		flagsCase("dec keeps CF", "48 ff c8", "", "PAS", regs(rax, 0), regs(rax, ones)),
		flagsCase("dec eax", "ff c8", "C", "CPZ", regs(rax, 0x100000001), regs(rax, 0)),
		flagsCase("inc mem", "48 ff 03", "", "", word(testData, 1), word(testData, 2)),
		flagsCase("neg 1", "48 f7 d8", "", "CPAS", regs(rax, 1), regs(rax, ones)),
		flagsCase("neg 0", "48 f7 d8", "CO", "PZ", regs(rax, 0), nil),
		flagsCase("neg min", "48 f7 d8", "", "CPSO", regs(rax, 1<<63), nil),
		flagsCase("not", "48 f7 d0", "CZ", "CZ", regs(rax, 0xff), regs(rax, ones&^0xff)),
		flagsCase("imul", "48 0f af c1", "CO", "PS", regs(rax, 3, rcx, ones-1), regs(rax, ones-5)),
		flagsCase("imul overflow", "48 0f af c1", "", "CPZO", regs(rax, 1<<62, rcx, 4), regs(rax, 0)),
		flagsCase("imul min fits", "48 0f af c1", "CO", "PS", regs(rax, 3<<62, rcx, 2), regs(rax, 1<<63)),
		flagsCase("imul min overflows", "48 0f af c1", "", "CPSO", regs(rax, 1<<62, rcx, 2), regs(rax, 1<<63)),
		flagsCase("imul3 imm8", "48 6b c1 05", "CO", "", regs(rcx, 7), regs(rax, 35)),
		flagsCase("imul3 32 overflow", "69 c1 00 00 01 00", "", "CPZO", regs(rax, ones, rcx, 0x10000), regs(rax, 0)),
		flagsCase("imul 32 -1*-1", "0f af c1", "CO", "", regs(rax, 0xffffffff, rcx, 0xffffffff), regs(rax, 1)),
		flagsCase("imul from mem", "48 0f af 03", "", "P", func(r *Regs, m *testBus) { r.R[RAX] = 3; m.put64(testData, 5) }, regs(rax, 15)),
		flagsCase("shl 1", "48 d1 e0", "", "PSO", regs(rax, 1<<62), regs(rax, 1<<63)),
		// For counts other than 1 OF is undefined; we compute it from the
		// last step, as QEMU does.
		flagsCase("shl 4", "48 c1 e0 04", "", "CO", regs(rax, 1<<60|1), regs(rax, 0x10)),
		flagsCase("shr 1", "48 d1 e8", "", "CPO", regs(rax, 1<<63|1), regs(rax, 1<<62)),
		flagsCase("sar 1", "48 d1 f8", "", "CPS", regs(rax, 1<<63|1), regs(rax, 3<<62)),
		flagsCase("sar cl 63", "48 d3 f8", "", "PS", regs(rax, 1<<63, rcx, 63), regs(rax, ones)),
		flagsCase("shl cl 0", "48 d3 e0", "CZ", "CZ", regs(rax, 5, rcx, 0x100), nil),
		flagsCase("shl cl 65 masks to 1", "48 d3 e0", "CZ", "", regs(rax, 1, rcx, 65), regs(rax, 2)),
		flagsCase("shl 31 eax", "c1 e0 1f", "", "CPS", regs(rax, 0xffffffff00000003), regs(rax, 0x80000000)),
		flagsCase("shr 4 al", "c0 e8 04", "", "CP", regs(rax, 0x1200ff), regs(rax, 0x12000f)),
		flagsCase("shl mem", "48 d1 23", "", "P", word(testData, 3), word(testData, 6)),
		flagsCase("cmove taken", "48 0f 44 c1", "Z", "Z", regs(rax, 1, rcx, 2), regs(rax, 2)),
		flagsCase("cmove not taken", "48 0f 44 c1", "", "", regs(rax, 1, rcx, 2), nil),
		flagsCase("cmove 32 not taken zero-extends", "0f 44 c1", "", "", regs(rax, 0xffffffff00000001, rcx, 2), regs(rax, 1)),
		flagsCase("cmovl mem", "48 0f 4c 03", "S", "S", word(testData, 77), regs(rax, 77)),
		flagsCase("sete al", "0f 94 c0", "Z", "Z", regs(rax, 0xff00), regs(rax, 0xff01)),
		flagsCase("setl ah", "0f 9c c4", "S", "S", nil, regs(rax, 0x100)),
		flagsCase("setb mem", "0f 92 03", "", "", word(testData, 0xffff), word(testData, 0xff00)),
		flagsCase("setg r8b", "41 0f 9f c0", "SO", "SO", regs(r8, 0x500), regs(r8, 0x501)),
	})
}
