package sched_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// TestViewKeyed: the state hash reads a CPU's synchronized write of a
// patchable byte only where the concurrent-modification rule can fire on
// its word (fetch.go's initViewKey), and every floor; with the reduction
// off (Unreduced) it reads both everywhere.
func TestViewKeyed(t *testing.T) {
	for _, c := range []struct {
		arch           kernel.Arch
		strategy       string
		floors, synced int
	}{
		// One site each (kernel.Config's one traced function).
		// The two words: nop <-> bl, and the boot-time mov x9, x30.
		{kernel.ARM64, "arm64-nop-bl", 8, 0},
		// The ops literal (pointers, outside the set) beside them.
		{kernel.ARM64, "arm64-call-ops", 16, 8},
		// mov x9, x30 <-> nop at the first word, bl <-> nop at the second.
		{kernel.ARM64, "arm64-both-sm", 8, 4},
		// push {lr} <-> b.
		{kernel.ARM, "jmp-over", 4, 4},
		// No concurrent-modification rule.
		{kernel.RISCV64, "rv-atomic", 8, 0},
		{kernel.X86, "text-poke-bp", 5, 0},
	} {
		t.Run(c.arch.String()+"/"+c.strategy, func(t *testing.T) {
			st, ok := patch.Lookup(c.arch, c.strategy)
			require.True(t, ok)
			img, err := kernel.Build(c.arch, kernel.Config{Prologue: st.Prologue})
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 2)
			require.NoError(t, err)
			for _, unreduced := range []bool{false, true} {
				m, err := sched.New(img, sched.Config{CPUs: 2, Tasks: 2, Unreduced: unreduced}, prog)
				require.NoError(t, err)
				floors, synced := sched.ViewKeyed(m)
				if unreduced {
					require.Equal(t, floors, synced)
					continue
				}
				require.Equal(t, [2]int{c.floors, c.synced}, [2]int{floors, synced})
			}
		})
	}
}
