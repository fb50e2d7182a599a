package x86

import (
	"encoding/hex"
	"github.com/mcountsim/mcountsim/isa"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testPC    = 0x1000
	testMem   = 0x8000
	testStack = 0x8080 // initial rsp
	testData  = 0x8010 // initial rbx, for memory operands
)

// fl sets exactly the status flags named by the letters C, P, A, Z, S and O.
func fl(r *Regs, s string) {
	r.CF, r.PF, r.AF = strings.Contains(s, "C"), strings.Contains(s, "P"), strings.Contains(s, "A")
	r.ZF, r.SF, r.OF = strings.Contains(s, "Z"), strings.Contains(s, "S"), strings.Contains(s, "O")
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

type execCase struct {
	name string
	code string                    // hex bytes at testPC
	init func(r *Regs, m *testBus) // state before (after the defaults)
	want func(r *Regs, m *testBus) // changes to the state before; RIP is preset to the next instruction
	flow isa.Flow                  // expected flow
	log  []access                  // expected isa.Bus accesses, when not nil
}

func runExecCases(t *testing.T, cases []execCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code := unhex(tc.code)
			r := Regs{RIP: testPC}
			r.R[RSP], r.R[RBX] = testStack, testData
			m := newTestBus(testMem, 0x100)
			if tc.init != nil {
				tc.init(&r, m)
			}
			wantR, wantM := r, m.clone()
			inst, err := Decode(testPC, code)
			require.NoError(t, err)
			require.Equal(t, len(code), int(inst.Len), "length of %s", Disasm(&inst, testPC, nil))
			wantR.RIP = testPC + uint64(len(code))
			if tc.want != nil {
				tc.want(&wantR, wantM)
			}
			flow, err := Exec(&inst, &r, m)
			require.NoError(t, err, Disasm(&inst, testPC, nil))
			assert.Equal(t, tc.flow, flow)
			assert.Equal(t, wantR, r)
			assert.Equal(t, hex.EncodeToString(wantM.mem), hex.EncodeToString(m.mem))
			switch {
			case tc.log == nil:
			case len(tc.log) == 0:
				assert.Empty(t, m.seen)
			default:
				assert.Equal(t, tc.log, m.seen)
			}
		})
	}
}

