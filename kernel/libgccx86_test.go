package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// x86HelperLib is the x86-64 helper library alone, laid out at X86Base.
func x86HelperLib(t testing.TB) *Image {
	a := x86Text{&asm{img: &Image{Arch: X86, Base: X86Base, Align: 1}}}
	a.libgcc(func(string) bool { return false })
	img, err := a.finish()
	require.NoError(t, err)
	return img
}

// TestX86HelperBytes: every line's bytes decode to one instruction whose
// disassembly is the line's comment (a branch: its mnemonic, the target
// is written relative).
func TestX86HelperBytes(t *testing.T) {
	img := x86HelperLib(t)
	pc := img.Base
	for _, l := range x86HelperCode {
		if l.label != "" {
			continue
		}
		off := pc - img.Base
		inst, err := x86.Decode(pc, img.Text[off:])
		require.NoError(t, err, l.asm)
		got := x86.Disasm(&inst, pc, nil)
		n := strings.Count(l.hex, " ") + 1
		require.Equal(t, n, int(inst.Len), l.asm)
		if strings.HasPrefix(l.asm, "j") {
			assert.Equal(t, strings.Fields(l.asm)[0], strings.Fields(got)[0], l.asm)
		} else {
			// x86asm's GNU printer writes "retq", "mov" for movabs and
			// no scale of 1, where objdump writes them.
			objdump := noScale.ReplaceAllString(strings.NewReplacer("retq", "ret", "mov $", "movabs $").Replace(got), "($1,$2,1)")
			assert.Equal(t, l.asm, objdump)
		}
		pc += uint64(n)
	}
	require.Equal(t, uint64(len(img.Text)), pc-img.Base)
	for _, name := range X86Helpers() {
		require.True(t, IsX86Helper(name))
		_, ok := img.Symbol(name)
		require.True(t, ok, name)
	}
	require.False(t, IsX86Helper("__udivti3"))
}

var noScale = regexp.MustCompile(`\((%\w+),(%\w+)\)`)

// flatBus is a little-endian memory of its own at base; a return address
// is on a stack below stackTop.
type flatBus struct {
	base  uint64
	mem   []byte
	stack [64]byte
}

func (b *flatBus) slot(addr uint64, size int) ([]byte, error) {
	if lo := uint64(stackTop - len(b.stack)); addr >= lo && addr+uint64(size) <= stackTop {
		return b.stack[addr-lo : addr-lo+uint64(size)], nil
	}
	if addr < b.base || addr+uint64(size) > b.base+uint64(len(b.mem)) {
		return nil, isa.Detail(fmt.Sprintf("access at %#x", addr), isa.ErrMemory)
	}
	return b.mem[addr-b.base : addr-b.base+uint64(size)], nil
}

func (b *flatBus) Load(addr uint64, size int, _ uint8) (uint64, error) {
	s, err := b.slot(addr, size)
	if err != nil {
		return 0, err
	}
	var w [8]byte
	copy(w[:], s)
	return binary.LittleEndian.Uint64(w[:]), nil
}

func (b *flatBus) Store(addr uint64, size int, v uint64, _ uint8) error {
	s, err := b.slot(addr, size)
	if err != nil {
		return err
	}
	var w [8]byte
	binary.LittleEndian.PutUint64(w[:], v)
	copy(s, w[:size])
	return nil
}

