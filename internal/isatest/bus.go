package isatest

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/isa"
)

// Access is one isa.Bus access as a Bus saw it.
type Access struct {
	Store bool
	Addr  uint64
	Size  int
	Value uint64
	Reg   uint8
}

// Format writes a as "L4 0x2000 r0 =0x1" (S for a store; - for no
// register), naming registers with regName.
func (a Access) Format(regName func(uint8) string) string {
	k := "L"
	if a.Store {
		k = "S"
	}
	r := "-"
	if a.Reg != isa.NoReg {
		r = regName(a.Reg)
	}
	return fmt.Sprintf("%s%d %#x %s =%#x", k, a.Size, a.Addr, r, a.Value)
}

// Bus is a little-endian memory of the bytes in [Lo, Hi) that records
// every access while Record is set; an access outside faults with
// isa.ErrMemory ("load 4 bytes at 0x10: memory fault").
//
// It is an isa.ExclusiveBus of one processor: Mon is its exclusive
// monitor, which only that processor's exclusive accesses and clrex
// change (tests open it by hand to play another processor's store).
type Bus struct {
	Lo, Hi uint64
	Mem    []byte
	Log    []Access
	Record bool
	Mon    isa.Monitor
}

// Monitor implements isa.ExclusiveBus.
func (b *Bus) Monitor() *isa.Monitor { return &b.Mon }

// NewBus returns a zeroed Bus over [lo, hi) that records.
func NewBus(lo, hi uint64) *Bus {
	return &Bus{Lo: lo, Hi: hi, Mem: make([]byte, hi-lo), Record: true}
}

func (b *Bus) in(addr uint64, size int) bool {
	return addr >= b.Lo && addr < b.Hi && b.Hi-addr >= uint64(size)
}

// Load implements isa.Bus.
func (b *Bus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	if !b.in(addr, size) {
		return 0, fmt.Errorf("load %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b.Mem[addr-b.Lo+uint64(i)])
	}
	if b.Record {
		b.Log = append(b.Log, Access{Addr: addr, Size: size, Value: v, Reg: reg})
	}
	return v, nil
}

// Store implements isa.Bus. A value with bits above size bytes is an
// error: the executor must not pass one.
func (b *Bus) Store(addr uint64, size int, v uint64, reg uint8) error {
	if !b.in(addr, size) {
		return fmt.Errorf("store %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	if size < 8 && v>>(8*size) != 0 {
		return fmt.Errorf("store of %d bytes with value %#x: bits above the size", size, v)
	}
	for i := 0; i < size; i++ {
		b.Mem[addr-b.Lo+uint64(i)] = byte(v >> (8 * i))
	}
	if b.Record {
		b.Log = append(b.Log, Access{Store: true, Addr: addr, Size: size, Value: v, Reg: reg})
	}
	return nil
}

// LogString is the log, "; "-separated, as Access.Format writes it.
func (b *Bus) LogString(regName func(uint8) string) string {
	s := make([]string, len(b.Log))
	for i, a := range b.Log {
		s[i] = a.Format(regName)
	}
	return strings.Join(s, "; ")
}

// SliceBus is a minimal isa.Bus over one byte slice at Base, as a
// simulator would use one: no log, and an access outside is isa.ErrMemory.
type SliceBus struct {
	Base uint64
	Mem  []byte
}

func (b *SliceBus) slot(addr uint64, size int) ([]byte, error) {
	o := addr - b.Base
	if o+uint64(size) > uint64(len(b.Mem)) || o >= uint64(len(b.Mem)) {
		return nil, isa.ErrMemory
	}
	return b.Mem[o:], nil
}

// Load implements isa.Bus.
func (b *SliceBus) Load(addr uint64, size int, reg uint8) (uint64, error) {
	s, err := b.slot(addr, size)
	if err != nil {
		return 0, err
	}
	switch size {
	case 1:
		return uint64(s[0]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(s)), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(s)), nil
	}
	return binary.LittleEndian.Uint64(s), nil
}

// Store implements isa.Bus.
func (b *SliceBus) Store(addr uint64, size int, v uint64, reg uint8) error {
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
	default:
		binary.LittleEndian.PutUint64(s, v)
	}
	return nil
}