func TestExecControl(t *testing.T) {
	runExecCases(t, []execCase{
		{name: "call rel32", code: "e8 11 00 00 00",
			want: func(r *Regs, m *testBus) {
				r.R[RSP] = testStack - 8
				m.put64(testStack-8, testPC+5)
				r.RIP = testPC + 5 + 0x11
			}, flow: isa.FlowCall,
			log: []access{{true, testStack - 8, 8, testPC + 5, isa.RetAddr}}},
		{name: "call *%rax", code: "ff d0",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0x2000 },
			want: func(r *Regs, m *testBus) {
				r.R[RSP] = testStack - 8
				m.put64(testStack-8, testPC+2)
				r.RIP = 0x2000
			}, flow: isa.FlowCall,
			log: []access{{true, testStack - 8, 8, testPC + 2, isa.RetAddr}}},
		{name: "call *%r11", code: "41 ff d3",
			init: func(r *Regs, m *testBus) { r.R[R11] = 0x3000 },
			want: func(r *Regs, m *testBus) {
				r.R[RSP] = testStack - 8
				m.put64(testStack-8, testPC+3)
				r.RIP = 0x3000
			}, flow: isa.FlowCall},
		{name: "call *8(%rsp)", code: "ff 54 24 08", // the target is read before the push
			init: func(r *Regs, m *testBus) { m.put64(testStack+8, 0x4000) },
			want: func(r *Regs, m *testBus) {
				r.R[RSP] = testStack - 8
				m.put64(testStack-8, testPC+4)
				r.RIP = 0x4000
			}, flow: isa.FlowCall,
			log: []access{{false, testStack + 8, 8, 0x4000, isa.PCReg}, {true, testStack - 8, 8, testPC + 4, isa.RetAddr}}},
		{name: "ret", code: "c3",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0x1234) },
			want: func(r *Regs, m *testBus) { r.R[RSP] = testStack + 8; r.RIP = 0x1234 },
			flow: isa.FlowReturn, log: []access{{false, testStack, 8, 0x1234, isa.PCReg}}},
		{name: "ret $16", code: "c2 10 00",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0x1234) },
			want: func(r *Regs, m *testBus) { r.R[RSP] = testStack + 24; r.RIP = 0x1234 },
			flow: isa.FlowReturn},
		{name: "repz ret", code: "f3 c3",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0x1234) },
			want: func(r *Regs, m *testBus) { r.R[RSP] = testStack + 8; r.RIP = 0x1234 },
			flow: isa.FlowReturn},
		{name: "jmp rel8", code: "eb 0e", want: func(r *Regs, m *testBus) { r.RIP = testPC + 0x10 }, flow: isa.FlowBranch},
		{name: "jmp rel8 back", code: "eb fe", want: func(r *Regs, m *testBus) { r.RIP = testPC }, flow: isa.FlowBranch},
		{name: "jmp rel32", code: "e9 fb 0f 00 00", want: func(r *Regs, m *testBus) { r.RIP = 0x2000 }, flow: isa.FlowBranch},
		{name: "jmp rel32 back", code: "e9 00 f0 ff ff", want: func(r *Regs, m *testBus) { r.RIP = testPC + 5 - 0x1000 }, flow: isa.FlowBranch},
		{name: "jmp *%rax", code: "ff e0",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0x5000 },
			want: func(r *Regs, m *testBus) { r.RIP = 0x5000 }, flow: isa.FlowBranch, log: []access{}},
		{name: "jmp *(%rbx)", code: "ff 23",
			init: func(r *Regs, m *testBus) { m.put64(testData, 0x6000) },
			want: func(r *Regs, m *testBus) { r.RIP = 0x6000 }, flow: isa.FlowBranch,
			log: []access{{false, testData, 8, 0x6000, isa.PCReg}}},
		{name: "je rel32 taken", code: "0f 84 fa 0f 00 00",
			init: func(r *Regs, m *testBus) { fl(r, "Z") },
			want: func(r *Regs, m *testBus) { r.RIP = 0x2000 }, flow: isa.FlowBranch},
		{name: "je rel32 not taken", code: "0f 84 fa 0f 00 00", flow: isa.FlowSkipped},
	})
}

// condHolds is table B-1 of SDM Vol. 1, written out independently of
// Regs.Passed.
func condHolds(c Cond, cf, pf, zf, sf, of bool) bool {
	return map[Cond]bool{
		O: of, NO: !of, B: cf, AE: !cf, E: zf, NE: !zf, BE: cf || zf, A: !cf && !zf,
		S: sf, NS: !sf, P: pf, NP: !pf, L: sf != of, GE: sf == of, LE: zf || sf != of, G: !zf && sf == of,
	}[c]
}

func TestExecJcc(t *testing.T) {
	for c := O; c <= G; c++ {
		for f := 0; f < 32; f++ {
			cf, pf, zf, sf, of := f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0, f&16 != 0
			for _, form := range []string{"short", "near"} {
				var code []byte
				var ok bool
				if form == "short" {
					code, ok = Jcc(c, testPC, testPC+0x40)
				} else {
					code, ok = Jcc(c, testPC, testPC+0x4000)
				}
				require.True(t, ok)
				inst, err := Decode(testPC, code)
				require.NoError(t, err)
				r := Regs{RIP: testPC, CF: cf, PF: pf, ZF: zf, SF: sf, OF: of}
				want := condHolds(c, cf, pf, zf, sf, of)
				assert.Equal(t, want, r.Passed(c), "j%v flags %05b", c, f)
				flow, err := Exec(&inst, &r, newTestBus(0, 0))
				require.NoError(t, err)
				switch {
				case want && form == "short":
					assert.Equal(t, isa.FlowBranch, flow)
					assert.Equal(t, uint64(testPC+0x40), r.RIP)
				case want:
					assert.Equal(t, isa.FlowBranch, flow)
					assert.Equal(t, uint64(testPC+0x4000), r.RIP)
				default:
					assert.Equal(t, isa.FlowSkipped, flow)
					assert.Equal(t, testPC+uint64(len(code)), r.RIP)
				}
			}
		}
	}
}