// callX86Helper runs name with rdi, rsi, rdx = args on bus and returns
// rax. It fails the test if a callee-saved register or rsp is not
// preserved, or the helper does not return.
func callX86Helper(t testing.TB, img *Image, name string, args [3]uint64, bus *flatBus) uint64 {
	t.Helper()
	entry, ok := img.Symbol(name)
	require.True(t, ok, name)
	var r x86.Regs
	for i := range r.R {
		r.R[i] = 0x5000 + uint64(i)
	}
	r.R[x86.RDI], r.R[x86.RSI], r.R[x86.RDX] = args[0], args[1], args[2]
	r.R[x86.RSP] = stackTop - 8
	require.NoError(t, bus.Store(stackTop-8, 8, returnTag, isa.RetAddr))
	saved := r.R
	r.RIP = entry
	for n := 0; r.RIP != returnTag; n++ {
		require.Less(t, n, 10000, "%s runs away", name)
		off := r.RIP - img.Base
		require.True(t, r.RIP >= img.Base && off < uint64(len(img.Text)), "%s: pc %#x outside the library", name, r.RIP)
		inst, err := x86.Decode(r.RIP, img.Text[off:])
		require.NoError(t, err)
		_, err = x86.Exec(&inst, &r, bus)
		require.NoError(t, err, "%s at %s", name, img.Name(r.RIP))
	}
	for _, reg := range []x86.Reg{x86.RBX, x86.RBP, x86.R12, x86.R13, x86.R14, x86.R15} {
		require.Equal(t, saved[reg], r.R[reg], "%s clobbers %v", name, reg)
	}
	require.Equal(t, uint64(stackTop), r.R[x86.RSP], "%s: rsp after the return", name)
	return r.R[x86.RAX]
}

// TestX86BitHelpers runs the popcount and parity helpers under the x86-64
// executor on 1,000 operands (the 32-bit ones with garbage in the upper
// half of rdi) and compares with Go.
func TestX86BitHelpers(t *testing.T) {
	img := x86HelperLib(t)
	bus := &flatBus{}
	for _, args := range rvHelperArgs(1000) {
		v := args[0]
		for name, want := range map[string]int{
			"__popcountdi2": bits.OnesCount64(v), "__popcountsi2": bits.OnesCount32(uint32(v)),
			"__paritydi2": bits.OnesCount64(v) & 1, "__paritysi2": bits.OnesCount32(uint32(v)) & 1,
			"__clrsbdi2": bits.LeadingZeros64(v^uint64(int64(v)>>63)) - 1,
		} {
			got := callX86Helper(t, img, name, [3]uint64{v, args[1], args[2]}, bus)
			require.Equal(t, uint32(want), uint32(got), "%s(%#x)", name, v)
		}
	}
}

// TestX86MemHelpers runs memset, memcpy and memmove on a 96-byte buffer
// at random offsets and lengths (memmove with every kind of overlap) and
// compares the buffer and the returned pointer with Go's.
func TestX86MemHelpers(t *testing.T) {
	img := x86HelperLib(t)
	const base, size = 0x200000, 96
	rng := rand.New(rand.NewSource(86))
	for i := 0; i < 2000; i++ {
		bus := &flatBus{base: base, mem: make([]byte, size)}
		rng.Read(bus.mem)
		want := bytes.Clone(bus.mem)
		n := rng.Intn(40)
		d, s := rng.Intn(size-n+1), rng.Intn(size-n+1)
		var name string
		var args [3]uint64
		switch i % 3 {
		case 0:
			name = "memset"
			c := rng.Uint64() // only the low byte of the int counts
			args = [3]uint64{base + uint64(d), c, uint64(n)}
			for j := 0; j < n; j++ {
				want[d+j] = byte(c)
			}
		case 1:
			name = "memcpy"
			if d < s+n && s < d+n { // no overlap: memcpy's contract
				continue
			}
			args = [3]uint64{base + uint64(d), base + uint64(s), uint64(n)}
			copy(want[d:d+n], want[s:s+n])
		default:
			name = "memmove"
			args = [3]uint64{base + uint64(d), base + uint64(s), uint64(n)}
			copy(want[d:d+n], want[s:s+n]) // Go's copy handles overlap as memmove
		}
		got := callX86Helper(t, img, name, args, bus)
		require.Equal(t, base+uint64(d), got, "%s returns its destination", name)
		require.Equal(t, want, bus.mem, "%s(d=%d, s=%d, n=%d)", name, d, s, n)
	}
}

