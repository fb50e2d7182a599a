package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --prologue takes each arch's layout names (kernel.Prologues), so that
// the replay line of a RISC-V or arm64 run (which prints the layout) runs;
// a wrong name lists the arch's; an object's layout must be the
// strategy's.
func TestPrologueLayouts(t *testing.T) {
	for _, c := range []struct {
		args    []string
		verdict string
	}{
		{[]string{"--arch", "riscv64", "--strategy", "rv-pfe8", "--prologue", "pfe8", "--preempt", "none"}, "verdict:  SAFE"},
		{[]string{"--arch", "riscv64", "--strategy", "rv-pfe8", "--prologue", "pfe8"}, "verdict:  UNSAFE"},
		{[]string{"--arch", "arm64", "--strategy", "arm64-both-plain", "--prologue", "pfe2"}, "hazard:   cmodx"},
		{[]string{"--arch", "arm64", "--strategy", "arm64-mcount", "--prologue", "pg", "--bound", "0"}, "verdict:  SAFE"},
	} {
		code, out, errOut := mcountsim(append([]string{"check"}, c.args...)...)
		require.NotEqual(t, 2, code, "%v: %s", c.args, errOut)
		assert.Contains(t, out, c.verdict, "%v", c.args)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "riscv64", "--strategy", "rv-pfe8", "--prologue", "pfe2"}, `--prologue: unknown riscv64 layout "pfe2" (want atomic, mcount, pfe16, pfe8)`},
		{[]string{"--arch", "arm64", "--strategy", "arm64-nop-bl", "--prologue", "fentry"}, `--prologue: unknown arm64 layout "fentry" (want pfe2, pfe4-2, pg)`},
		{[]string{"--object", "../../kernel/testdata/obj/arm64-pfe2-args8.o", "--function", "leaf", "--args", "7,5", "--strategy", "arm64-call-ops"},
			"strategy arm64-call-ops patches the pfe4-2 layout, but the object's sites are pfe2"},
		{[]string{"--object", "../../kernel/testdata/obj/rv-atomic-args8.o", "--function", "leaf", "--strategy", "rv-pfe8"},
			"strategy rv-pfe8 patches the pfe8 layout, but the object's sites are atomic"},
		{[]string{"--object", "../../kernel/testdata/obj/rv-pfe8-rvc-args8.o", "--function", "args8", "--args", "1,2,3,4,5,6,7,8,9", "--strategy", "rv-pfe8"},
			"9 arguments, the riscv64 workload passes at most 8 (a0-a7)"},
		{[]string{"--object", "../../kernel/testdata/obj/rv-pfe8-rvc-args8.o", "--function", "leaf", "--strategy", "rv-pfe8", "--prologue", "pfe8"},
			"--prologue describes the built-in text; it cannot be used with --object"},
	} {
		code, _, errOut := mcountsim(append([]string{"check"}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
}