func TestExecNops(t *testing.T) {
	var cases []execCase
	for _, code := range []string{
		"90", "66 90", "0f 1f 00", "0f 1f 40 00", "0f 1f 44 00 00", "66 0f 1f 44 00 00",
		"0f 1f 80 00 00 00 00", "0f 1f 84 00 00 00 00 00", "66 0f 1f 84 00 00 00 00 00",
		"66 2e 0f 1f 84 00 00 00 00 00", "66 66 2e 0f 1f 84 00 00 00 00 00",
		"f3 0f 1e fa", "f3 90", "0f 1f 04 25 ff ff ff ff", "67 0f 1f 00",
		// The prefetch hints (nta, t0, t1, t2, w) of an address outside
		// the bus: no access, no fault.
		"0f 18 04 25 00 00 00 40", "0f 18 0c 25 00 00 00 40", "0f 18 14 25 00 00 00 40",
		"0f 18 1c 25 00 00 00 40", "0f 0d 0c 25 00 00 00 40", "0f 18 0c 94",
	} {
		cases = append(cases, execCase{name: code, code: code,
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0xdeadbeef; fl(r, "CZ") },
			flow: isa.FlowNext, log: []access{}})
	}
	runExecCases(t, cases)
}

func TestExecStack(t *testing.T) {
	runExecCases(t, []execCase{
		{name: "push %rbp", code: "55",
			init: func(r *Regs, m *testBus) { r.R[RBP] = 0x1122334455667788 },
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, 0x1122334455667788) },
			log:  []access{{true, testStack - 8, 8, 0x1122334455667788, uint8(RBP)}}},
		{name: "push %r12", code: "41 54",
			init: func(r *Regs, m *testBus) { r.R[R12] = 7 },
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, 7) },
			log:  []access{{true, testStack - 8, 8, 7, uint8(R12)}}},
		{name: "push %rsp", code: "54", // pushes the value before the decrement
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, testStack) }},
		{name: "push $-1", code: "6a ff",
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, ^uint64(0)) },
			log:  []access{{true, testStack - 8, 8, ^uint64(0), isa.NoReg}}},
		{name: "push $imm32", code: "68 78 56 34 12",
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, 0x12345678) }},
		{name: "push (%rbx)", code: "ff 33",
			init: func(r *Regs, m *testBus) { m.put64(testData, 99) },
			want: func(r *Regs, m *testBus) { r.R[RSP] -= 8; m.put64(testStack-8, 99) }},
		{name: "pop %rbp", code: "5d",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0xabc) },
			want: func(r *Regs, m *testBus) { r.R[RSP] += 8; r.R[RBP] = 0xabc },
			log:  []access{{false, testStack, 8, 0xabc, uint8(RBP)}}},
		{name: "pop %r15", code: "41 5f",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0xabc) },
			want: func(r *Regs, m *testBus) { r.R[RSP] += 8; r.R[R15] = 0xabc }},
		{name: "pop %rsp", code: "5c", // rsp gets the loaded value, not loaded+8
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0x8040) },
			want: func(r *Regs, m *testBus) { r.R[RSP] = 0x8040 }},
		{name: "pop (%rbx)", code: "8f 03",
			init: func(r *Regs, m *testBus) { m.put64(testStack, 0x77) },
			want: func(r *Regs, m *testBus) { r.R[RSP] += 8; m.put64(testData, 0x77) }},
		{name: "leave", code: "c9",
			init: func(r *Regs, m *testBus) { r.R[RBP] = 0x80a0; m.put64(0x80a0, 0x80c0) },
			want: func(r *Regs, m *testBus) { r.R[RSP] = 0x80a8; r.R[RBP] = 0x80c0 },
			log:  []access{{false, 0x80a0, 8, 0x80c0, uint8(RBP)}}},
	})
}

