package riscv

import "github.com/mcountsim/mcountsim/internal/isatest"

// fakeBus is the recording bus of the tests (isatest.Bus).
type fakeBus = isatest.Bus

func newFakeBus(lo, hi uint64) *fakeBus { return isatest.NewBus(lo, hi) }
