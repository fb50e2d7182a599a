package x86

import (
	"encoding/binary"
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
)

// access is one isa.Bus access seen by testBus.
type access struct {
	store bool
	addr  uint64
	size  int
	v     uint64
	reg   uint8
}

// testBus is a flat little-endian memory at base that logs every access
// when log is on. Accesses outside it fail with isa.ErrMemory.
type testBus struct {
	base uint64
	mem  []byte
	log  bool
	seen []access
}

func newTestBus(base uint64, size int) *testBus {
	return &testBus{base: base, mem: make([]byte, size), log: true}
}

func (b *testBus) clone() *testBus {
	c := *b
	c.mem = append([]byte(nil), b.mem...)
	c.seen = nil
	return &c
}

func (b *testBus) slot(addr uint64, size int) ([]byte, error) {
	off := addr - b.base
	if addr < b.base || off >= uint64(len(b.mem)) || uint64(len(b.mem))-off < uint64(size) {
		return nil, isa.Detail(fmt.Sprintf("%d-byte access at %#x", size, addr), isa.ErrMemory)
	}
	return b.mem[off : off+uint64(size)], nil
}

func (b *testBus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	s, err := b.slot(addr, size)
	if err != nil {
		return 0, err
	}
	var buf [8]byte
	copy(buf[:], s)
	v := binary.LittleEndian.Uint64(buf[:])
	if b.log {
		b.seen = append(b.seen, access{false, addr, size, v, reg})
	}
	return v, nil
}

func (b *testBus) Store(addr uint64, size int, v uint64, reg uint8) error {
	s, err := b.slot(addr, size)
	if err != nil {
		return err
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], v)
	copy(s, buf[:size])
	if b.log {
		b.seen = append(b.seen, access{true, addr, size, v, reg})
	}
	return nil
}

func (b *testBus) put64(addr, v uint64) {
	s, err := b.slot(addr, 8)
	if err != nil {
		panic(err)
	}
	binary.LittleEndian.PutUint64(s, v)
}

func (b *testBus) get64(addr uint64) uint64 {
	s, err := b.slot(addr, 8)
	if err != nil {
		panic(err)
	}
	return binary.LittleEndian.Uint64(s)
}
