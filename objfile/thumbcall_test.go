package objfile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// thumbCall decodes Thumb-2 BL and BLX (ARMv7-A ARM A8.8.25, T1 and T2).
func TestThumbCall(t *testing.T) {
	for _, c := range []struct {
		hw1, hw2 uint16
		pc       uint64
		want     string
		ok       bool
	}{
		{0xf7ff, 0xfffe, 0xc, "bl 0xc", true},      // an unrelocated -pg call: offset -4
		{0xf000, 0xf801, 0x100, "bl 0x106", true},  // +2
		{0xf000, 0xe802, 0x102, "blx 0x108", true}, // BLX: Align(pc, 4) + 4 + 4
		{0xf000, 0xe803, 0x100, "", false},         // BLX with H set: undefined
		{0xb500, 0xf000, 0x100, "", false},         // push {lr}: not a call
	} {
		b := []byte{byte(c.hw1), byte(c.hw1 >> 8), byte(c.hw2), byte(c.hw2 >> 8)}
		got, ok := thumbCall(b, c.pc)
		assert.Equal(t, c.ok, ok, "%04x %04x", c.hw1, c.hw2)
		assert.Equal(t, c.want, got, "%04x %04x", c.hw1, c.hw2)
	}
	_, ok := thumbCall([]byte{0xff, 0xf7}, 0)
	assert.False(t, ok, "short")
}
