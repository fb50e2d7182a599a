package arm

import (
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
	"strconv"
	"strings"
	"testing"
)

// access is one isa.Bus access as the fake bus saw it.
type access struct {
	store bool
	addr  uint32
	size  int
	value uint32
	reg   uint8
}

func (a access) String() string {
	k := "L"
	if a.store {
		k = "S"
	}
	r := "-"
	if a.reg != isa.NoReg {
		r = regName(a.reg)
	}
	return fmt.Sprintf("%s%d %#x %s =%#x", k, a.size, a.addr, r, a.value)
}

// fakeBus is a little-endian memory of the bytes in [lo, hi) that records
// every access; anything outside faults with isa.ErrMemory.
type fakeBus struct {
	lo, hi uint32
	mem    []byte
	log    []access
	record bool
}

func newFakeBus(lo, hi uint32) *fakeBus {
	return &fakeBus{lo: lo, hi: hi, mem: make([]byte, hi-lo), record: true}
}

func (b *fakeBus) in(addr uint32, size int) bool {
	return addr >= b.lo && addr < b.hi && b.hi-addr >= uint32(size)
}

func (b *fakeBus) load32(addr uint32, size int, reg uint8) (uint32, error) {
	if !b.in(addr, size) {
		return 0, fmt.Errorf("load %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	var v uint32
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint32(b.mem[addr-b.lo+uint32(i)])
	}
	if b.record {
		b.log = append(b.log, access{addr: addr, size: size, value: v, reg: reg})
	}
	return v, nil
}

func (b *fakeBus) store32(addr uint32, size int, v uint32, reg uint8) error {
	if !b.in(addr, size) {
		return fmt.Errorf("store %d bytes at %#x: %w", size, addr, isa.ErrMemory)
	}
	for i := 0; i < size; i++ {
		b.mem[addr-b.lo+uint32(i)] = byte(v >> (8 * i))
	}
	if b.record {
		b.log = append(b.log, access{store: true, addr: addr, size: size, value: v, reg: reg})
	}
	return nil
}

func (b *fakeBus) word(addr uint32) uint32 {
	b.record = false
	defer func() { b.record = true }()
	v, err := b.load32(addr, 4, isa.NoReg)
	if err != nil {
		panic(err)
	}
	return v
}

func (b *fakeBus) logString() string {
	s := make([]string, len(b.log))
	for i, a := range b.log {
		s[i] = a.String()
	}
	return strings.Join(s, "; ")
}

var regNames = [16]string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"}

func regName(r uint8) string {
	if int(r) < len(regNames) {
		return regNames[r]
	}
	return fmt.Sprintf("reg%d", r)
}

// applyState applies a state description to r and bus: space-separated
// "r0=0x10", "sp=…", "nzcv=0110", "c=1" or "[0x2000]=0x11223344" (a word in
// memory). pc=+N means pc+N relative to the current r.R[15].
func applyState(t testing.TB, spec string, r *Regs, bus *fakeBus) {
	t.Helper()
	for _, f := range strings.Fields(spec) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("bad state item %q", f)
		}
		if strings.HasPrefix(k, "[") {
			a, err := strconv.ParseUint(strings.Trim(k, "[]"), 0, 32)
			if err != nil {
				t.Fatalf("bad address in %q", f)
			}
			if err := bus.store32(uint32(a), 4, parseU32(t, v), isa.NoReg); err != nil {
				t.Fatal(err)
			}
			continue
		}
		switch k {
		case "nzcv":
			if len(v) != 4 {
				t.Fatalf("bad flags %q", f)
			}
			r.N, r.Z, r.C, r.V = v[0] == '1', v[1] == '1', v[2] == '1', v[3] == '1'
			continue
		case "n":
			r.N = v == "1"
			continue
		case "z":
			r.Z = v == "1"
			continue
		case "c":
			r.C = v == "1"
			continue
		case "v":
			r.V = v == "1"
			continue
		}
		n := -1
		for i, name := range regNames {
			if name == k {
				n = i
			}
		}
		if n < 0 {
			t.Fatalf("bad register in %q", f)
		}
		if strings.HasPrefix(v, "+") {
			r.R[n] += parseU32(t, v[1:])
			continue
		}
		r.R[n] = parseU32(t, v)
	}
	bus.log = nil
}

func parseU32(t testing.TB, s string) uint32 {
	t.Helper()
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return uint32(v)
	}
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return uint32(v)
}

func regsString(r *Regs) string {
	var b strings.Builder
	for i, v := range r.R {
		fmt.Fprintf(&b, "%s=%#x ", regNames[i], v)
	}
	f := func(x bool) byte {
		if x {
			return '1'
		}
		return '0'
	}
	fmt.Fprintf(&b, "nzcv=%c%c%c%c", f(r.N), f(r.Z), f(r.C), f(r.V))
	return b.String()
}

func (b *fakeBus) Load(a uint64, size int, reg uint8) (uint64, error) {
	v, err := b.load32(uint32(a), size, reg)
	return uint64(v), err
}

func (b *fakeBus) Store(a uint64, size int, v uint64, reg uint8) error {
	return b.store32(uint32(a), size, uint32(v), reg)
}
