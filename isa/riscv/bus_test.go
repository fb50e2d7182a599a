package riscv

import (
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/isa"
)

// access is one isa.Bus access as the fake bus saw it.
type access struct {
	store bool
	addr  uint64
	size  int
	value uint64
	reg   uint8
}

func (a access) String() string {
	k := "L"
	if a.store {
		k = "S"
	}
	r := "-"
	if a.reg != isa.NoReg {
		r = RegName(a.reg)
	}
	return fmt.Sprintf("%s%d %#x %s =%#x", k, a.size, a.addr, r, a.value)
}

// fakeBus is a little-endian memory of the bytes in [lo, hi) that records
// every access; anything outside faults with isa.ErrMemory.
type fakeBus struct {
	lo, hi uint64
	mem    []byte
	log    []access
	record bool
}

func newFakeBus(lo, hi uint64) *fakeBus {
	return &fakeBus{lo: lo, hi: hi, mem: make([]byte, hi-lo), record: true}
}

func (b *fakeBus) in(addr uint64, size int) bool {
	return addr >= b.lo && addr < b.hi && b.hi-addr >= uint64(size)
}

func (b *fakeBus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	if !b.in(addr, size) {
		return 0, fmt.Errorf("load %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b.mem[addr-b.lo+uint64(i)])
	}
	if b.record {
		b.log = append(b.log, access{addr: addr, size: size, value: v, reg: reg})
	}
	return v, nil
}

func (b *fakeBus) Store(addr uint64, size int, v uint64, reg uint8) error {
	if !b.in(addr, size) {
		return fmt.Errorf("store %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	if size < 8 && v>>(8*size) != 0 {
		return fmt.Errorf("store of %d bytes with value %#x: bits above the size", size, v)
	}
	for i := 0; i < size; i++ {
		b.mem[addr-b.lo+uint64(i)] = byte(v >> (8 * i))
	}
	if b.record {
		b.log = append(b.log, access{store: true, addr: addr, size: size, value: v, reg: reg})
	}
	return nil
}

func (b *fakeBus) logString() string {
	s := make([]string, len(b.log))
	for i, a := range b.log {
		s[i] = a.String()
	}
	return strings.Join(s, "; ")
}
