package arm

import (
	"bytes"
	"errors"
	"github.com/mcountsim/mcountsim/isa"
	"strings"
	"testing"
)

// execCase runs one word at pc 0x1000 from the state in (see applyState)
// and expects the state in+out, with pc advanced by 4 unless out sets it,
// the given flow, and exactly the isa.Bus accesses acc (access.String, joined
// by "; "). A non-nil err is the sentinel the failure must wrap.
type execCase struct {
	w    uint32
	asm  string // armasm's GNU syntax of w, checked to catch typos in w
	in   string
	out  string
	flow isa.Flow
	acc  string
	err  error
}

const execPC = 0x1000

var execCases = []execCase{
	// Data processing, immediate operands.
	{w: 0xe2910001, asm: "adds r0, r1, #1", in: "r1=0xffffffff", out: "r0=0 nzcv=0110"},
	{w: 0xe2910001, asm: "adds r0, r1, #1", in: "r1=0x7fffffff nzcv=0110", out: "r0=0x80000000 nzcv=1001"},
	{w: 0xe2710000, asm: "rsbs r0, r1, #0", in: "r1=1", out: "r0=0xffffffff nzcv=1000"},
	{w: 0xe2710000, asm: "rsbs r0, r1, #0", in: "r1=0", out: "r0=0 nzcv=0110"},
	{w: 0xe2710000, asm: "rsbs r0, r1, #0", in: "r1=0x80000000", out: "r0=0x80000000 nzcv=1001"},
	{w: 0xe3510001, asm: "cmp r1, #1", in: "r1=1", out: "nzcv=0110"},
	{w: 0xe3f00000, asm: "mvns r0, #0", in: "nzcv=0011", out: "r0=0xffffffff nzcv=1011"},
	// Shifter carry-out of a modified immediate: bit 31 when rotated, C otherwise.
	{w: 0xe21104ff, asm: "ands r0, r1, #-16777216", in: "r1=0x12345678 nzcv=0001", out: "r0=0x12000000 nzcv=0011"},
	{w: 0xe2110fff, asm: "ands r0, r1, #1020", in: "r1=0xffffffff nzcv=0010", out: "r0=0x3fc nzcv=0000"},
	{w: 0xe21100ff, asm: "ands r0, r1, #255", in: "r1=0x100 nzcv=0010", out: "r0=0 nzcv=0110"},
	{w: 0xe21100ff, asm: "ands r0, r1, #255", in: "r1=0x100 nzcv=0000", out: "r0=0 nzcv=0100"},
	{w: 0xe2110104, asm: "ands r0, r1, #4, 2", in: "r1=0xffffffff nzcv=0010", out: "r0=1 nzcv=0000"},
	{w: 0xe2110208, asm: "ands r0, r1, #8, 4", in: "r1=0xffffffff", out: "r0=0x80000000 nzcv=1010"},
	{w: 0xe3110102, asm: "tst r1, #-2147483648", in: "r1=0x80000000", out: "nzcv=1010"},
	{w: 0xe3110102, asm: "tst r1, #-2147483648", in: "r1=0 nzcv=1001", out: "nzcv=0111"},
	{w: 0xe28f0004, asm: "add r0, pc, #4", out: "r0=0x100c"},
	// Register operands.
	{w: 0xe0810002, asm: "add r0, r1, r2", in: "r1=5 r2=7 nzcv=1111", out: "r0=12"},
	{w: 0xe0910002, asm: "adds r0, r1, r2", in: "r1=0x80000000 r2=0x80000000", out: "r0=0 nzcv=0111"},
	{w: 0xe0510002, asm: "subs r0, r1, r2", in: "r1=5 r2=5", out: "r0=0 nzcv=0110"},
	{w: 0xe0510002, asm: "subs r0, r1, r2", in: "r1=0 r2=1", out: "r0=0xffffffff nzcv=1000"},
	{w: 0xe0510002, asm: "subs r0, r1, r2", in: "r1=0x80000000 r2=1", out: "r0=0x7fffffff nzcv=0011"},
	{w: 0xe0b10002, asm: "adcs r0, r1, r2", in: "r1=0xffffffff r2=0 c=1", out: "r0=0 nzcv=0110"},
	{w: 0xe0b10002, asm: "adcs r0, r1, r2", in: "r1=0x7fffffff r2=0 c=1", out: "r0=0x80000000 nzcv=1001"},
	{w: 0xe0b10002, asm: "adcs r0, r1, r2", in: "r1=0x7fffffff r2=0 c=0", out: "r0=0x7fffffff nzcv=0000"},
	{w: 0xe0d10002, asm: "sbcs r0, r1, r2", in: "r1=5 r2=5 c=0", out: "r0=0xffffffff nzcv=1000"},
	{w: 0xe0d10002, asm: "sbcs r0, r1, r2", in: "r1=5 r2=5 c=1", out: "r0=0 nzcv=0110"},
	{w: 0xe0d10002, asm: "sbcs r0, r1, r2", in: "r1=0x80000000 r2=0 c=0", out: "r0=0x7fffffff nzcv=0011"},
	{w: 0xe0f10002, asm: "rscs r0, r1, r2", in: "r1=1 r2=3 c=0", out: "r0=1 nzcv=0010"},
	{w: 0xe0f10002, asm: "rscs r0, r1, r2", in: "r1=3 r2=3 c=0", out: "r0=0xffffffff nzcv=1000"},
	{w: 0xe1310002, asm: "teq r1, r2", in: "r1=5 r2=5 nzcv=1010", out: "nzcv=0110"},
	{w: 0xe1510002, asm: "cmp r1, r2", in: "r1=1 r2=2", out: "nzcv=1000"},
	{w: 0xe1710002, asm: "cmn r1, r2", in: "r1=0xffffffff r2=1", out: "nzcv=0110"},
	{w: 0xe1a0000f, asm: "mov r0, pc", out: "r0=0x1008"},
	// Immediate shifts, including LSR/ASR #32 and RRX.
	{w: 0xe0810182, asm: "add r0, r1, r2, lsl #3", in: "r1=1 r2=2", out: "r0=17"},
	{w: 0xe0610142, asm: "rsb r0, r1, r2, asr #2", in: "r1=1 r2=0x80000000", out: "r0=0xdfffffff"},
	{w: 0xe0310022, asm: "eors r0, r1, r2, lsr #32", in: "r1=0xf r2=0x80000001", out: "r0=0xf nzcv=0010"},
	{w: 0xe0310022, asm: "eors r0, r1, r2, lsr #32", in: "r1=0 r2=0x7fffffff c=1", out: "r0=0 nzcv=0100"},
	{w: 0xe1910042, asm: "orrs r0, r1, r2, asr #32", in: "r1=0 r2=0x80000000", out: "r0=0xffffffff nzcv=1010"},
	{w: 0xe1910042, asm: "orrs r0, r1, r2, asr #32", in: "r1=0 r2=0x40000000 nzcv=0011", out: "r0=0 nzcv=0101"},
	{w: 0xe1d10062, asm: "bics r0, r1, r2, rrx", in: "r1=0xffffffff r2=2 c=1", out: "r0=0x7ffffffe nzcv=0000"},
	{w: 0xe1b00061, asm: "rrxs r0, r1", in: "r1=3", out: "r0=1 nzcv=0010"},
	{w: 0xe1b00061, asm: "rrxs r0, r1", in: "r1=2 c=1", out: "r0=0x80000001 nzcv=1000"},
	{w: 0xe1b00081, asm: "lsls r0, r1, #1", in: "r1=0x80000000", out: "r0=0 nzcv=0110"},
	{w: 0xe1b00021, asm: "lsrs r0, r1, #32", in: "r1=0x80000000", out: "r0=0 nzcv=0110"},
	{w: 0xe1a00fc1, asm: "asr r0, r1, #31", in: "r1=0x80000000 nzcv=0100", out: "r0=0xffffffff"},
	{w: 0xe1a00261, asm: "ror r0, r1, #4", in: "r1=0x12345678", out: "r0=0x81234567"},
	// Register-specified shifts: the bottom byte of Rs counts.
	{w: 0xe0810312, asm: "add r0, r1, r2, lsl r3", in: "r1=1 r2=2 r3=0x104", out: "r0=33"},
	{w: 0xe0810312, asm: "add r0, r1, r2, lsl r3", in: "r1=1 r2=2 r3=32", out: "r0=1"},
	{w: 0xe1b00211, asm: "lsls r0, r1, r2", in: "r1=0x80000001 r2=1", out: "r0=2 nzcv=0010"},
	{w: 0xe1b00211, asm: "lsls r0, r1, r2", in: "r1=0x80000001 r2=32", out: "r0=0 nzcv=0110"},
	{w: 0xe1b00211, asm: "lsls r0, r1, r2", in: "r1=0x80000001 r2=33 c=1", out: "r0=0 nzcv=0100"},
	{w: 0xe1b00211, asm: "lsls r0, r1, r2", in: "r1=0x80000001 r2=0x100 c=1", out: "r0=0x80000001 nzcv=1010"},
	{w: 0xe1b00231, asm: "lsrs r0, r1, r2", in: "r1=0x80000001 r2=1", out: "r0=0x40000000 nzcv=0010"},
	{w: 0xe1b00231, asm: "lsrs r0, r1, r2", in: "r1=0x80000001 r2=32", out: "r0=0 nzcv=0110"},
	{w: 0xe1b00231, asm: "lsrs r0, r1, r2", in: "r1=0x80000001 r2=33", out: "r0=0 nzcv=0100"},
	{w: 0xe1b00251, asm: "asrs r0, r1, r2", in: "r1=0x80000000 r2=31", out: "r0=0xffffffff nzcv=1000"},
	{w: 0xe1b00251, asm: "asrs r0, r1, r2", in: "r1=0x80000000 r2=40", out: "r0=0xffffffff nzcv=1010"},
	{w: 0xe1b00251, asm: "asrs r0, r1, r2", in: "r1=0x40000000 r2=255 c=1", out: "r0=0 nzcv=0100"},
	{w: 0xe1b00271, asm: "rors r0, r1, r2", in: "r1=0x80000001 r2=1", out: "r0=0xc0000000 nzcv=1010"},
	{w: 0xe1b00271, asm: "rors r0, r1, r2", in: "r1=0x80000001 r2=32", out: "r0=0x80000001 nzcv=1010"},
	{w: 0xe1b00271, asm: "rors r0, r1, r2", in: "r1=0x80000001 r2=0 c=0", out: "r0=0x80000001 nzcv=1000"},
	{w: 0xe1b00271, asm: "rors r0, r1, r2", in: "r1=0x80000001 r2=36 c=1", out: "r0=0x18000000 nzcv=0000"},
	// Writes to PC.
	{w: 0xe1a0f00e, asm: "mov pc, lr", in: "lr=0x2000", out: "pc=0x2000", flow: isa.FlowReturn},
	{w: 0xe1a0f003, asm: "mov pc, r3", in: "r3=0x3000", out: "pc=0x3000", flow: isa.FlowBranch},
	{w: 0xe28ff004, asm: "add pc, pc, #4", out: "pc=0x100c", flow: isa.FlowBranch},
	{w: 0xe1b0f00e, asm: "movs pc, lr", in: "lr=0x2000", err: isa.ErrUnsupported},
	{w: 0xe1a0f00e, asm: "mov pc, lr", in: "lr=0x2001", err: isa.ErrUnsupported},
	// Multiplies: the S forms set N and Z only.
	{w: 0xe0000291, asm: "mul r0, r1, r2", in: "r1=0x10000 r2=0x10001", out: "r0=0x10000"},
	{w: 0xe0100291, asm: "muls r0, r1, r2", in: "r1=0x80000000 r2=1 nzcv=0111", out: "r0=0x80000000 nzcv=1011"},
	{w: 0xe0100291, asm: "muls r0, r1, r2", in: "r1=0x10000 r2=0x10000", out: "r0=0 nzcv=0100"},
	{w: 0xe0203291, asm: "mla r0, r1, r2, r3", in: "r1=3 r2=4 r3=5", out: "r0=17"},
	{w: 0xe0603291, asm: "mls r0, r1, r2, r3", in: "r1=3 r2=4 r3=5", out: "r0=0xfffffff9"},
	{w: 0xe0810392, asm: "umull r0, r1, r2, r3", in: "r2=0xffffffff r3=0xffffffff", out: "r0=1 r1=0xfffffffe"},
	{w: 0xe0c10392, asm: "smull r0, r1, r2, r3", in: "r2=0xffffffff r3=0xffffffff", out: "r0=1 r1=0"},
	{w: 0xe0c10392, asm: "smull r0, r1, r2, r3", in: "r2=0x80000000 r3=2", out: "r0=0 r1=0xffffffff"},
	{w: 0xe0a10392, asm: "umlal r0, r1, r2, r3", in: "r0=0xffffffff r1=0 r2=1 r3=1", out: "r0=0 r1=1"},
	{w: 0xe0f10392, asm: "smlals r0, r1, r2, r3", in: "r0=0 r1=0 r2=0xffffffff r3=1 nzcv=0111", out: "r0=0xffffffff r1=0xffffffff nzcv=1011"},
	{w: 0xe0f10392, asm: "smlals r0, r1, r2, r3", in: "r0=1 r1=0 r2=0xffffffff r3=1", out: "r0=0 r1=0 nzcv=0100"},
	// MOVW/MOVT, CLZ, extends.
	{w: 0xe3010234, asm: "movw r0, #4660", in: "r0=0xffffffff", out: "r0=0x1234"},
	{w: 0xe34a0bcd, asm: "movt r0, #43981", in: "r0=0x11115678", out: "r0=0xabcd5678"},
	{w: 0xe16f0f11, asm: "clz r0, r1", in: "r1=0", out: "r0=32"},
	{w: 0xe16f0f11, asm: "clz r0, r1", in: "r1=1", out: "r0=31"},
	{w: 0xe16f0f11, asm: "clz r0, r1", in: "r0=5 r1=0x80000000", out: "r0=0"},
	{w: 0xe6ef0071, asm: "uxtb r0, r1", in: "r1=0x12345678", out: "r0=0x78"},
	{w: 0xe6ef0471, asm: "uxtb r0, r1, ror #8", in: "r1=0x12345678", out: "r0=0x56"},
	{w: 0xe6ff0871, asm: "uxth r0, r1, ror #16", in: "r1=0x12345678", out: "r0=0x1234"},
	{w: 0xe6af0c71, asm: "sxtb r0, r1, ror #24", in: "r1=0x80000000", out: "r0=0xffffff80"},
	{w: 0xe6bf0071, asm: "sxth r0, r1", in: "r1=0x00018000", out: "r0=0xffff8000"},
	{w: 0xe320f000, asm: "nop", in: "nzcv=1111", out: ""},

	// Loads and stores. Memory is [0x1000, 0x4000).
	{w: 0xe5910004, asm: "ldr r0, [r1, #4]", in: "r1=0x2000 [0x2004]=0xdeadbeef", out: "r0=0xdeadbeef", acc: "L4 0x2004 r0 =0xdeadbeef"},
	{w: 0xe5310004, asm: "ldr r0, [r1, #-4]!", in: "r1=0x2004 [0x2000]=7", out: "r0=7 r1=0x2000", acc: "L4 0x2000 r0 =0x7"},
	{w: 0xe4910004, asm: "ldr r0, [r1], #4", in: "r1=0x2000 [0x2000]=7", out: "r0=7 r1=0x2004", acc: "L4 0x2000 r0 =0x7"},
	{w: 0xe5110000, asm: "ldr r0, [r1]", in: "r1=0x2000 [0x2000]=7", out: "r0=7", acc: "L4 0x2000 r0 =0x7"},
	{w: 0xe7910102, asm: "ldr r0, [r1, r2, lsl #2]", in: "r1=0x2000 r2=1 [0x2004]=9", out: "r0=9", acc: "L4 0x2004 r0 =0x9"},
	{w: 0xe7310102, asm: "ldr r0, [r1, -r2, lsl #2]!", in: "r1=0x2008 r2=1 [0x2004]=9", out: "r0=9 r1=0x2004", acc: "L4 0x2004 r0 =0x9"},
	{w: 0xe6110002, asm: "ldr r0, [r1], -r2", in: "r1=0x2004 r2=4 [0x2004]=9", out: "r0=9 r1=0x2000", acc: "L4 0x2004 r0 =0x9"},
	{w: 0xe7910022, asm: "ldr r0, [r1, r2, lsr #32]", in: "r1=0x2000 r2=0xffffffff [0x2000]=1", out: "r0=1", acc: "L4 0x2000 r0 =0x1"},
	{w: 0xe7910042, asm: "ldr r0, [r1, r2, asr #32]", in: "r1=0x2001 r2=0x80000000 [0x2000]=1", out: "r0=1", acc: "L4 0x2000 r0 =0x1"},
	{w: 0xe7910062, asm: "ldr r0, [r1, r2, rrx]", in: "r1=0x80002000 r2=8 c=1 [0x2004]=2", out: "r0=2", acc: "L4 0x2004 r0 =0x2"},
	{w: 0xe7910262, asm: "ldr r0, [r1, r2, ror #4]", in: "r1=0x2000 r2=0x40 [0x2004]=3", out: "r0=3", acc: "L4 0x2004 r0 =0x3"},
	{w: 0xe59f0004, asm: "ldr r0, [pc, #4]", in: "[0x100c]=0x55", out: "r0=0x55", acc: "L4 0x100c r0 =0x55"},
	{w: 0xe15f00b4, asm: "ldrh r0, [pc, #-4]", in: "[0x1004]=0x12345678", out: "r0=0x5678", acc: "L2 0x1004 r0 =0x5678"},
	{w: 0xe5d10001, asm: "ldrb r0, [r1, #1]", in: "r1=0x2000 [0x2000]=0x11223344", out: "r0=0x33", acc: "L1 0x2001 r0 =0x33"},
	{w: 0xe5c10003, asm: "strb r0, [r1, #3]", in: "r0=0x12345678 r1=0x2000", acc: "S1 0x2003 r0 =0x78"},
	{w: 0xe7c10002, asm: "strb r0, [r1, r2]", in: "r0=0x1ff r1=0x2000 r2=5", acc: "S1 0x2005 r0 =0xff"},
	{w: 0xe1d100b2, asm: "ldrh r0, [r1, #2]", in: "r1=0x2000 [0x2000]=0x11223344", out: "r0=0x1122", acc: "L2 0x2002 r0 =0x1122"},
	{w: 0xe1d100f2, asm: "ldrsh r0, [r1, #2]", in: "r1=0x2000 [0x2000]=0x80000000", out: "r0=0xffff8000", acc: "L2 0x2002 r0 =0x8000"},
	{w: 0xe1d100d3, asm: "ldrsb r0, [r1, #3]", in: "r1=0x2000 [0x2000]=0x80000000", out: "r0=0xffffff80", acc: "L1 0x2003 r0 =0x80"},
	{w: 0xe1d100d3, asm: "ldrsb r0, [r1, #3]", in: "r1=0x2000 [0x2000]=0x7f000000", out: "r0=0x7f", acc: "L1 0x2003 r0 =0x7f"},
	{w: 0xe11100b2, asm: "ldrh r0, [r1, -r2]", in: "r1=0x2004 r2=2 [0x2000]=0xbeef0000", out: "r0=0xbeef", acc: "L2 0x2002 r0 =0xbeef"},
	{w: 0xe0d100d1, asm: "ldrsb r0, [r1], #1", in: "r1=0x2000 [0x2000]=0xfe", out: "r0=0xfffffffe r1=0x2001", acc: "L1 0x2000 r0 =0xfe"},
	{w: 0xe16100b2, asm: "strh r0, [r1, #-2]!", in: "r0=0xabcd1234 r1=0x2004", out: "r1=0x2002", acc: "S2 0x2002 r0 =0x1234"},
	{w: 0xe1c200d8, asm: "ldrd r0, [r2, #8]", in: "r2=0x2000 [0x2008]=1 [0x200c]=2", out: "r0=1 r1=2", acc: "L4 0x2008 r0 =0x1; L4 0x200c r1 =0x2"},
	{w: 0xe00420d5, asm: "ldrd r2, [r4], -r5", in: "r4=0x2008 r5=8 [0x2008]=1 [0x200c]=2", out: "r2=1 r3=2 r4=0x2000", acc: "L4 0x2008 r2 =0x1; L4 0x200c r3 =0x2"},
	{w: 0xe16d00f8, asm: "strd r0, [sp, #-8]!", in: "r0=1 r1=2 sp=0x2000", out: "sp=0x1ff8", acc: "S4 0x1ff8 r0 =0x1; S4 0x1ffc r1 =0x2"},
	{w: 0xe581f000, asm: "str pc, [r1]", in: "r1=0x2000", acc: "S4 0x2000 pc =0x1008"},
	{w: 0xe7810008, asm: "str r0, [r1, r8]", in: "r0=1 r1=0x2000 r8=4", acc: "S4 0x2004 r0 =0x1"},
	{w: 0xe7210109, asm: "str r0, [r1, -r9, lsl #2]!", in: "r0=1 r1=0x2008 r9=1", out: "r1=0x2004", acc: "S4 0x2004 r0 =0x1"},
	{w: uint32(StrPre(LR, SP, -8)), asm: "str lr, [sp, #-8]!", in: "lr=0x1234 sp=0x2000", out: "sp=0x1ff8", acc: "S4 0x1ff8 lr =0x1234"},
	{w: uint32(LdrImm(LR, SP, 4)), asm: "ldr lr, [sp, #4]", in: "sp=0x2000 [0x2004]=0x1234", out: "lr=0x1234", acc: "L4 0x2004 lr =0x1234"},
	{w: uint32(LdrPost(PC, SP, 8)), asm: "ldr pc, [sp], #8", in: "sp=0x2000 [0x2000]=0x3000", out: "pc=0x3000 sp=0x2008", flow: isa.FlowReturn, acc: "L4 0x2000 pc =0x3000"},
	{w: 0xe591f000, asm: "ldr pc, [r1]", in: "r1=0x2000 [0x2000]=0x3000", out: "pc=0x3000", flow: isa.FlowBranch, acc: "L4 0x2000 pc =0x3000"},
	{w: 0xe591f000, asm: "ldr pc, [r1]", in: "r1=0x2000 [0x2000]=0x3001", err: isa.ErrUnsupported},
	// Unaligned LDR, LDRH, STRH (ARMv7, SCTLR.A = 0): byte accesses, lowest
	// address first; LDRD and a load into the pc must be aligned.
	{w: 0xe5910000, asm: "ldr r0, [r1]", in: "r1=0x2002 [0x2000]=0x11223344 [0x2004]=0x55667788", out: "r0=0x77881122",
		acc: "L1 0x2002 r0 =0x22; L1 0x2003 r0 =0x11; L1 0x2004 r0 =0x88; L1 0x2005 r0 =0x77"},
	{w: 0xe1d100b0, asm: "ldrh r0, [r1]", in: "r1=0x2001 [0x2000]=0x11223344", out: "r0=0x2233", acc: "L1 0x2001 r0 =0x33; L1 0x2002 r0 =0x22"},
	{w: 0xe1d100f0, asm: "ldrsh r0, [r1]", in: "r1=0x2003 [0x2000]=0x80000000 [0x2004]=0xff", out: "r0=0xffffff80", acc: "L1 0x2003 r0 =0x80; L1 0x2004 r0 =0xff"},
	{w: 0xe1c100b0, asm: "strh r0, [r1]", in: "r0=0xabcd r1=0x2001", acc: "S1 0x2001 r0 =0xcd; S1 0x2002 r0 =0xab"},
	{w: 0xe1c200d0, asm: "ldrd r0, [r2]", in: "r2=0x2002", err: isa.ErrMemory},
	{w: 0xe591f000, asm: "ldr pc, [r1]", in: "r1=0x2002", err: isa.ErrMemory},
	{w: 0xe5910000, asm: "ldr r0, [r1]", in: "r1=0x8000", err: isa.ErrMemory},
	{w: 0xe5810000, asm: "str r0, [r1]", in: "r1=0x3ffe", err: isa.ErrMemory},

	// PUSH, POP, LDM*, STM*: ascending addresses, lowest register lowest.
	{w: uint32(PushOne(LR)), asm: "push {lr}", in: "sp=0x2000 lr=0xe", out: "sp=0x1ffc", acc: "S4 0x1ffc lr =0xe"},
	{w: uint32(Push(RegList(R4, LR))), asm: "push {r4, lr}", in: "sp=0x2000 r4=4 lr=0xe", out: "sp=0x1ff8", acc: "S4 0x1ff8 r4 =0x4; S4 0x1ffc lr =0xe"},
	{w: uint32(Pop(RegList(R4, PC))), asm: "pop {r4, pc}", in: "sp=0x2000 [0x2000]=0x44 [0x2004]=0x3000", out: "r4=0x44 pc=0x3000 sp=0x2008", flow: isa.FlowReturn, acc: "L4 0x2000 r4 =0x44; L4 0x2004 pc =0x3000"},
	{w: uint32(Pop(1 << LR)), asm: "ldm sp!, {lr}", in: "sp=0x2000 [0x2000]=0x44", out: "lr=0x44 sp=0x2004", acc: "L4 0x2000 lr =0x44"},
	{w: uint32(PopOne(PC)), asm: "pop {pc}", in: "sp=0x2000 [0x2000]=0x3000", out: "pc=0x3000 sp=0x2004", flow: isa.FlowReturn, acc: "L4 0x2000 pc =0x3000"},
	{w: uint32(PopOne(R5)), asm: "pop {r5}", in: "sp=0x2000 [0x2000]=5", out: "r5=5 sp=0x2004", acc: "L4 0x2000 r5 =0x5"},
	{w: 0xe8b08006, asm: "ldm r0!, {r1, r2, pc}", in: "r0=0x2000 [0x2000]=1 [0x2004]=2 [0x2008]=0x3000", out: "r0=0x200c r1=1 r2=2 pc=0x3000", flow: isa.FlowBranch,
		acc: "L4 0x2000 r1 =0x1; L4 0x2004 r2 =0x2; L4 0x2008 pc =0x3000"},
	{w: 0xe9900006, asm: "ldmib r0, {r1, r2}", in: "r0=0x2000 [0x2004]=1 [0x2008]=2", out: "r1=1 r2=2", acc: "L4 0x2004 r1 =0x1; L4 0x2008 r2 =0x2"},
	{w: 0xe8300006, asm: "ldmda r0!, {r1, r2}", in: "r0=0x2008 [0x2004]=1 [0x2008]=2", out: "r0=0x2000 r1=1 r2=2", acc: "L4 0x2004 r1 =0x1; L4 0x2008 r2 =0x2"},
	{w: 0xe9100006, asm: "ldmdb r0, {r1, r2}", in: "r0=0x2008 [0x2000]=1 [0x2004]=2", out: "r1=1 r2=2", acc: "L4 0x2000 r1 =0x1; L4 0x2004 r2 =0x2"},
	{w: 0xe8a00006, asm: "stm r0!, {r1, r2}", in: "r0=0x2000 r1=1 r2=2", out: "r0=0x2008", acc: "S4 0x2000 r1 =0x1; S4 0x2004 r2 =0x2"},
	{w: 0xe9a00006, asm: "stmib r0!, {r1, r2}", in: "r0=0x2000 r1=1 r2=2", out: "r0=0x2008", acc: "S4 0x2004 r1 =0x1; S4 0x2008 r2 =0x2"},
	{w: 0xe8000006, asm: "stmda r0, {r1, r2}", in: "r0=0x2008 r1=1 r2=2", acc: "S4 0x2004 r1 =0x1; S4 0x2008 r2 =0x2"},
	{w: 0xe9200003, asm: "stmdb r0!, {r0, r1}", in: "r0=0x2008 r1=1", out: "r0=0x2000", acc: "S4 0x2000 r0 =0x2008; S4 0x2004 r1 =0x1"},
	{w: 0xe8808002, asm: "stm r0, {r1, pc}", in: "r0=0x2000 r1=1", acc: "S4 0x2000 r1 =0x1; S4 0x2004 pc =0x1008"},
	{w: 0xe89d8001, asm: "ldm sp, {r0, pc}", in: "sp=0x2000 [0x2000]=1 [0x2004]=0x3000", out: "r0=1 pc=0x3000", flow: isa.FlowReturn, acc: "L4 0x2000 r0 =0x1; L4 0x2004 pc =0x3000"},
	{w: 0xe8b00003, asm: "ldm r0!, {r0, r1}", in: "r0=0x2000 [0x2000]=0x77 [0x2004]=1", out: "r0=0x77 r1=1", acc: "L4 0x2000 r0 =0x77; L4 0x2004 r1 =0x1"},
	{w: 0xe8bd8010, asm: "pop {r4, pc}", in: "sp=0x2000 [0x2004]=0x3002", err: isa.ErrUnsupported},
	{w: uint32(Push(RegList(R4, LR))), asm: "push {r4, lr}", in: "sp=0x1004", err: isa.ErrMemory},

	// Branches.
	{w: 0xea000000, asm: "b 0x1008", out: "pc=0x1008", flow: isa.FlowBranch},
	{w: 0xeafffffe, asm: "b 0x1000", out: "pc=0x1000", flow: isa.FlowBranch},
	{w: 0xebffffff, asm: "bl 0x1004", out: "pc=0x1004 lr=0x1004", flow: isa.FlowCall},
	{w: 0xeb0003fe, asm: "bl 0x2000", in: "lr=7", out: "pc=0x2000 lr=0x1004", flow: isa.FlowCall},
	{w: 0xe12fff1e, asm: "bx lr", in: "lr=0x3000", out: "pc=0x3000", flow: isa.FlowReturn},
	{w: 0xe12fff13, asm: "bx r3", in: "r3=0x3000", out: "pc=0x3000", flow: isa.FlowBranch},
	{w: 0xe12fff13, asm: "bx r3", in: "r3=0x3001", err: isa.ErrUnsupported},
	{w: 0xe12fff33, asm: "blx r3", in: "r3=0x3000", out: "pc=0x3000 lr=0x1004", flow: isa.FlowCall},
	{w: 0xe12fff3e, asm: "blx lr", in: "lr=0x3000", out: "pc=0x3000 lr=0x1004", flow: isa.FlowCall},
	{w: 0x0a000000, asm: "beq 0x1008", in: "z=0", flow: isa.FlowSkipped},
	{w: 0x0a000000, asm: "beq 0x1008", in: "z=1", out: "pc=0x1008", flow: isa.FlowBranch},
	{w: 0x1bffffff, asm: "blne 0x1004", in: "z=1 lr=5", flow: isa.FlowSkipped},

	// Preload hints: nothing changes, no access, no fault (the addresses
	// are outside the bus).
	{w: 0xf7d6f100, asm: "pld [r6, r0, lsl #2]", in: "r6=0x8000 r0=3"},
	{w: 0xf5d1f020, asm: "pld [r1, #32]", in: "r1=0x9000"},
	{w: 0xf591f020, asm: "pldw [r1, #32]", in: "r1=0x9000"},
	{w: 0xf4d1f020, asm: "pli [r1, #32]", in: "r1=0x9000"},
	{w: 0xf6d1f002, asm: "pli [r1, r2]", in: "r1=0x9000 r2=4"},

	// Unsupported instructions fault (with isa.ErrUnsupported) only when run.
	{w: 0xef000000, asm: "svc 0x00000000", err: isa.ErrUnsupported},
	{w: 0xe10f0000, asm: "mrs r0, apsr", err: isa.ErrUnsupported},
	{w: 0xfa000000, asm: "blx 0x1008", err: isa.ErrUnsupported},
	{w: 0xe1b0f00e, asm: "movs pc, lr", err: isa.ErrUnsupported},
	{w: 0x0f000000, asm: "svceq 0x00000000", in: "z=0", flow: isa.FlowSkipped},
	{w: 0xe00f0291, asm: "mul pc, r1, r2", err: isa.ErrUnsupported},
	{w: 0xe08f0312, asm: "add r0, pc, r2, lsl r3", err: isa.ErrUnsupported},
	{w: 0xe1a0f312, asm: "lsl pc, r2, r3", err: isa.ErrUnsupported},
	{w: 0xe1cee0d0, asm: "ldrd lr, [lr]", in: "lr=0x2000", err: isa.ErrUnsupported},
}

