package patch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/kernel"
)

// assembleARM64 encodes one arm64 piece (s is insn lowercased, its spaces
// collapsed): "nop", "mov x9, x30" (aa1e03e9, the word ftrace_init_nop
// writes), "mov x0, x30", "b SYMBOL", "bl SYMBOL", "b .+N", "bl .+N",
// 8 hex digits (one A64 word, which must decode), or ".quad SYMBOL" /
// ".quad 0xN" (the 8-byte ftrace_ops literal of a CALL_OPS site: data, so
// it need not decode, and it must sit on an 8-byte boundary).
func assembleARM64(img *kernel.Image, s, orig string, addr uint64) ([]byte, error) {
	if arg, ok := strings.CutPrefix(s, ".quad "); ok {
		if addr%8 != 0 {
			return nil, fmt.Errorf("%q: a literal at %#x is not 8-byte aligned", orig, addr)
		}
		v, ok := img.Symbol(arg)
		if !ok {
			n, err := strconv.ParseUint(arg, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("%q: unknown symbol %q", orig, arg)
			}
			v = n
		}
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b, nil
	}
	w, err := arm64Word(img, s, orig, addr)
	if err != nil {
		return nil, err
	}
	if _, err := arm64.Decode(addr, uint32(w)); err != nil {
		return nil, fmt.Errorf("%q (%v) does not decode", orig, w)
	}
	return w.Bytes(), nil
}

func arm64Word(img *kernel.Image, s, orig string, addr uint64) (arm64.Word, error) {
	if len(s) == 8 {
		if v, err := strconv.ParseUint(s, 16, 32); err == nil {
			return arm64.Word(v), nil
		}
	}
	switch s {
	case "nop":
		return arm64.Nop(), nil
	case "mov x9, x30", "mov x9, lr", "orr x9, xzr, x30":
		return arm64.MovReg(9, arm64.LR), nil
	case "mov x0, x30", "mov x0, lr":
		return arm64.MovReg(0, arm64.LR), nil
	}
	if op, arg, ok := strings.Cut(s, " "); ok && (op == "b" || op == "bl") {
		target, err := armTarget(img, arg, orig, addr)
		if err != nil {
			return 0, err
		}
		enc := arm64.B
		if op == "bl" {
			enc = arm64.BL
		}
		w, ok := enc(addr, target)
		if !ok {
			return 0, fmt.Errorf("%q: target %#x out of range", orig, target)
		}
		return w, nil
	}
	return 0, fmt.Errorf("cannot assemble %q (write it as 8 hex digits)", orig)
}
