package patch

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/kernel"
)

// Assemble encodes one instruction of a form for the site byte at addr of
// img. It knows the handful of instructions patch strategies write, and
// accepts any encoding as hex. The result must decode.
//
// ARM: "push {lr}" (e52de004, GCC's form), "pop {lr}" (e8bd4000, the
// kernel's form), "mov r0, r0", "nop", "add sp, sp, #4", "b .+N",
// "b SYMBOL", "bl SYMBOL", "bl .+N", or 8 hex digits. arm64: see
// assembleARM64.
func Assemble(img *kernel.Image, insn string, addr uint64) ([]byte, error) {
	s := strings.Join(strings.Fields(strings.ToLower(insn)), " ")
	switch img.Arch {
	case kernel.ARM:
		w, err := assembleARM(img, s, insn, addr)
		if err != nil {
			return nil, err
		}
		if _, err := arm.Decode(uint32(addr), uint32(w)); err != nil {
			return nil, fmt.Errorf("%q (%v) does not decode", insn, w)
		}
		return w.Bytes(), nil
	case kernel.X86:
		return assembleX86(img, s, insn, addr)
	case kernel.ARM64:
		return assembleARM64(img, s, insn, addr)
	case kernel.RISCV64:
		return assembleRISCV(img, s, insn, addr)
	}
	return nil, fmt.Errorf("no assembler for %v", img.Arch)
}

func assembleARM(img *kernel.Image, s, orig string, addr uint64) (arm.Word, error) {
	if len(s) == 8 {
		if v, err := strconv.ParseUint(s, 16, 32); err == nil {
			return arm.Word(v), nil
		}
	}
	pc := uint32(addr)
	switch s {
	case "push {lr}", "str lr, [sp, #-4]!":
		return arm.PushOne(arm.LR), nil
	case "pop {lr}", "ldm sp!, {lr}", "ldmia sp!, {lr}":
		return arm.Pop(1 << arm.LR), nil
	case "mov r0, r0":
		return arm.MovReg(arm.R0, arm.R0), nil
	case "nop":
		return arm.Nop(), nil
	case "add sp, sp, #4":
		w, _ := arm.AddImm(arm.SP, arm.SP, 4)
		return w, nil
	}
	if op, arg, ok := strings.Cut(s, " "); ok && (op == "b" || op == "bl") {
		target, err := armTarget(img, arg, orig, addr)
		if err != nil {
			return 0, err
		}
		enc := arm.B
		if op == "bl" {
			enc = arm.BL
		}
		w, ok := enc(pc, uint32(target))
		if !ok {
			return 0, fmt.Errorf("%q: target %#x out of range", orig, target)
		}
		return w, nil
	}
	return 0, fmt.Errorf("cannot assemble %q (write it as 8 hex digits)", orig)
}

func armTarget(img *kernel.Image, arg, orig string, addr uint64) (uint64, error) {
	if rest, ok := strings.CutPrefix(arg, "."); ok {
		n, err := strconv.ParseInt(strings.TrimPrefix(rest, "+"), 0, 32)
		if err != nil {
			return 0, fmt.Errorf("%q: bad offset %q", orig, rest)
		}
		return uint64(int64(addr) + n), nil
	}
	if a, ok := img.Symbol(arg); ok {
		return a, nil
	}
	return 0, fmt.Errorf("%q: unknown symbol %q", orig, arg)
}

// assembleX86 accepts "call SYMBOL", "nop5" (0f 1f 44 00 00), "int3", or hex bytes.
func assembleX86(img *kernel.Image, s, orig string, addr uint64) ([]byte, error) {
	switch s {
	case "nop5", "nopl 0x0(%rax,%rax,1)":
		return []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, nil
	case "int3":
		return []byte{0xcc}, nil
	}
	if op, arg, ok := strings.Cut(s, " "); ok && op == "call" {
		t, ok := img.Symbol(arg)
		if !ok {
			return nil, fmt.Errorf("%q: unknown symbol %q", orig, arg)
		}
		rel := int64(t) - int64(addr+5)
		if rel < -1<<31 || rel >= 1<<31 {
			return nil, fmt.Errorf("%q: target out of range", orig)
		}
		r := uint32(int32(rel))
		return []byte{0xe8, byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)}, nil
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("cannot assemble %q (write it as hex bytes)", orig)
	}
	return b, nil
}
