package x86_test

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa/x86"
)

// The enabled and disabled forms of an ftrace site at 0xffffffff81000010
// calling ftrace_caller at 0xffffffff81c00000.
func ExampleCallRel32() {
	site, caller := uint64(0xffffffff81000010), uint64(0xffffffff81c00000)
	call, ok := x86.CallRel32(site, caller)
	fmt.Printf("% x %v\n", call, ok)
	fmt.Printf("% x\n", x86.Nop5())
	// Output:
	// e8 eb ff bf 00 true
	// 0f 1f 44 00 00
}

func ExampleDisasm() {
	sym := func(addr uint64) string {
		if addr == 0x2000 {
			return "ftrace_caller"
		}
		return ""
	}
	text := []byte{0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0xf7, 0x0f, 0x00, 0x00, 0x55, 0x48, 0x89, 0xe5}
	for pc := uint64(0x1000); pc < 0x1000+uint64(len(text)); {
		inst, err := x86.Decode(pc, text[pc-0x1000:])
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%#x: %s\n", pc, x86.Disasm(&inst, pc, sym))
		pc += uint64(inst.Len)
	}
	// Output:
	// 0x1000: endbr64
	// 0x1004: callq 0x2000 <ftrace_caller>
	// 0x1009: push %rbp
	// 0x100a: mov %rsp,%rbp
}

// stack is a isa.Bus over a small memory that prints every access.
type stack struct {
	base uint64
	mem  [64]byte
}

func (s *stack) Load(addr uint64, size int, reg uint8) (uint64, error) {
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(s.mem[addr-s.base+uint64(i)])
	}
	fmt.Printf("  load  %#x -> reg %#x: %#x\n", addr, reg, v)
	return v, nil
}

func (s *stack) Store(addr uint64, size int, v uint64, reg uint8) error {
	for i := 0; i < size; i++ {
		s.mem[addr-s.base+uint64(i)] = byte(v >> (8 * i))
	}
	fmt.Printf("  store %#x <- reg %#x: %#x\n", addr, reg, v)
	return nil
}

// A call and the matching return: the Bus sees the return address pushed
// with reg=isa.RetAddr and popped with reg=isa.PCReg.
func ExampleExec() {
	text := make([]byte, 0x20)
	call, _ := x86.CallRel32(0x1000, 0x1010)
	copy(text, call)
	copy(text[0x10:], x86.Ret())
	cache := x86.NewCache(0x1000, len(text))
	bus := &stack{base: 0x8000}
	r := x86.Regs{RIP: 0x1000}
	r.R[x86.RSP] = 0x8040
	for i := 0; i < 2; i++ {
		pc := r.RIP
		inst, err := cache.Lookup(pc, text[pc-0x1000:])
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(x86.Disasm(inst, pc, nil))
		flow, err := x86.Exec(inst, &r, bus)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("  %v: rip %#x rsp %#x\n", flow, r.RIP, r.R[x86.RSP])
	}
	// Output:
	// callq 0x1010
	//   store 0x8038 <- reg 0xfe: 0x1005
	//   call: rip 0x1010 rsp 0x8038
	// retq
	//   load  0x8038 -> reg 0xfd: 0x1005
	//   return: rip 0x1005 rsp 0x8040
}
