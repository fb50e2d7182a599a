package sched

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Hazards name ARM registers as the manuals do: r13-r15 by their roles.
func TestARMRegName(t *testing.T) {
	var k armCore
	for r, want := range map[uint8]string{0: "r0", 4: "r4", 12: "r12", 13: "sp", 14: "lr", 15: "pc", 16: "r16"} {
		require.Equal(t, want, k.regName(r), "register %d", r)
	}
}
