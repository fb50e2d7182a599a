package riscv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/arch/riscv64/riscv64asm"
)

// TestOps: the table built from xnames reaches every xop, each A-extension
// one under exactly its four orderings and every other under one op, with
// the operand shape riscv64asm gives its arguments.
func TestOps(t *testing.T) {
	per := map[xop]int{}
	for _, info := range ops {
		per[info.x]++
	}
	for x := xUnsupported + 1; x < xCount; x++ {
		want := 1
		if x >= xLRW && x <= xAMOMAXUD {
			want = 4
		}
		assert.Equal(t, want, per[x], "ops naming %v", x)
	}
	assert.Len(t, ops, 66+22*4)
	for op, want := range map[riscv64asm.Op]opInfo{
		riscv64asm.LUI:          {xLUI, shapeU},
		riscv64asm.JAL:          {xJAL, shapeJ},
		riscv64asm.JALR:         {xJALR, shapeMem},
		riscv64asm.BGEU:         {xBGEU, shapeB},
		riscv64asm.LWU:          {xLWU, shapeMem},
		riscv64asm.SD:           {xSD, shapeStore},
		riscv64asm.SRAI:         {xSRAI, shapeI},
		riscv64asm.SRAIW:        {xSRAIW, shapeI},
		riscv64asm.AND:          {xAND, shapeR},
		riscv64asm.REMUW:        {xREMUW, shapeR},
		riscv64asm.LR_D_RL:      {xLRD, shapeLR},
		riscv64asm.SC_W_AQRL:    {xSCW, shapeAMO},
		riscv64asm.AMOMAXU_D_AQ: {xAMOMAXUD, shapeAMO},
		riscv64asm.FENCE_I:      {xFenceI, shapeNone},
		riscv64asm.EBREAK:       {xEbreak, shapeNone},
	} {
		assert.Equal(t, want, ops[op], "%v", op)
	}
	for _, op := range []riscv64asm.Op{riscv64asm.C_ADD, riscv64asm.CSRRW, riscv64asm.FADD_D} {
		_, ok := ops[op]
		assert.False(t, ok, "%v is not run", op)
	}
}