// TestX86StringHelpers runs the string helpers on random strings of a
// small alphabet in a 96-byte buffer (so that they often match, share
// prefixes and end early) and compares with Go.
func TestX86StringHelpers(t *testing.T) {
	img := x86HelperLib(t)
	const base, size = 0x200000, 96
	rng := rand.New(rand.NewSource(87))
	cstr := func(b []byte, at int) []byte { // the C string at b[at:]
		n := bytes.IndexByte(b[at:], 0)
		return b[at : at+n]
	}
	sign := func(v int) int {
		switch {
		case v < 0:
			return -1
		case v > 0:
			return 1
		}
		return 0
	}
	for i := 0; i < 1000; i++ {
		bus := &flatBus{base: base, mem: make([]byte, size)}
		for j := range bus.mem {
			bus.mem[j] = "\x00abc\xff"[rng.Intn(5)]
		}
		bus.mem[size-1] = 0 // every string ends inside the buffer
		a, b := rng.Intn(size), rng.Intn(size)
		n := uint64(rng.Intn(12))
		c := uint64(rng.Intn(256)) | rng.Uint64()<<8 // only the low byte of the int counts
		if rng.Intn(2) == 0 {
			c = c&^0xff | uint64(bus.mem[rng.Intn(size)])
		}
		pa, pb := base+uint64(a), base+uint64(b)
		sa, sb := cstr(bus.mem, a), cstr(bus.mem, b)
		call := func(name string, args ...uint64) uint64 {
			var x [3]uint64
			copy(x[:], args)
			return callX86Helper(t, img, name, x, bus)
		}
		what := fmt.Sprintf("a=%q b=%q n=%d c=%#x", sa, sb, n, byte(c))
		require.Equal(t, uint64(len(sa)), call("strlen", pa), "strlen "+what)
		require.Equal(t, uint64(min(len(sa), int(n))), call("strnlen", pa, n), "strnlen "+what)
		la, lb := min(int(n), size-a), min(int(n), size-b)
		m := min(la, lb)
		want := 0
		for k := 0; k < m; k++ {
			if d := int(bus.mem[a+k]) - int(bus.mem[b+k]); d != 0 {
				want = d
				break
			}
		}
		require.Equal(t, int32(want), int32(call("memcmp", pa, pb, uint64(m))), "memcmp "+what)
		want = 0
		for k := 0; ; k++ {
			x, y := bus.mem[a+k], bus.mem[b+k]
			if x != y || x == 0 {
				want = int(x) - int(y)
				break
			}
		}
		require.Equal(t, int32(want), int32(call("strcmp", pa, pb)), "strcmp "+what)
		wantN := 0
		for k := 0; k < int(n); k++ {
			x, y := bus.mem[a+k], bus.mem[b+k]
			if x != y || x == 0 {
				wantN = int(x) - int(y)
				break
			}
		}
		require.Equal(t, int32(wantN), int32(call("strncmp", pa, pb, n)), "strncmp "+what)
		require.Equal(t, sign(bytes.Compare(sa, sb)), sign(int(int32(call("strcmp", pa, pb)))), "strcmp's sign "+what)
		wantP := uint64(0)
		if k := bytes.IndexByte(append(bytes.Clone(sa), 0), byte(c)); k >= 0 {
			wantP = pa + uint64(k)
		}
		require.Equal(t, wantP, call("strchr", pa, c), "strchr "+what)
		wantP = 0
		if k := bytes.IndexByte(bus.mem[a:a+la], byte(c)); k >= 0 {
			wantP = pa + uint64(k)
		}
		require.Equal(t, wantP, call("memchr", pa, c, uint64(la)), "memchr "+what)
		if d := rng.Intn(size - len(sa)); d+len(sa) < a || d > a+len(sa) { // strcpy into a place apart
			want := bytes.Clone(bus.mem)
			copy(want[d:], append(bytes.Clone(sa), 0))
			require.Equal(t, base+uint64(d), call("strcpy", base+uint64(d), pa), "strcpy "+what)
			require.Equal(t, want, bus.mem, "strcpy "+what)
		}
	}
}
