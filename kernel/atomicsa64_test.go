package kernel

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atomicWant is the libgcc interface of an outline atomic (lse.S): the
// value it returns and what *p holds after it, for size bytes.
func atomicWant(op string, size int, a0, a1, mem uint64) (ret, after uint64) {
	m := ^uint64(0) >> (64 - 8*size)
	old := mem & m
	switch op {
	case "cas":
		if old == a0&m {
			return old, a1 & m
		}
		return old, old
	case "swp":
		return old, a0 & m
	case "ldadd":
		return old, (old + a0) & m
	case "ldclr":
		return old, old &^ a0 & m
	case "ldeor":
		return old, (old ^ a0) & m
	}
	return old, (old | a0) & m // ldset
}

// TestARM64OutlineAtomics runs every __aarch64_* helper under the A64
// executor, on a bus with an exclusive monitor, and compares the value
// returned and the memory after with the interface; a monitor cleared
// between the load- and the store-exclusive (another CPU's store, as
// package sched does it) makes the loop go round again, and the result is
// the same. Only x0, x15-x17 and memory change.
func TestARM64OutlineAtomics(t *testing.T) {
	img := a64HelperLib(t)
	rng := rand.New(rand.NewPCG(21, 21))
	const p = 0x40000
	for _, name := range a64AtomicNames() {
		var op string
		var size int
		var order string
		_, err := fmt.Sscanf(name, "__aarch64_%s", &op)
		require.NoError(t, err)
		for i, ch := range op {
			if ch >= '0' && ch <= '9' {
				size = int(ch - '0')
				op, order = op[:i], op[i+2:]
				break
			}
		}
		require.True(t, IsARM64Helper(name), name)
		for k := range 40 {
			mem := rng.Uint64()
			a0, a1 := rng.Uint64(), rng.Uint64()
			if op == "cas" && k%2 == 0 {
				a0 = mem | rng.Uint64()<<(8*size)&^(^uint64(0)>>(64-8*size)) // equal in the low bytes
				if size == 8 {
					a0 = mem
				}
			}
			for _, interfere := range []bool{false, true} {
				bus := isatest.NewBus(p-0x100, p+0x100)
				bus.Record = false
				binary.LittleEndian.PutUint64(bus.Mem[0x100:], mem)
				var r arm64.Regs
				for j := range r.X {
					r.X[j] = 0x1000 + uint64(j)
				}
				ptr := 1
				if op == "cas" {
					r.X[0], r.X[1], ptr = a0, a1, 2
				} else {
					r.X[0] = a0
				}
				r.X[ptr] = p
				r.SP, r.X[arm64.LR], r.PC = stackTop, returnTag, symAt(img.Symbol(name))
				saved := r.X
				entries, cleared := 0, false
				for n := 0; r.PC != returnTag; n++ {
					require.Less(t, n, 100, "%s runs away", name)
					off := r.PC - img.Base
					inst, err := arm64.Decode(r.PC, binary.LittleEndian.Uint32(img.Text[off:]))
					require.NoError(t, err)
					require.True(t, inst.Supported(), "%s at %s", name, img.Name(r.PC))
					if inst.IsExclusive() && inst.Arch.Op.String()[:2] == "LD" {
						entries++
						acq := order == "acq" || order == "acq_rel" || order == "sync"
						assert.Equal(t, acq, inst.Word&(1<<15) != 0, "%s: %s", name, inst.Arch)
					}
					if inst.IsExclusive() && inst.Arch.Op.String()[:2] == "ST" {
						rel := order == "rel" || order == "acq_rel" || order == "sync"
						assert.Equal(t, rel, inst.Word&(1<<15) != 0, "%s: %s", name, inst.Arch)
					}
					_, err = arm64.Exec(&inst, &r, bus)
					require.NoError(t, err, "%s at %s", name, img.Name(r.PC))
					if interfere && !cleared && bus.Mon.Armed {
						bus.Mon, cleared = isa.Monitor{}, true
					}
				}
				ret, after := atomicWant(op, size, a0, a1, mem)
				m := ^uint64(0) >> (64 - 8*size)
				assert.Equal(t, ret, r.X[0], "%s(%#x, %#x) on %#x: returned", name, a0, a1, mem)
				assert.Equal(t, after|mem&^m, binary.LittleEndian.Uint64(bus.Mem[0x100:]), "%s(%#x, %#x) on %#x: memory", name, a0, a1, mem)
				want := 1
				if interfere && (op != "cas" || mem&m == a0&m) { // a cas that finds another value stores nothing
					want = 2
				}
				assert.Equal(t, want, entries, "%s: load-exclusives executed", name)
				for j := range r.X {
					if j != 0 && j != 15 && j != 16 && j != 17 {
						require.Equal(t, saved[j], r.X[j], "%s clobbers x%d", name, j)
					}
				}
			}
		}
	}
}

func symAt(a uint64, ok bool) uint64 {
	if !ok {
		panic("no symbol")
	}
	return a
}
