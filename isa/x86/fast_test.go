package x86

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Exec's fast path gives what the general path gives: every instruction of
// a random sample of byte strings (with REX prefixes and ModRM forms of
// the fast opcodes over-represented) that takes it, from random registers
// and flags, ends in the same registers, flags, flow, error and memory
// accesses as with the fast path turned off.
func TestFastPathIsTheGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	opcodes := []byte{0x89, 0x8b, 0xc7, 0xb8, 0x01, 0x03, 0x29, 0x2b, 0x31, 0x33, 0x21, 0x09, 0x39, 0x3b, 0x85,
		0x11, 0x19, 0x81, 0x83, 0x80, 0x88, 0x8a, 0xc6, 0x50, 0x53, 0x58, 0x5b, 0x54, 0x5c, 0xc1, 0xd1, 0xd3, 0xc0, 0xd0}
	const base = 0x10000
	forms := map[uint8]int{}
	for i := 0; i < 300000; i++ {
		var b [MaxLen]byte
		for j := range b {
			b[j] = byte(rng.Intn(256))
		}
		k := 0
		if rng.Intn(3) != 0 {
			b[0] = 0x40 | byte(rng.Intn(16)) // REX
			k = 1
		}
		b[k] = opcodes[rng.Intn(len(opcodes))]
		if rng.Intn(2) == 0 {
			b[k+1] = b[k+1]&0x3f | 0x40 // mod 01: [reg+disp8]
		}
		inst, err := Decode(0x1000, b[:])
		if err != nil || inst.fast == fastNone {
			continue
		}
		forms[inst.fast]++
		var r Regs
		for j := range r.R {
			r.R[j] = rng.Uint64()
			if rng.Intn(2) == 0 {
				r.R[j] = base + 0x800 + uint64(rng.Intn(0x100)) // a pointer into the bus
			}
		}
		r.RIP = 0x1000
		r.CF, r.PF, r.AF, r.ZF, r.SF, r.OF = rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0
		bus := newTestBus(base, 0x1000)
		for a := uint64(base); a < base+0x1000; a += 8 {
			bus.put64(a, rng.Uint64())
		}
		general := inst
		general.fast = fastNone
		r1, r2 := r, r
		b1, b2 := bus.clone(), bus.clone()
		f1, err1 := Exec(&inst, &r1, b1)
		f2, err2 := Exec(&general, &r2, b2)
		require.Equal(t, r2, r1, "% x %s", inst.Bytes(), Disasm(&inst, 0x1000, nil))
		require.Equal(t, f2, f1)
		require.Equal(t, err2, err1)
		require.Equal(t, b2.seen, b1.seen)
		require.Equal(t, b2.mem, b1.mem)
	}
	for f := fastMov; f <= fastLast; f++ {
		require.Greater(t, forms[f], 100, "form %d", f)
	}
}
