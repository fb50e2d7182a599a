package x86

import (
	"github.com/mcountsim/mcountsim/isa"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noMem is a isa.Bus for instructions that touch no memory.
type noMem struct{}

func (noMem) Load(uint64, int, uint8) (uint64, error) { return 0, isa.ErrMemory }
func (noMem) Store(uint64, int, uint64, uint8) error  { return isa.ErrMemory }

func TestBitScan(t *testing.T) {
	for _, c := range []struct {
		name     string
		code     []byte
		src, dst uint64
		want     uint64
		zf       bool
	}{
		{"bsr64", []byte{0x48, 0x0f, 0xbd, 0xc1}, 0x8000_0000_0000_0001, 7, 63, false},
		{"bsr64 one", []byte{0x48, 0x0f, 0xbd, 0xc1}, 1, 7, 0, false},
		{"bsr64 zero keeps rax", []byte{0x48, 0x0f, 0xbd, 0xc1}, 0, 7, 7, true},
		{"bsr32 ignores high half", []byte{0x0f, 0xbd, 0xc1}, 0xffff_0000_0000_0100, 0xdead_beef_0000_0000, 8, false},
		{"bsf64", []byte{0x48, 0x0f, 0xbc, 0xc1}, 0x0000_0100_0000_0000, 0, 40, false},
		{"bsf32 zero", []byte{0x0f, 0xbc, 0xc1}, 0xffff_ffff_0000_0000, 5, 5, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			inst, err := Decode(0x1000, c.code)
			require.NoError(t, err)
			var r Regs
			r.RIP = 0x1000
			r.R[RCX], r.R[RAX] = c.src, c.dst
			flow, err := Exec(&inst, &r, noMem{})
			require.NoError(t, err)
			assert.Equal(t, isa.FlowNext, flow)
			assert.Equal(t, c.want, r.R[RAX])
			assert.Equal(t, c.zf, r.ZF)
			assert.Equal(t, uint64(0x1000+len(c.code)), r.RIP)
		})
	}
}
