package kernel

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/stretchr/testify/require"
)

// byteBus is a 512-byte memory at memBase: byte accesses only (what the
// mem* routines make), anything else faults.
type byteBus struct{ mem [512]byte }

const memBase = 0x40000

func (b *byteBus) Load(addr uint64, size int, _ uint8) (uint64, error) {
	if size != 1 || addr < memBase || addr >= memBase+uint64(len(b.mem)) {
		return 0, isa.Detail(fmt.Sprintf("load of %d at %#x", size, addr), isa.ErrMemory)
	}
	return uint64(b.mem[addr-memBase]), nil
}

func (b *byteBus) Store(addr uint64, size int, v uint64, _ uint8) error {
	if size != 1 || addr < memBase || addr >= memBase+uint64(len(b.mem)) {
		return isa.Detail(fmt.Sprintf("store of %d at %#x", size, addr), isa.ErrMemory)
	}
	b.mem[addr-memBase] = byte(v)
	return nil
}

// memLibs are the helper libraries callMem runs, built once per arch.
var memLibs = map[Arch]*Image{}

// callMem runs routine name of arch's helper library with the three
// arguments (d, s or c, n) on bus, and returns the result register.
func callMem(t *testing.T, arch Arch, name string, args [3]uint64, bus *byteBus) uint64 {
	t.Helper()
	none := func(string) bool { return false }
	img := memLibs[arch]
	switch {
	case img != nil:
	case arch == ARM:
		img = helperLib(t)
	case arch == RISCV64:
		img = rvHelperLib(t)
	default:
		a := &asm{img: &Image{Arch: ARM64, Base: ARM64Base, Align: 4}}
		arm64Text{a}.libgcc(none)
		var err error
		img, err = a.finish()
		require.NoError(t, err)
	}
	memLibs[arch] = img
	entry, ok := img.Symbol(name)
	require.True(t, ok, name)
	word := func(pc uint64) uint32 {
		off := pc - img.Base
		require.True(t, pc >= img.Base && off+4 <= uint64(len(img.Text)), "%s: pc %#x outside the library", name, pc)
		return binary.LittleEndian.Uint32(img.Text[off:])
	}
	steps := 0
	step := func() { steps++; require.Less(t, steps, 20000, "%s%v runs away", name, args) }
	switch arch {
	case ARM:
		var r arm.Regs
		r.R[0], r.R[1], r.R[2] = uint32(args[0]), uint32(args[1]), uint32(args[2])
		r.R[arm.SP], r.R[arm.LR], r.R[arm.PC] = stackTop, returnTag, uint32(entry)
		for r.R[arm.PC] != returnTag {
			step()
			inst, err := arm.Decode(r.R[arm.PC], word(uint64(r.R[arm.PC])))
			require.NoError(t, err)
			_, err = arm.Exec(&inst, &r, bus)
			require.NoError(t, err, "%s at %s", name, img.Name(uint64(r.R[arm.PC])))
		}
		return uint64(r.R[0])
	case RISCV64:
		var r riscv.Regs
		copy(r.X[riscv.A0:], args[:])
		r.X[riscv.RA], r.PC = returnTag, entry
		for r.PC != returnTag {
			step()
			_, err := riscv.Exec(rvDecoded(t, img, r.PC-img.Base), &r, bus)
			require.NoError(t, err, "%s at %s", name, img.Name(r.PC))
		}
		return r.X[riscv.A0]
	default:
		var r arm64.Regs
		copy(r.X[:], args[:])
		r.SP, r.X[arm64.LR], r.PC = stackTop, returnTag, entry
		for r.PC != returnTag {
			step()
			inst, err := arm64.Decode(r.PC, word(r.PC))
			require.NoError(t, err)
			_, err = arm64.Exec(&inst, &r, bus)
			require.NoError(t, err, "%s at %s", name, img.Name(r.PC))
		}
		return r.X[0]
	}
}

// TestMemRoutines: memcpy, memmove and memset of every helper library
// on 300 random buffers (overlapping both ways for memmove, lengths 0 to
// 200) give what Go's copy and a fill give, touch no other byte, and
// return the destination.
func TestMemRoutines(t *testing.T) {
	for _, arch := range []Arch{ARM, RISCV64, ARM64} {
		rng := rand.New(rand.NewSource(int64(arch)))
		for i := 0; i < 300; i++ {
			var bus byteBus
			rng.Read(bus.mem[:])
			want := bus.mem
			n := rng.Intn(200)
			if i < 3 {
				n = i // 0, 1 and 2 bytes
			}
			d, s := rng.Intn(len(bus.mem)-n), rng.Intn(len(bus.mem)-n)
			name := []string{"memcpy", "memmove", "memset"}[i%3]
			args := [3]uint64{memBase + uint64(d), memBase + uint64(s), uint64(n)}
			switch name {
			case "memcpy":
				if d < s+n && s < d+n { // overlapping: undefined for memcpy
					name = "memmove"
				}
				copy(want[d:d+n], want[s:s+n])
			case "memmove":
				if i%2 == 0 && n > 1 { // overlapping, dst above the source
					s = max(d-rng.Intn(n), 0)
					args[1] = memBase + uint64(s)
				}
				copy(want[d:d+n], want[s:s+n])
			case "memset":
				c := rng.Intn(256)
				args[1] = uint64(c) | 0xab00 // only the low byte counts
				for j := d; j < d+n; j++ {
					want[j] = byte(c)
				}
			}
			got := callMem(t, arch, name, args, &bus)
			require.Equal(t, args[0], got&0xffffffff|args[0]&^0xffffffff, "%v %s(%#x, %#x, %d): the result", arch, name, args[0], args[1], n)
			require.Equal(t, want, bus.mem, "%v %s(%#x, %#x, %d)", arch, name, args[0], args[1], n)
		}
	}
}

