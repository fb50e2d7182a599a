package arm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodeDataProcessing: the register, register-shifted and immediate
// data-processing encoders, MUL, UMULL and CLZ, against the words GNU as
// assembles (arm-linux-gnueabi-as 2.40) and round-tripped through armasm.
func TestEncodeDataProcessing(t *testing.T) {
	ok := func(w Word, fine bool) Word {
		require.True(t, fine)
		return w
	}
	for _, c := range []struct {
		w      Word
		want   uint32
		disasm string
	}{
		{DPReg(ADD, true, R0, R0, R0, LSL, 0), 0xe0900000, "adds r0, r0, r0"},
		{DPReg(ADC, false, R0, R0, R0, LSL, 0), 0xe0a00000, "adc r0, r0, r0"},
		{DPRegShift(MOV, false, R12, 0, R1, LSL, R3), 0xe1a0c311, "lsl ip, r1, r3"},
		{DPRegShift(ORR, false, R1, R1, R0, LSR, R3), 0xe1811330, "orr r1, r1, r0, lsr r3"},
		{DPReg(MOV, false, R1, 0, R1, ASR, 31), 0xe1a01fc1, "asr r1, r1, #31"},
		{ok(DPImm(RSB, false, R3, R2, 32)), 0xe2623020, "rsb r3, r2, #32"},
		{DPReg(CMP, false, 0, R2, R12, LSL, 0), 0xe152000c, "cmp r2, ip"},
		{DPReg(SBC, true, R12, R5, R3, LSL, 0), 0xe0d5c003, "sbcs ip, r5, r3"},
		{ok(DPImm(RSC, false, R1, R1, 0)), 0xe2e11000, "rsc r1, r1, #0"},
		{Mul(R12, R3, R0), 0xe00c0093, "mul ip, r3, r0"},
		{Umull(R3, R1, R0, R2), 0xe0813290, "umull r3, r1, r0, r2"},
		{Clz(R3, R1), 0xe16f3f11, "clz r3, r1"},
		{DPReg(EOR, false, R5, R0, R1, LSL, 0), 0xe0205001, "eor r5, r0, r1"},
		{DPReg(ORR, true, R12, R2, R3, LSL, 0), 0xe192c003, "orrs ip, r2, r3"},
		{DPReg(MOV, true, R0, 0, R1, ROR, 7), 0xe1b003e1, "rors r0, r1, #7"},
		{DPReg(MOV, false, R1, 0, R0, LSL, 0).If(PL), 0x51a01000, "movpl r1, r0"},
	} {
		assert.Equal(t, c.want, uint32(c.w), "%s: got %v", c.disasm, c.w)
		inst, err := Decode(0x8000, uint32(c.w))
		require.NoError(t, err, c.disasm)
		require.NoError(t, inst.err, "%s decodes to something Exec runs", c.disasm)
		assert.Equal(t, c.disasm, Disasm(&inst, 0x8000, nil))
	}
	_, fine := DPImm(ADD, false, R0, R0, 0x101)
	assert.False(t, fine, "0x101 is not a modified immediate")
}
