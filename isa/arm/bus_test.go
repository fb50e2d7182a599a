package arm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
)

// fakeBus is the recording bus of the tests (isatest.Bus).
type fakeBus = isatest.Bus

func newFakeBus(lo, hi uint32) *fakeBus { return isatest.NewBus(uint64(lo), uint64(hi)) }

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
			if err := bus.Store(a, 4, uint64(parseU32(t, v)), isa.NoReg); err != nil {
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
	bus.Log = nil
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
