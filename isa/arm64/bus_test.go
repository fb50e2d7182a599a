package arm64

import "github.com/mcountsim/mcountsim/internal/isatest"

// memBus is the recording bus of the tests (isatest.Bus) over one window
// of memory.
type memBus = isatest.Bus

type access = isatest.Access

func newMemBus(base uint64, size int) *memBus { return isatest.NewBus(base, base+uint64(size)) }
