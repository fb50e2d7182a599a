package objfile

import (
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/riscv64/riscv64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/mcountsim/mcountsim/isa/arm"
)

// armDecode decodes A32 through isa/arm, whose lock serializes every
// armasm.Decode of the process: armasm.Decode writes a package-level
// variable and so is not safe for concurrent use (x/arch v0.33.0), and a
// lock of this package's own would not exclude the simulator's decodes.
func armDecode(b []byte) (armasm.Inst, error) { return arm.DecodeArmasm(b) }

// instLen returns the length of the site instruction at the start of b:
// callLen when a call relocation told it (8 for a RISC-V auipc+jalr pair),
// else one instruction's length; never more than len(b).
func instLen(arch Arch, b []byte, thumb bool, callLen int) int {
	n := 4
	switch arch {
	case ArchARM:
		if thumb && len(b) >= 2 {
			// A 32-bit Thumb-2 instruction starts with 0b11101,
			// 0b11110 or 0b11111 in the top bits of its first halfword
			// (ARM DDI 0406C §A6.1). Little-endian code assumed.
			if hw := uint16(b[0]) | uint16(b[1])<<8; hw>>11 < 0x1d {
				n = 2
			}
		}
	case ArchX86_64:
		n = 1
		if inst, err := x86asm.Decode(b[:min(len(b), 15)], 64); err == nil {
			n = inst.Len
		}
	case ArchRISCV64:
		n = 4
		if len(b) >= 1 && b[0]&3 != 3 {
			n = 2 // compressed
		}
		if callLen == 8 {
			n = 8
		}
	}
	return min(n, len(b))
}

// disasm disassembles the site bytes b at address pc in GNU syntax.
func disasm(arch Arch, b []byte, pc uint64, thumb bool) string {
	return strings.TrimSpace(disasmRaw(arch, b, pc, thumb))
}

func disasmRaw(arch Arch, b []byte, pc uint64, thumb bool) string {
	if len(b) == 0 {
		return "(no bytes)"
	}
	switch arch {
	case ArchARM:
		if thumb {
			if d, ok := thumbCall(b, pc); ok {
				return d + " (thumb)"
			}
			var hw []string
			for i := 0; i+1 < len(b); i += 2 {
				hw = append(hw, fmt.Sprintf("%02x%02x", b[i+1], b[i]))
			}
			return strings.Join(hw, " ") + " (thumb)"
		}
		inst, err := armDecode(b)
		if err != nil {
			return "(bad)"
		}
		return armasm.GNUSyntax(inst)
	case ArchX86_64:
		inst, err := x86asm.Decode(b, 64)
		if err != nil {
			return "(bad)"
		}
		if rel, ok := inst.Args[0].(x86asm.Rel); ok && pc == 0 {
			// An absolute target at every address: GNUSyntax prints
			// ".+rel" at pc 0 (the start of a section), so print at
			// another pc and put the real target in.
			const at = 1 << 40
			fake := fmt.Sprintf("%#x", uint64(at+inst.Len)+uint64(int64(rel)))
			return strings.Replace(x86asm.GNUSyntax(inst, at, nil), fake, fmt.Sprintf("%#x", uint64(inst.Len)+uint64(int64(rel))), 1)
		}
		return x86asm.GNUSyntax(inst, pc, nil)
	case ArchARM64:
		inst, err := arm64asm.Decode(b)
		if err != nil {
			return "(bad)"
		}
		return arm64asm.GNUSyntax(inst)
	case ArchRISCV64:
		var out []string
		for len(b) > 0 {
			inst, err := riscv64asm.Decode(b)
			if err != nil || inst.Len == 0 || inst.Len > len(b) {
				out = append(out, "(bad)")
				break
			}
			out = append(out, strings.TrimSpace(riscv64asm.GNUSyntax(inst)))
			b = b[inst.Len:]
		}
		return strings.Join(out, "; ")
	}
	return hex.EncodeToString(b)
}

// thumbCall disassembles a Thumb-2 BL or BLX (immediate) at pc (ARMv7-A ARM
// §A8.8.25: encodings T1 and T2), the call of a Thumb mcount site, which
// armasm does not decode.
func thumbCall(b []byte, pc uint64) (string, bool) {
	if len(b) < 4 {
		return "", false
	}
	hw1 := uint32(b[0]) | uint32(b[1])<<8
	hw2 := uint32(b[2]) | uint32(b[3])<<8
	if hw1>>11 != 0x1e || hw2>>14 != 3 {
		return "", false
	}
	blx := hw2&(1<<12) == 0
	if blx && hw2&1 != 0 {
		return "", false // T2 with H set is UNDEFINED
	}
	s := (hw1 >> 10) & 1
	j1, j2 := (hw2>>13)&1, (hw2>>11)&1
	i1, i2 := ^(j1^s)&1, ^(j2^s)&1
	imm := s<<24 | i1<<23 | i2<<22 | (hw1&0x3ff)<<12 | (hw2&0x7ff)<<1
	off := int64(int32(imm<<7) >> 7) // sign-extend 25 bits
	if blx {
		return fmt.Sprintf("blx %#x", (pc&^3)+4+uint64(off)), true
	}
	return fmt.Sprintf("bl %#x", pc+4+uint64(off)), true
}