func runCase(t *testing.T, c execCase) (Regs, *fakeBus, isa.Flow, error) {
	t.Helper()
	var r Regs
	r.R[PC] = execPC
	bus := newFakeBus(0x1000, 0x4000)
	applyState(t, c.in, &r, bus)
	inst, err := Decode(execPC, c.w)
	if err != nil {
		t.Fatalf("%08x: %v", c.w, err)
	}
	flow, err := Exec(&inst, &r, bus)
	return r, bus, flow, err
}

func TestExecTable(t *testing.T) {
	for _, c := range execCases {
		name := c.asm + " / " + c.in
		t.Run(name, func(t *testing.T) {
			if got := DisasmWord(execPC, c.w); got != c.asm {
				t.Errorf("%08x disassembles as %q, want %q", c.w, got, c.asm)
			}
			var want Regs
			want.R[PC] = execPC
			applyState(t, c.in, &want, newFakeBus(0x1000, 0x4000))
			want.R[PC] += 4
			applyState(t, c.out, &want, newFakeBus(0x1000, 0x4000))

			got, bus, flow, err := runCase(t, c)
			if c.err != nil {
				var e *isa.Fault
				if !errors.As(err, &e) || !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want an *isa.Fault wrapping %v", err, c.err)
				}
				if e.PC != uint64(execPC) || !bytes.Equal(e.Bytes, wordBytes(c.w)) {
					t.Errorf("error names pc %#x word % x", e.PC, e.Bytes)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if flow != c.flow {
				t.Errorf("flow = %v, want %v", flow, c.flow)
			}
			if got != want {
				t.Errorf("state\n got %s\nwant %s", regsString(&got), regsString(&want))
			}
			if log := bus.LogString(regName); log != c.acc {
				t.Errorf("accesses\n got %s\nwant %s", log, c.acc)
			}
		})
	}
}

// conditionHolds is ConditionPassed() from the ARM ARM pseudocode (A8.3.1),
// written independently of Regs.Passed.
func conditionHolds(cond uint32, n, z, c, v bool) bool {
	var r bool
	switch cond >> 1 {
	case 0:
		r = z
	case 1:
		r = c
	case 2:
		r = n
	case 3:
		r = v
	case 4:
		r = c && !z
	case 5:
		r = n == v
	case 6:
		r = n == v && !z
	case 7:
		r = true
	}
	if cond&1 == 1 && cond != 15 {
		r = !r
	}
	return r
}

func TestExecConditions(t *testing.T) {
	for cond := uint32(0); cond < 15; cond++ {
		w := cond<<28 | 0x03a00001 // mov<c> r0, #1
		inst, err := Decode(execPC, w)
		if err != nil {
			t.Fatal(err)
		}
		for flags := 0; flags < 16; flags++ {
			r := Regs{N: flags&8 != 0, Z: flags&4 != 0, C: flags&2 != 0, V: flags&1 != 0}
			r.R[PC] = execPC
			before := r
			flow, err := Exec(&inst, &r, newFakeBus(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			want := conditionHolds(cond, before.N, before.Z, before.C, before.V)
			if want != (flow == isa.FlowNext) || want != (r.R[0] == 1) || !want && flow != isa.FlowSkipped {
				t.Errorf("cond %d flags %04b: flow %v r0 %d, want executed=%v", cond, flags, flow, r.R[0], want)
			}
			if r.R[PC] != execPC+4 || r.N != before.N || r.Z != before.Z || r.C != before.C || r.V != before.V {
				t.Errorf("cond %d flags %04b: pc %#x flags changed", cond, flags, r.R[PC])
			}
			if got := before.Passed(Cond(cond)); got != want {
				t.Errorf("Passed(%d) with %04b = %v", cond, flags, got)
			}
		}
	}
}

func TestExecErrors(t *testing.T) {
	// 0xe7f000f0 is the permanently undefined UDF; armasm has no decoding.
	for _, w := range []uint32{0xe7f000f0, 0xf0000000, 0xe6000010} {
		_, err := Decode(0x1234, w)
		var e *isa.Fault
		if !errors.As(err, &e) || !errors.Is(err, isa.ErrUndecodable) || e.PC != 0x1234 || !bytes.Equal(e.Bytes, wordBytes(w)) {
			t.Errorf("Decode(%08x) err = %#v, want isa.ErrUndecodable at 0x1234", w, err)
		}
		if DisasmWord(0, w) != "(undecodable)" {
			t.Errorf("DisasmWord(%08x) = %q", w, DisasmWord(0, w))
		}
	}
	for _, c := range []struct {
		w    uint32
		want string
	}{
		{0xef000000, "pc 0x1000: ef000000 (svc 0x00000000): unsupported instruction"},
		{0xe10f0000, "pc 0x1000: e10f0000 (mrs r0, apsr): unsupported instruction"},
		{0xfa000000, "pc 0x1000: fa000000 (blx 0x1008): unsupported instruction"},
		{0xe12fff13, "pc 0x1000: e12fff13 (bx r3): interworking branch to Thumb state: unsupported instruction"},
	} {
		_, _, _, err := runCase(t, execCase{w: c.w, in: "r3=1"})
		if err == nil || err.Error() != c.want {
			t.Errorf("%08x: err = %v, want %q", c.w, err, c.want)
		}
	}
	_, _, _, err := runCase(t, execCase{w: 0xe5910000, in: "r1=0x8000"})
	if err == nil || !strings.Contains(err.Error(), "ldr r0, [r1]") || !errors.Is(err, isa.ErrMemory) {
		t.Errorf("fault: err = %v", err)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(0x1000, 0x100)
	a, err := c.Lookup(0x1010, 0xe1a00000)
	if err != nil || a.Fam != 0 && a.Arch.Op&^15|14 != a.Fam {
		t.Fatalf("first lookup: %v", err)
	}
	b, err := c.Lookup(0x1010, 0xe1a00000)
	if err != nil || a != b {
		t.Fatalf("hit returned %p (err %v), want the cached %p", b, err, a)
	}
	if allocs := testing.AllocsPerRun(100, func() { c.Lookup(0x1010, 0xe1a00000) }); allocs != 0 {
		t.Errorf("hit allocates %v times", allocs)
	}
	// The same pc with a new word (a patched slot) decodes afresh.
	n, err := c.Lookup(0x1010, uint32(Pop(1<<LR)))
	if err != nil || n.Word != uint32(Pop(1<<LR)) || DisasmWord(0x1010, n.Word) != "ldm sp!, {lr}" {
		t.Fatalf("re-decode: %+v %v", n.Word, err)
	}
	if g := Disasm(n, 0x1010, nil); g != "ldm sp!, {lr}" {
		t.Errorf("Disasm = %q", g)
	}
	// Errors are cached and re-reported.
	for i := 0; i < 2; i++ {
		if _, err := c.Lookup(0x1014, 0xe7f000f0); !errors.Is(err, isa.ErrUndecodable) {
			t.Errorf("lookup %d of an undecodable word: %v", i, err)
		}
	}
	// A branch target prints as an absolute address with a symbol.
	bl, _ := c.Lookup(0x1000, uint32(must2(BL(0x1000, 0x2000))))
	sym := func(a uint32) string {
		if a == 0x2000 {
			return "ftrace_caller"
		}
		return ""
	}
	if g := Disasm(bl, 0x1000, sym); g != "bl 0x2000 <ftrace_caller>" {
		t.Errorf("Disasm with symbols = %q", g)
	}
}

// TestDecodeParallel decodes from many goroutines; under -race it proves
// that armasm.Decode, which writes a package-level table, is serialized.
func TestDecodeParallel(t *testing.T) {
	for g := 0; g < 8; g++ {
		seed := uint32(g)*0x9e3779b9 + 1
		t.Run("", func(t *testing.T) {
			t.Parallel()
			x := seed
			c := NewCache(0, 64*4)
			for i := 0; i < 2000; i++ {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				Decode(uint32(i*4), x)
				c.Lookup(uint32(i%64)*4, x)
				DisasmWord(0, x)
			}
		})
	}
}

func TestExecUndecodableInst(t *testing.T) {
	c := NewCache(0x1000, 16)
	inst, err := c.Lookup(0x1000, 0xe7f000f0)
	if !errors.Is(err, isa.ErrUndecodable) {
		t.Fatalf("Lookup err = %v", err)
	}
	r := Regs{Z: false}
	r.R[PC] = 0x1000
	if _, err := Exec(inst, &r, newFakeBus(0, 0)); !errors.Is(err, isa.ErrUndecodable) || err.Error() != "pc 0x1000: e7f000f0 (?): undecodable instruction" {
		t.Errorf("Exec of an undecodable entry: %v", err)
	}
}

func TestCacheOutside(t *testing.T) {
	c := NewCache(0x1000, 8)
	for _, pc := range []uint32{0x0ffc, 0x1008, 0x1002, 0xfffffffc} {
		inst, err := c.Lookup(pc, 0xe1a00000)
		var e *isa.Fault
		if !errors.As(err, &e) || !errors.Is(err, isa.ErrMemory) || e.PC != uint64(pc) {
			t.Errorf("Lookup(%#x) err = %v, want isa.ErrMemory", pc, err)
		}
		r := Regs{}
		r.R[PC] = pc
		if _, err := Exec(inst, &r, newFakeBus(0, 0)); !errors.Is(err, isa.ErrMemory) {
			t.Errorf("Exec of the Lookup(%#x) result: %v", pc, err)
		}
	}
	if _, err := c.Lookup(0x1004, 0xe1a00000); err != nil {
		t.Errorf("last word: %v", err)
	}
}
