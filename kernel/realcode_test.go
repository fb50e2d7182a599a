package kernel_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// The realcode.c fixtures (issue 21), built by testdata/obj/build.sh:
// functions that divide (libgcc helpers on ARM, div/idiv on x86-64), use lr
// as a scratch register, read a string word by word, loop long, and use
// the x86-64 integer instructions gcc emits for kernel code.
var realFixtures = []struct {
	file string
	qemu string // "arm" or "x86"
}{
	{"arm-real.o", "arm"},
	{"arm-v7-real.o", "arm"},
	{"x86-fentry-real.o", "x86"},
}

// needsSched are the calls that cannot pass until package sched changes,
// with the reason (the test is skipped, naming it).
var needsSched = map[string]string{}

// needsISA are calls that reach an A32 instruction isa/arm does not run
// yet (not this package's to fix).
var needsISA = map[string]string{}

// realQEMU runs every call of realargs.txt natively under qemu-user,
// through realharness.c. It returns nil when the tools are missing (a
// failure under CI).
func realQEMU(t *testing.T) map[string]int32 {
	if !haveTools(t, "realexpected.txt", "arm", "x86") {
		return nil
	}
	out := map[string]int32{}
	for _, fx := range realFixtures {
		native(t, fx.qemu, "realharness.c", fx.file, callsFrom(t, "realargs.txt"), out)
	}
	return out
}

// TestRealCodeMatchesQEMU: every realcode.c function runs unpatched, with
// no hazard, and returns what it returns natively under QEMU (and what
// realexpected.txt says; -update rewrites it). On ARM the division helpers
// are real code, so nothing is a stub.
func TestRealCodeMatchesQEMU(t *testing.T) {
	want := readExpected(t, "realexpected.txt")
	native := realQEMU(t)
	var lines []string
	for _, fx := range realFixtures {
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "lcm"})
		require.NoError(t, err)
		require.Empty(t, o.Stubs, fx.file)
		require.Empty(t, o.Image.Stubs, fx.file)
		if fx.qemu == "arm" {
			require.Equal(t, []string{"__aeabi_idivmod", "__aeabi_ldivmod", "__aeabi_uidiv", "__aeabi_uidivmod", "__aeabi_uldivmod"}, o.Helpers, fx.file)
		} else {
			require.Empty(t, o.Helpers)
		}
		for _, c := range callsFrom(t, "realargs.txt") {
			key := fx.file + " " + c.String()
			if native != nil {
				lines = append(lines, fmt.Sprintf("%s %d", key, native[key]))
			}
			t.Run(key, func(t *testing.T) {
				if why, ok := needsSched[key]; ok {
					t.Skip("needs sched: " + why)
				}
				if why, ok := needsISA[key]; ok {
					t.Skip("needs isa/arm: " + why)
				}
				got, returned, m := runOnce(t, fx.file, c)
				require.Empty(t, m.Hazards(), "%s", key)
				require.True(t, returned, "%s never returned", key)
				if native != nil {
					require.Equal(t, native[key], got, "%s: mcountsim returned %d, QEMU %d", key, got, native[key])
				}
				if !*update {
					w, ok := want[key]
					require.True(t, ok, "%s is missing from realexpected.txt (go test -update with QEMU installed)", key)
					require.Equal(t, w, got, "%s", key)
				}
			})
		}
	}
	if *update {
		require.NotNil(t, native, "-update needs qemu-arm, qemu-x86_64 and the compilers")
		writeExpected(t, "realexpected.txt", "realcode.c under QEMU (go test ./kernel -update)", lines)
	}
}

// TestRealCodeX86Executes: every instruction of the x86-64 fixture
// decodes, and none is one the executor refuses (executing each once on a
// permissive memory: only the divide error may stop one).
func TestRealCodeX86Executes(t *testing.T) {
	o, err := kernel.LoadObject(filepath.Join(objDir, "x86-fentry-real.o"), kernel.ObjectConfig{Function: "lcm"})
	require.NoError(t, err)
	img := o.Image
	for _, sym := range img.Symbols {
		if sym.Name == "worker" || sym.Size < 2 {
			continue
		}
		for pc := sym.Addr; pc < sym.Addr+sym.Size; {
			off := pc - img.Base
			inst, err := x86.Decode(pc, img.Text[off:])
			require.NoError(t, err, "%s", img.Name(pc))
			var r x86.Regs
			r.RIP, r.R[x86.RCX] = pc, 1
			_, err = x86.Exec(&inst, &r, anyMem{})
			if err != nil {
				require.ErrorIs(t, err, x86.ErrDivide, "%s: %v", img.Name(pc), err)
			}
			pc += uint64(inst.Len)
		}
	}
}

type anyMem struct{}

func (anyMem) Load(uint64, int, uint8) (uint64, error) { return 1, nil }
func (anyMem) Store(uint64, int, uint64, uint8) error  { return nil }

// TestRealCodeStrategies: a SAFE strategy is SAFE on the fixtures that
// divide, use lr as scratch and loop long (jmp-over on ARM, text-poke-bp
// on x86-64).
func TestRealCodeStrategies(t *testing.T) {
	if raceEnabled {
		t.Skip("exhaustive searches: too slow under the race detector")
	}
	for _, c := range []struct {
		file, fn, strategy string
		args               []int64
		skip               string
	}{
		{"arm-real.o", "lcm", "jmp-over", []int64{21, 6}, ""},
		// sipround uses lr as a data register (ldr lr, [pc, #248] loads a
		// SipHash constant from the literal pool; objdump in
		// arm-real.o.objdump): SAFE, since the load is not from a stack slot.
		{"arm-real.o", "sipround", "jmp-over", []int64{1, 2, 3, 4}, ""},
		{"arm-real.o", "xxh64", "jmp-over", []int64{5, 6, 7, 8}, ""},
		{"arm-real.o", "bitcount", "jmp-over", []int64{12345, 3}, "long functions: bitcount's 1024-bit scan takes 73 s to decide SAFE here (2 CPUs, 2 tasks, bound 1); it must take seconds"},
		{"x86-fentry-real.o", "lcm", "text-poke-bp", []int64{21, 6}, ""},
		{"x86-fentry-real.o", "sipround", "text-poke-bp", []int64{1, 2, 3, 4}, ""},
	} {
		t.Run(c.file+" "+c.fn+" "+c.strategy, func(t *testing.T) {
			if c.skip != "" {
				t.Skip("needs sched: " + c.skip)
			}
			hz, n := check(t, c.file, c.fn, c.args, c.strategy)
			require.Nil(t, hz, "%v", hz)
			t.Logf("SAFE, %d branching states", n)
		})
	}
}
