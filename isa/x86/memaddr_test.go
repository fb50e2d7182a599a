package x86

import (
	"testing"

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