func TestExecMov(t *testing.T) {
	runExecCases(t, []execCase{
		{name: "mov %rsp,%rbp", code: "48 89 e5", want: func(r *Regs, m *testBus) { r.R[RBP] = testStack }},
		{name: "mov %r9,%rax", code: "4c 89 c8",
			init: func(r *Regs, m *testBus) { r.R[R9] = 1 << 40 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 1 << 40 }},
		{name: "mov %ecx,%eax zero-extends", code: "89 c8",
			init: func(r *Regs, m *testBus) { r.R[RAX] = ^uint64(0); r.R[RCX] = 0xffffffff00000005 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 5 }},
		{name: "mov %cx,%ax keeps the rest", code: "66 89 c8",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0x1111111111111111; r.R[RCX] = 0x2222 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x1111111111112222 }},
		{name: "mov %al,%ah", code: "88 c4",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0x1111111111111142 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x1111111111114242 }},
		{name: "mov %spl,%sil", code: "40 88 e6", // with REX, 4 is spl, not ah
			init: func(r *Regs, m *testBus) { r.R[RSI] = 0x1ff; r.R[RAX] = 0x4200 },
			want: func(r *Regs, m *testBus) { r.R[RSI] = 0x180 }},
		{name: "mov $-1,%rax", code: "48 c7 c0 ff ff ff ff", want: func(r *Regs, m *testBus) { r.R[RAX] = ^uint64(0) }},
		{name: "mov $-1,%eax", code: "b8 ff ff ff ff",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 1 << 50 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xffffffff }},
		{name: "movabs", code: "48 b8 88 77 66 55 44 33 22 11", want: func(r *Regs, m *testBus) { r.R[RAX] = 0x1122334455667788 }},
		{name: "mov $1,%r10b", code: "41 b2 01",
			init: func(r *Regs, m *testBus) { r.R[R10] = 0xff00 },
			want: func(r *Regs, m *testBus) { r.R[R10] = 0xff01 }},
		{name: "load 8(%rsp)", code: "4c 8b 64 24 08",
			init: func(r *Regs, m *testBus) { m.put64(testStack+8, 0xfeed) },
			want: func(r *Regs, m *testBus) { r.R[R12] = 0xfeed },
			log:  []access{{false, testStack + 8, 8, 0xfeed, uint8(R12)}}},
		{name: "load 32 bits", code: "8b 03",
			init: func(r *Regs, m *testBus) { r.R[RAX] = ^uint64(0); m.put64(testData, 0x1122334455667788) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x55667788 }},
		{name: "load rip-relative", code: "48 8b 05 f9 6f 00 00", // 0x1007+0x6ff9 = 0x8000
			init: func(r *Regs, m *testBus) { m.put64(testMem, 0x42) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x42 }},
		{name: "load absolute", code: "48 8b 04 25 10 80 00 00",
			init: func(r *Regs, m *testBus) { m.put64(testData, 0x44) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x44 }},
		{name: "load moffs", code: "48 a1 10 80 00 00 00 00 00 00",
			init: func(r *Regs, m *testBus) { m.put64(testData, 0x45) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x45 }},
		{name: "load (,%rcx,4)", code: "48 8b 04 8d 00 80 00 00",
			init: func(r *Regs, m *testBus) { r.R[RCX] = 4; m.put64(testData, 0x46) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x46 }},
		{name: "load (%rbx,%rcx,8)", code: "48 8b 04 cb",
			init: func(r *Regs, m *testBus) { r.R[RCX] = 2; m.put64(testData+16, 0x43) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x43 }},
		{name: "store -8(%rsp)", code: "48 89 7c 24 f8",
			init: func(r *Regs, m *testBus) { r.R[RDI] = 0xcafe },
			want: func(r *Regs, m *testBus) { m.put64(testStack-8, 0xcafe) },
			log:  []access{{true, testStack - 8, 8, 0xcafe, uint8(RDI)}}},
		{name: "store 0(%r13)", code: "49 89 6d 00",
			init: func(r *Regs, m *testBus) { r.R[R13] = testData; r.R[RBP] = 5 },
			want: func(r *Regs, m *testBus) { m.put64(testData, 5) }},
		{name: "movb $1,(%rbx)", code: "c6 03 01",
			init: func(r *Regs, m *testBus) { m.put64(testData, ^uint64(0)) },
			want: func(r *Regs, m *testBus) { m.put64(testData, 0xffffffffffffff01) },
			log:  []access{{true, testData, 1, 1, isa.NoReg}}},
		{name: "movq $-2,(%rbx)", code: "48 c7 03 fe ff ff ff",
			want: func(r *Regs, m *testBus) { m.put64(testData, ^uint64(1)) }},
		{name: "lea 8(%rsp)", code: "48 8d 44 24 08", want: func(r *Regs, m *testBus) { r.R[RAX] = testStack + 8 }, log: []access{}},
		{name: "lea (%rax,%rcx,2)", code: "48 8d 04 48",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 10; r.R[RCX] = 3 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 16 }},
		{name: "lea rip-relative", code: "4c 8d 05 f0 ff ff ff", want: func(r *Regs, m *testBus) { r.R[R8] = testPC + 7 - 16 }},
		{name: "lea 32-bit", code: "8d 04 08",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0xffffffff; r.R[RCX] = 2 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 1 }},
		{name: "movzbl %cl,%eax", code: "0f b6 c1",
			init: func(r *Regs, m *testBus) { r.R[RAX] = ^uint64(0); r.R[RCX] = 0x1ff },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xff }},
		{name: "movzbl %ah,%eax", code: "0f b6 c4",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0xabcd },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xab }},
		{name: "movzwl (%rbx),%eax", code: "0f b7 03",
			init: func(r *Regs, m *testBus) { m.put64(testData, 0x123456789) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0x6789 },
			log:  []access{{false, testData, 2, 0x6789, uint8(RAX)}}},
		{name: "movsbq %cl,%rax", code: "48 0f be c1",
			init: func(r *Regs, m *testBus) { r.R[RCX] = 0x80 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xffffffffffffff80 }},
		{name: "movswl %cx,%eax", code: "0f bf c1",
			init: func(r *Regs, m *testBus) { r.R[RAX] = ^uint64(0); r.R[RCX] = 0x8000 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xffff8000 }},
		{name: "movsxd %ecx,%rax", code: "48 63 c1",
			init: func(r *Regs, m *testBus) { r.R[RCX] = 0x80000000 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 0xffffffff80000000 }},
		{name: "xchg %rax,%rcx", code: "48 87 c1",
			init: func(r *Regs, m *testBus) { r.R[RAX], r.R[RCX] = 1, 2 },
			want: func(r *Regs, m *testBus) { r.R[RAX], r.R[RCX] = 2, 1 }},
		{name: "xchg %rax,%rcx short", code: "48 91",
			init: func(r *Regs, m *testBus) { r.R[RAX], r.R[RCX] = 1, 2 },
			want: func(r *Regs, m *testBus) { r.R[RAX], r.R[RCX] = 2, 1 }},
		{name: "xchg %r9,%r8", code: "4d 87 c8",
			init: func(r *Regs, m *testBus) { r.R[R8], r.R[R9] = 1, 2 },
			want: func(r *Regs, m *testBus) { r.R[R8], r.R[R9] = 2, 1 }},
		{name: "xchg %eax,%eax zero-extends", code: "87 c0",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 0x100000002 },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 2 }},
		{name: "xchg %rax,(%rbx)", code: "48 87 03",
			init: func(r *Regs, m *testBus) { r.R[RAX] = 1; m.put64(testData, 2) },
			want: func(r *Regs, m *testBus) { r.R[RAX] = 2; m.put64(testData, 1) }},
	})
}

func TestFlagsAndNames(t *testing.T) {
	var r Regs
	r.SetFlags(^uint64(0))
	assert.Equal(t, Regs{CF: true, PF: true, AF: true, ZF: true, SF: true, OF: true}, r)
	assert.Equal(t, uint64(StatusFlags), r.Flags())
	r.SetFlags(FlagZF | FlagOF | 2)
	assert.Equal(t, Regs{ZF: true, OF: true}, r)
	assert.Equal(t, uint64(0x840), r.Flags())

	assert.Equal(t, "call", isa.FlowCall.String())
	assert.Equal(t, "skipped", isa.FlowSkipped.String())
	assert.Equal(t, "Flow(9)", isa.Flow(9).String())
	assert.Equal(t, "ne", NE.String())
	assert.Equal(t, "Cond(16)", Cond(16).String())
	assert.Equal(t, "r12", R12.String())
	assert.Equal(t, "Reg(16)", Reg(16).String())
}
