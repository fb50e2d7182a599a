package patch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
)

// assembleRISCV encodes one RV64 piece at addr:
//
//   - "nop" (00000013, the kernel's NOP4) and "c.nop" (0001);
//   - "auipc REG, SYMBOL": the upper half of a call from addr to SYMBOL
//     (to_auipc_t0 / to_auipc_ra of asm/ftrace.h), or "auipc REG, 0xN";
//   - "jalr REG, SYMBOL": the lower half of that call, for the auipc 4 bytes
//     before addr (jalr REG, lo(REG)), or "jalr REG, N(RS)";
//   - "call REG, SYMBOL" (or "call SYMBOL", through ra): both halves, 8 bytes;
//   - "sd REG, N(RS)" and "ld REG, N(RS)" (era 1's sd ra,-8(sp) / ld ra,-8(sp));
//   - 8 hex digits (a word) or 4 (a compressed halfword).
//
// Registers are ABI names (ra, sp, t0, a0 ...) or x0-x31. Every result must
// decode.
func assembleRISCV(img *kernel.Image, s, orig string, addr uint64) ([]byte, error) {
	b, err := encodeRISCV(img, s, orig, addr)
	if err != nil {
		return nil, err
	}
	for off := 0; off < len(b); {
		inst, err := riscv.Decode(addr+uint64(off), b[off:])
		if err != nil || !inst.Supported() {
			return nil, fmt.Errorf("%q (%s) does not decode to an instruction the simulator runs", orig, riscv.DisasmBytes(addr, b))
		}
		off += int(inst.Len)
	}
	return b, nil
}

func encodeRISCV(img *kernel.Image, s, orig string, addr uint64) ([]byte, error) {
	switch s {
	case "nop":
		return riscv.Nop().Bytes(), nil
	case "c.nop":
		return riscv.CNop().Bytes(), nil
	}
	if v, err := strconv.ParseUint(s, 16, 32); err == nil && (len(s) == 8 || len(s) == 4) {
		if len(s) == 4 {
			return riscv.Half(v).Bytes(), nil
		}
		return riscv.Word(v).Bytes(), nil
	}
	op, rest, _ := strings.Cut(s, " ")
	args := strings.Split(strings.ReplaceAll(rest, " ", ""), ",")
	bad := func(why string) error { return fmt.Errorf("%q: %s", orig, why) }
	switch op {
	case "call":
		link, sym := riscv.RA, ""
		switch len(args) {
		case 1:
			sym = args[0]
		case 2:
			r, ok := rvReg(args[0])
			if !ok {
				return nil, bad("unknown register " + args[0])
			}
			link, sym = r, args[1]
		default:
			return nil, bad("want call REG, SYMBOL")
		}
		target, err := rvSymbol(img, sym, orig)
		if err != nil {
			return nil, err
		}
		au, jr, ok := riscv.Call(link, addr, target)
		if !ok {
			return nil, bad("target out of auipc+jalr range")
		}
		return append(au.Bytes(), jr.Bytes()...), nil
	case "auipc", "jalr", "sd", "ld":
	default:
		return nil, bad("cannot assemble (write it as 8 or 4 hex digits)")
	}
	if len(args) != 2 {
		return nil, bad("want " + op + " REG, ...")
	}
	rd, ok := rvReg(args[0])
	if !ok {
		return nil, bad("unknown register " + args[0])
	}
	if op == "auipc" {
		if v, err := strconv.ParseUint(args[1], 0, 32); err == nil {
			if v >= 1<<20 {
				return nil, bad("immediate out of 20 bits")
			}
			return riscv.Auipc(rd, uint32(v)).Bytes(), nil
		}
		target, err := rvSymbol(img, args[1], orig)
		if err != nil {
			return nil, err
		}
		au, _, ok := riscv.Call(rd, addr, target)
		if !ok {
			return nil, bad("target out of auipc+jalr range")
		}
		return au.Bytes(), nil
	}
	if !strings.HasSuffix(args[1], ")") || !strings.Contains(args[1], "(") {
		if op != "jalr" {
			return nil, bad("want " + op + " REG, N(REG)")
		}
		target, err := rvSymbol(img, args[1], orig)
		if err != nil {
			return nil, err
		}
		_, jr, ok := riscv.Call(rd, addr-4, target)
		if !ok {
			return nil, bad("target out of auipc+jalr range")
		}
		return jr.Bytes(), nil
	}
	num, base, _ := strings.Cut(strings.TrimSuffix(args[1], ")"), "(")
	rs, ok := rvReg(base)
	if !ok {
		return nil, bad("unknown register " + base)
	}
	n := int64(0)
	if num != "" {
		var err error
		if n, err = strconv.ParseInt(num, 0, 16); err != nil || n < -2048 || n > 2047 {
			return nil, bad("offset out of range -2048..2047")
		}
	}
	switch op {
	case "jalr":
		return riscv.Jalr(rd, rs, int32(n)).Bytes(), nil
	case "sd":
		return riscv.Sd(rd, rs, int32(n)).Bytes(), nil
	}
	return riscv.Ld(rd, rs, int32(n)).Bytes(), nil
}

func rvReg(s string) (int, bool) {
	for r := uint8(0); r < 32; r++ {
		if s == riscv.RegName(r) || s == fmt.Sprintf("x%d", r) {
			return int(r), true
		}
	}
	if s == "fp" {
		return riscv.S0, true
	}
	return 0, false
}

func rvSymbol(img *kernel.Image, name, orig string) (uint64, error) {
	if a, ok := img.Symbol(name); ok {
		return a, nil
	}
	return 0, fmt.Errorf("%q: unknown symbol %q", orig, name)
}
