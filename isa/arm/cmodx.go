package arm

// InCMODXSet reports whether w is one of the A32 instructions that one CPU
// may execute while another modifies it without explicit synchronization,
// with a defined result (the old or the new instruction): ARMv7 ARM (DDI
// 0406C) §A3.5.4 "Concurrent modification and execution of instructions"
// lists B, BL, NOP, BKPT, SVC, HVC and SMC. NOP is the architectural hint
// (e320f000), not mov r0, r0. Modifying any other pair concurrently with
// its execution is UNPREDICTABLE.
func InCMODXSet(w uint32) bool {
	cond := w >> 28
	switch {
	case cond != 0xf && w&0x0e000000 == 0x0a000000: // B, BL: cond 101L imm24
		return true
	case w == 0xe320f000: // NOP (hint #0)
		return true
	case cond != 0xf && w&0x0f000000 == 0x0f000000: // SVC: cond 1111 imm24
		return true
	case w&0xfff000f0 == 0xe1200070: // BKPT #imm16 (unconditional)
		return true
	case w&0xfff000f0 == 0xe1400070: // HVC #imm16 (unconditional)
		return true
	case w&0x0ffffff0 == 0x01600070 && cond != 0xf: // SMC #imm4
		return true
	}
	return false
}