// TestHelperNamesTheObjectDefines: a name the object defines is not a
// symbol of the library (the object's memcpy stays the only one), and the
// library's own branches to it still reach its routine.
func TestHelperNamesTheObjectDefines(t *testing.T) {
	mine := func(n string) bool { return n == "memcpy" }
	a := &asm{img: &Image{Arch: RISCV64, Base: RISCVBase, Align: 2}}
	rvText{a}.libgcc(mine)
	img, err := a.finish()
	require.NoError(t, err)
	_, ok := img.Symbol("memcpy")
	require.False(t, ok)
	entry, ok := img.Symbol("memmove")
	require.True(t, ok)
	var bus byteBus
	copy(bus.mem[:], "abcdef")
	var r riscv.Regs
	r.X[riscv.A0], r.X[riscv.A1], r.X[riscv.A2] = memBase+100, memBase, 6 // forward: through the library's memcpy
	r.X[riscv.RA], r.PC = returnTag, entry
	for n := 0; r.PC != returnTag; n++ {
		require.Less(t, n, 1000)
		off := r.PC - img.Base
		inst, err := riscv.Decode(r.PC, img.Text[off:off+4])
		require.NoError(t, err)
		_, err = riscv.Exec(&inst, &r, &bus)
		require.NoError(t, err)
	}
	require.Equal(t, "abcdef", string(bus.mem[100:106]))
}

// TestStringRoutines: strlen, strnlen, memcmp, strcmp, strncmp, strchr,
// memchr and strcpy of every helper library on 250 random cases each (a
// small alphabet, so that strings share prefixes and characters recur)
// give what the C library's definitions give: the same lengths and
// pointers, comparisons of the same sign.
func TestStringRoutines(t *testing.T) {
	names := []string{"strlen", "strnlen", "memcmp", "strcmp", "strncmp", "strchr", "memchr", "strcpy"}
	sign := func(v int64) int64 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	for _, arch := range []Arch{ARM, RISCV64, ARM64} {
		rng := rand.New(rand.NewSource(40 + int64(arch)))
		for i := 0; i < 250*len(names); i++ {
			name := names[i%len(names)]
			var bus byteBus
			for j := range bus.mem {
				bus.mem[j] = "abc"[rng.Intn(3)]
				if rng.Intn(40) == 0 {
					bus.mem[j] = 0
				}
			}
			bus.mem[len(bus.mem)-1] = 0
			m := bus.mem
			a, b := rng.Intn(400), rng.Intn(400)
			if rng.Intn(3) == 0 { // b's string a copy of a's, for equal prefixes
				copy(bus.mem[b:], m[a:a+min(100, len(m)-1-max(a, b))])
				m = bus.mem
			}
			n := rng.Intn(60)
			c := int("abc\x00"[rng.Intn(4)]) | rng.Intn(4)<<8 // only the low byte counts
			cstr := func(o int) int {                         // the length of the string at o
				k := 0
				for m[o+k] != 0 {
					k++
				}
				return k
			}
			var args [3]uint64
			var want int64
			cmp := false
			switch name {
			case "strlen":
				args, want = [3]uint64{memBase + uint64(a)}, int64(cstr(a))
			case "strnlen":
				args, want = [3]uint64{memBase + uint64(a), uint64(n)}, int64(min(cstr(a), n))
			case "memcmp", "strncmp", "strcmp":
				cmp = true
				args = [3]uint64{memBase + uint64(a), memBase + uint64(b), uint64(n)}
				for k := 0; name == "strcmp" || k < n; k++ {
					if m[a+k] != m[b+k] {
						want = int64(m[a+k]) - int64(m[b+k])
						break
					}
					if name != "memcmp" && m[a+k] == 0 {
						break
					}
				}
			case "strchr":
				args = [3]uint64{memBase + uint64(a), uint64(c)}
				for k := a; ; k++ {
					if m[k] == byte(c) {
						want = memBase + int64(k)
						break
					}
					if m[k] == 0 {
						break
					}
				}
			case "memchr":
				args = [3]uint64{memBase + uint64(a), uint64(c), uint64(n)}
				for k := a; k < a+n; k++ {
					if m[k] == byte(c) {
						want = memBase + int64(k)
						break
					}
				}
			case "strcpy":
				a, b = rng.Intn(200), 256+rng.Intn(200) // d below s, apart
				args, want = [3]uint64{memBase + uint64(a), memBase + uint64(b)}, memBase+int64(a)
			}
			before := bus.mem
			got := callMem(t, arch, name, args, &bus)
			if arch == ARM {
				got = uint64(int64(int32(got)))
			}
			if cmp {
				got = uint64(int64(int32(got))) // an int
				require.Equal(t, sign(want), sign(int64(got)), "%v %s(%#x, %#x, %d)", arch, name, args[0], args[1], args[2])
			} else {
				require.Equal(t, want, int64(got), "%v %s(%#x, %#x, %d)", arch, name, args[0], args[1], args[2])
			}
			if name == "strcpy" {
				k := cstr(b)
				copy(before[a:a+k+1], before[b:b+k+1])
			}
			require.Equal(t, before, bus.mem, "%v %s: the memory", arch, name)
		}
	}
}
