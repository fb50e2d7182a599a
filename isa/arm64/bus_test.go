package arm64

import (
	"encoding/binary"
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
)

// memBus is an isa.Bus over one window of memory that records accesses.
type memBus struct {
	base   uint64
	mem    []byte
	record bool
	log    []access
}

type access struct {
	store bool
	addr  uint64
	size  int
	v     uint64
	reg   uint8
}

func newMemBus(base uint64, size int) *memBus {
	return &memBus{base: base, mem: make([]byte, size), record: true}
}

func (b *memBus) slot(addr uint64, size int) ([]byte, error) {
	o := addr - b.base
	if addr < b.base || o+uint64(size) > uint64(len(b.mem)) || o+uint64(size) < o {
		return nil, isa.Detail(fmt.Sprintf("access of %d bytes at %#x outside the bus", size, addr), isa.ErrMemory)
	}
	return b.mem[o : o+uint64(size)], nil
}

func (b *memBus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	s, err := b.slot(addr, size)
	if err != nil {
		return 0, err
	}
	var v uint64
	switch size {
	case 1:
		v = uint64(s[0])
	case 2:
		v = uint64(binary.LittleEndian.Uint16(s))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(s))
	case 8:
		v = binary.LittleEndian.Uint64(s)
	default:
		panic(fmt.Sprintf("load size %d", size))
	}
	if b.record {
		b.log = append(b.log, access{false, addr, size, v, reg})
	}
	return v, nil
}

func (b *memBus) Store(addr uint64, size int, v uint64, reg uint8) error {
	if size < 8 && v>>(8*size) != 0 {
		panic(fmt.Sprintf("store of %#x has bits above %d bytes", v, size))
	}
	s, err := b.slot(addr, size)
	if err != nil {
		return err
	}
	switch size {
	case 1:
		s[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(s, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(s, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(s, v)
	default:
		panic(fmt.Sprintf("store size %d", size))
	}
	if b.record {
		b.log = append(b.log, access{true, addr, size, v, reg})
	}
	return nil
}
