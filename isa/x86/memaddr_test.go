package x86

import (
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/require"
)

// TestMemAddr: the data access MemAddr reports (bytes from GNU as), with
// rsp=0x100100, rcx=3, rdi=0x1000, rbp=0x1000f0.
func TestMemAddr(t *testing.T) {
	var r Regs
	r.R[RSP], r.R[RCX], r.R[RDI], r.R[RBP] = 0x100100, 3, 0x1000, 0x1000f0
	for _, c := range []struct {
		hex   []byte
		asm   string
		addr  uint64
		size  int
		store bool
		ok    bool
	}{
		{[]byte{0x89, 0x04, 0x8c}, "mov %eax,(%rsp,%rcx,4)", 0x10010c, 4, true, true},
		{[]byte{0x03, 0x04, 0x8c}, "add (%rsp,%rcx,4),%eax", 0x10010c, 4, false, true},
		{[]byte{0x48, 0x8b, 0x47, 0x08}, "mov 0x8(%rdi),%rax", 0x1008, 8, false, true},
		{[]byte{0x48, 0x8d, 0x47, 0x08}, "lea 0x8(%rdi),%rax", 0, 0, false, false},
		{[]byte{0xc9}, "leave", 0x1000f0, 8, false, true},
		{[]byte{0x48, 0x87, 0x07}, "xchg %rax,(%rdi)", 0x1000, 8, true, true},
	} {
		inst, err := Decode(0x400000, c.hex)
		require.NoError(t, err, c.asm)
		r.RIP = 0x400000
		addr, size, store, ok := MemAddr(&inst, &r)
		require.Equal(t, c.ok, ok, c.asm)
		require.Equal(t, [3]any{c.addr, c.size, c.store}, [3]any{addr, size, store}, c.asm)
	}
}

// TestGSOperands: a gs override adds Regs.GSBase (the kernel's per-CPU
// area: the stack canary at %gs:40 or %gs:sym(%rip)), is neither a stack
// access nor a literal, and runs; fs, and gs on a string instruction,
// stay unsupported.
func TestGSOperands(t *testing.T) {
	r := Regs{GSBase: 0x7000, RIP: 0x400000}
	r.R[RSP] = 0x100100
	for _, c := range []struct {
		hex  []byte
		asm  string
		addr uint64
	}{
		{[]byte{0x65, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00}, "mov %gs:0x28,%rax", 0x7028},
		{[]byte{0x65, 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, "mov %gs:0x100(%rip),%rax", 0x7000 + 0x400008 + 0x100},
		{[]byte{0x65, 0x48, 0x2b, 0x14, 0x24}, "sub %gs:(%rsp),%rdx", 0x7000 + 0x100100},
	} {
		inst, err := Decode(0x400000, c.hex)
		require.NoError(t, err, c.asm)
		addr, size, store, ok := MemAddr(&inst, &r)
		require.True(t, ok, c.asm)
		require.Equal(t, [3]any{c.addr, 8, false}, [3]any{addr, size, store}, c.asm)
		require.False(t, StackOrLiteral(&inst), c.asm)
		require.False(t, RIPRelative(&inst), c.asm)
		bus := newTestBus(c.addr, 8)
		for i := range bus.mem {
			bus.mem[i] = byte(0x10 + i)
		}
		rr := r
		_, err = Exec(&inst, &rr, bus)
		require.NoError(t, err, c.asm)
		want := uint64(0x1716151413121110)
		if c.asm[:3] == "sub" {
			want = -want
		}
		reg := RAX
		if c.asm[:3] == "sub" {
			reg = RDX
		}
		require.Equal(t, want, rr.R[reg], c.asm)
	}
	for _, hex := range [][]byte{{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00}, {0x65, 0xa4}} {
		inst, err := Decode(0x400000, hex)
		if err == nil {
			var rr Regs
			_, err = Exec(&inst, &rr, newTestBus(0, 0x100))
		}
		require.ErrorIs(t, err, isa.ErrUnsupported, "% x", hex)
	}
}
