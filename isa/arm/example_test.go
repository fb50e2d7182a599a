package arm_test

import (
	"encoding/binary"
	"fmt"
	"github.com/mcountsim/mcountsim/isa"

	"github.com/mcountsim/mcountsim/isa/arm"
)

// stack is a isa.Bus over a small stack that prints every access.
type stack struct {
	base uint32
	mem  [64]byte
}

func (s *stack) load32(addr uint32, size int, reg uint8) (uint32, error) {
	v := binary.LittleEndian.Uint32(s.mem[addr-s.base:])
	fmt.Printf("  load  [%#x] = %#x -> r%d\n", addr, v, reg)
	return v, nil
}

func (s *stack) store32(addr uint32, size int, v uint32, reg uint8) error {
	binary.LittleEndian.PutUint32(s.mem[addr-s.base:], v)
	fmt.Printf("  store [%#x] = %#x <- r%d\n", addr, v, reg)
	return nil
}

// An mcount site whose bl slot holds the disabled form: the push {lr} is
// balanced by add sp, sp, #4 and the function returns normally.
func Example() {
	const text = 0x8000
	add, _ := arm.AddImm(arm.SP, arm.SP, 4)
	code := []arm.Word{arm.PushOne(arm.LR), add, arm.BX(arm.LR)}
	cache := arm.NewCache(text, 4*len(code))
	var r arm.Regs
	r.R[arm.SP], r.R[arm.LR], r.R[arm.PC] = 0x9040, 0x1234, text
	bus := &stack{base: 0x9000}
	for {
		pc := r.R[arm.PC]
		inst, err := cache.Lookup(pc, uint32(code[(pc-text)/4]))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%#x: %s\n", pc, arm.Disasm(inst, pc, nil))
		flow, err := arm.Exec(inst, &r, bus)
		if err != nil {
			panic(err)
		}
		if flow == isa.FlowReturn {
			fmt.Printf("returned to %#x with sp %#x\n", r.R[arm.PC], r.R[arm.SP])
			return
		}
	}
	// Output:
	// 0x8000: push {lr}
	//   store [0x903c] = 0x1234 <- r14
	// 0x8004: add sp, sp, #4
	// 0x8008: bx lr
	// returned to 0x1234 with sp 0x9040
}

func (b *stack) Load(a uint64, size int, reg uint8) (uint64, error) {
	v, err := b.load32(uint32(a), size, reg)
	return uint64(v), err
}

func (b *stack) Store(a uint64, size int, v uint64, reg uint8) error {
	return b.store32(uint32(a), size, uint32(v), reg)
}
