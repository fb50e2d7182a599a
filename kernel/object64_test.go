package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
	"github.com/stretchr/testify/require"
)

// The args8.c fixtures (issues 15 and 16), built by testdata/obj/build.sh:
// each with its layout and the built-in strategy of that layout, whose
// boot form leaves every site disabled (or, for rv-pfe8-retarget's
// layout, calling the trampoline).
var fixtures64 = []struct {
	file     string
	arch     kernel.Arch
	prologue string
	strategy string // the layout's Linux strategy
	siteLen  int
	enabled  string // a strategy whose boot form calls the trampoline ("S+enabled": S booted enabled)
}{
	{"arm64-pfe2-args8.o", kernel.ARM64, kernel.ARM64PFE2, "arm64-nop-bl", 8, "arm64-nop-bl+enabled"},
	{"arm64-pfe4-2-args8.o", kernel.ARM64, kernel.ARM64PFE42, "arm64-call-ops", 16, "arm64-call-ops+enabled"},
	{"arm64-pg-args8.o", kernel.ARM64, kernel.ARM64PG, "arm64-mcount", 4, "arm64-mcount+enabled"},
	{"rv-pfe8-rvc-args8.o", kernel.RISCV64, kernel.RVPFE8, "rv-pfe8", 8, "rv-pfe8-retarget"},
	{"rv-pfe8-norvc-args8.o", kernel.RISCV64, kernel.RVPFE8, "rv-pfe8", 8, "rv-pfe8-retarget"},
	{"rv-pfe16-args8.o", kernel.RISCV64, kernel.RVPFE16, "rv-pfe16", 16, "rv-pfe16+enabled"},
	{"rv-atomic-args8.o", kernel.RISCV64, kernel.RVAtomic, "rv-atomic", 8, "rv-atomic+enabled"},
	{"rv-pg-args8.o", kernel.RISCV64, kernel.RVMcount, "rv-mcount", 8, "rv-mcount+enabled"},
}

// testObjects64 is TestARM64Objects and TestRISCVObjects: every function
// of args8.c runs to completion in every fixture of arch, with no hazard,
// and returns what expected64.txt (QEMU's answer, TestObjects64QEMU)
// says; every function has its one site in the layout's shape.
func testObjects64(t *testing.T, arch kernel.Arch) {
	want := readExpected(t, "expected64.txt")
	calls := callsFrom(t, "args8.txt")
	fns := map[string]bool{}
	for _, c := range calls {
		fns[c.fn] = true
	}
	n := 0
	for _, fx := range fixtures64 {
		if fx.arch != arch {
			continue
		}
		n++
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "leaf"})
		require.NoError(t, err)
		require.Equal(t, fx.prologue, o.Image.Prologue, fx.file)
		require.Equal(t, []string{"ext_fn"}, o.Stubs, fx.file)
		require.Len(t, o.Image.Sites, len(fns), fx.file)
		for _, st := range o.Image.Sites {
			require.Equal(t, fx.siteLen, st.Len, "%s %s", fx.file, st.Func)
			require.True(t, fns[st.Func], "%s: site of %s", fx.file, st.Func)
			align := uint64(2) // RVC: era 0-2 sites may sit at 2 mod 4 (stop_machine writes them)
			if arch == kernel.ARM64 || fx.prologue == kernel.RVAtomic {
				align = 4
			}
			require.Zero(t, st.Addr%align, "%s: site of %s at %#x", fx.file, st.Func, st.Addr)
		}
		for _, c := range calls {
			key := fx.file + " " + c.String()
			t.Run(key, func(t *testing.T) {
				w, ok := want[key]
				require.True(t, ok, "%s is missing from expected64.txt (go test ./kernel -run Objects64QEMU -update)", key)
				got, returned, traced, m := runObject(t, fx.file, fx.strategy, c)
				require.Empty(t, m.Hazards(), "%s", key)
				require.True(t, returned, "%s never returned", key)
				require.False(t, traced, "%s: a disabled site called the tracer", key)
				require.Equal(t, w, got, "%s: mcountsim returned %d, QEMU %d", key, got, w)
				// Through the trampoline: the tracer is called and the
				// arguments and the result survive it.
				got, returned, traced, m = runObject(t, fx.file, fx.enabled, c)
				require.Empty(t, m.Hazards(), "%s under %s", key, fx.enabled)
				require.True(t, returned && traced, "%s under %s: returned %v, traced %v", key, fx.enabled, returned, traced)
				require.Equal(t, w, got, "%s under %s: mcountsim returned %d, QEMU %d", key, fx.enabled, got, w)
			})
		}
	}
	require.NotZero(t, n)
}

// TestObjects64QEMU: expected64.txt is what every args8.c call returns
// natively, each object linked into harness64.c under qemu-aarch64 or
// qemu-riscv64 (-update rewrites it).
func TestObjects64QEMU(t *testing.T) {
	oracle.Tool(t, "gcc-aarch64-linux-gnu", "the arm64 objects against QEMU (kernel)", "aarch64-linux-gnu-gcc")
	oracle.Tool(t, "qemu-user", "the arm64 objects against QEMU (kernel)", "qemu-aarch64")
	oracle.Tool(t, "gcc-riscv64-linux-gnu", "the RISC-V objects against QEMU (kernel)", "riscv64-linux-gnu-gcc")
	oracle.Tool(t, "qemu-user", "the RISC-V objects against QEMU (kernel)", "qemu-riscv64")
	calls := callsFrom(t, "args8.txt")
	var lines []string
	got := map[string]int32{}
	for _, fx := range fixtures64 {
		native(t, fx.arch.String(), "harness64.c", fx.file, calls, got)
		for _, c := range calls {
			key := fx.file + " " + c.String()
			lines = append(lines, fmt.Sprintf("%s %d", key, got[key]))
		}
	}
	if *update {
		writeExpected(t, "expected64.txt", "args8.c under qemu-aarch64 / qemu-riscv64 (go test ./kernel -run Objects64QEMU -update)", lines)
		return
	}
	require.Equal(t, got, readExpected(t, "expected64.txt"))
}

// verdicts64 are check --object's verdicts on the args8.c fixtures' leaf
// (7, 5), under each layout's Linux strategy and a foil or the era's
// race: 2 CPUs, 2 tasks, 1 iteration, 2 toggles, preempt full (unless
// none), bound 1, 256-word stacks. An UNSAFE verdict is checked by its
// first hazard's kind, place and what its detail says, and by replaying
// its schedule to the same hazard.
var verdicts64 = []struct {
	file, strategy string
	arch           kernel.Arch
	none           bool // --preempt none
	want           explore.Verdict
	kind           detect.Kind
	where, detail  string
}{
	{"arm64-pfe2-args8.o", "arm64-nop-bl", kernel.ARM64, false, explore.Safe, 0, "", ""},
	{"arm64-pfe4-2-args8.o", "arm64-call-ops", kernel.ARM64, false, explore.Safe, 0, "", ""},
	{"arm64-pg-args8.o", "arm64-mcount", kernel.ARM64, false, explore.Safe, 0, "", ""},
	{"arm64-pfe2-args8.o", "arm64-both-plain", kernel.ARM64, false, explore.Unsafe, detect.CMODX, "leaf",
		"cpu0 fetched aa1e03e9 at leaf while it changed from d503201f (nop) to aa1e03e9 (mov x9, x30)"},
	// Preempted after the first NOP, the task resumes at the BL with x9
	// never set: ftrace_caller returns through it, to 0.
	{"arm64-pfe2-args8.o", "arm64-both-sm", kernel.ARM64, false, explore.Unsafe, detect.BadReturn, "leaf+0x10",
		"return to 0x0 <outside text>; its call to leaf expected"},
	{"rv-atomic-args8.o", "rv-atomic", kernel.RISCV64, false, explore.Safe, 0, "", ""},
	{"rv-pfe8-rvc-args8.o", "rv-pfe8", kernel.RISCV64, true, explore.Safe, 0, "", ""},
	{"rv-pfe8-rvc-args8.o", "rv-pfe8", kernel.RISCV64, false, explore.Unsafe, detect.BadCall, "leaf+0x4",
		"upper bits: t0 = 0x0, which no auipc of this task set before the jalr"},
	{"rv-pfe8-norvc-args8.o", "rv-pfe8", kernel.RISCV64, false, explore.Unsafe, detect.BadCall, "leaf+0x4",
		"upper bits: t0 = 0x0, which no auipc of this task set before the jalr"},
	{"rv-pfe16-args8.o", "rv-pfe16", kernel.RISCV64, false, explore.Unsafe, detect.BadCall, "leaf+0x8",
		"upper bits: ra = 0x200022, which no auipc of this task set before the jalr"},
	{"rv-pg-args8.o", "rv-mcount", kernel.RISCV64, false, explore.Unsafe, detect.BadCall, "leaf+0x16",
		"upper bits: ra = 0x200022, which no auipc of this task set before the jalr"},
}

// testVerdicts64 checks the verdicts of verdicts64 for arch.
func testVerdicts64(t *testing.T, arch kernel.Arch) {
	if raceEnabled {
		t.Skip("exhaustive searches: too slow under the race detector")
	}
	for _, c := range verdicts64 {
		if c.arch != arch {
			continue
		}
		name := c.file + " " + c.strategy
		if c.none {
			name += " preempt none"
		}
		t.Run(name, func(t *testing.T) {
			if c.want == explore.Safe && testing.Short() {
				t.Skip("a SAFE proof takes seconds")
			}
			path := filepath.Join(objDir, c.file)
			o, err := kernel.LoadObject(path, kernel.ObjectConfig{Function: "leaf", Args: []int64{7, 5}, Iterations: 1})
			require.NoError(t, err)
			st, ok := patch.Lookup(arch, c.strategy)
			require.True(t, ok)
			sc := explore.Scenario{Strategy: st, CPUs: 2, Tasks: 2, Iterations: 1, StackWords: 256,
				Image: func() (*kernel.Image, error) { return o.Image, nil }}
			if c.none {
				sc.Preempt = sched.PreemptNone
			}
			res, err := explore.Check(sc, explore.Options{Bound: 1})
			require.NoError(t, err)
			require.Equal(t, c.want, res.Verdict, "%s %s: %v %s", c.file, c.strategy, res.Hazard, res.Reason)
			if c.want == explore.Safe {
				require.Nil(t, res.Hazard)
				t.Logf("SAFE: %d states", res.States)
				return
			}
			require.NotNil(t, res.Hazard)
			require.Equal(t, c.kind, res.Hazard.Kind, "%v", res.Hazard)
			require.Equal(t, c.where, res.Hazard.Where, "%v", res.Hazard)
			require.Contains(t, res.Hazard.Detail, c.detail)
			rp, err := explore.Replay(sc, res.Schedule, explore.Options{})
			require.NoError(t, err)
			require.NotNil(t, rp.Hazard, "replaying %s", res.Schedule)
			require.Equal(t, *res.Hazard, *rp.Hazard)
			t.Logf("%v", res.Hazard)
		})
	}
}

// TestObjects64Refused: what LinkObject cannot link on arm64 and RISC-V
// is an error naming why (ErrUnsupportedObject), never a panic.
func TestObjects64Refused(t *testing.T) {
	for _, c := range []struct {
		file, fn string
		args     []int64
		want     string
	}{
		{"arm64-tls.o", "tls", nil, "relocation R_AARCH64_TLSLE_ADD_TPREL_HI12 at .text+0xc"},
		{"rv-tls.o", "tls", nil, "relocation R_RISCV_TPREL_HI20 at .text+0x8"},
		{"arm64-pfe2-args8.o", "args8", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, "9 arguments, the arm64 workload passes at most 8 (x0-x7)"},
		{"rv-pg-args8.o", "args8", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}, "9 arguments, the riscv64 workload passes at most 8 (a0-a7)"},
	} {
		_, err := kernel.LoadObject(filepath.Join(objDir, c.file), kernel.ObjectConfig{Function: c.fn, Args: c.args})
		require.ErrorIs(t, err, kernel.ErrUnsupportedObject, c.file)
		require.ErrorContains(t, err, c.want, c.file)
	}
	_, err := kernel.LoadObject(filepath.Join(objDir, "rv-pfe16-args8.o"), kernel.ObjectConfig{Function: "nosuch"})
	require.ErrorContains(t, err, `no function "nosuch"`)
}

// FuzzLinkObject64 feeds corrupt arm64 and RISC-V objects to the linker:
// errors, never panics.
func FuzzLinkObject64(f *testing.F) {
	for _, fx := range fixtures64 {
		b, err := os.ReadFile(filepath.Join(objDir, fx.file))
		require.NoError(f, err)
		f.Add(b, "args8")
	}
	f.Fuzz(func(t *testing.T, raw []byte, fn string) {
		o, err := kernel.LinkObject("fuzz", raw, kernel.ObjectConfig{Function: fn, Args: []int64{1, 2, 3, 4, 5, 6, 7, 8}})
		if err != nil {
			return
		}
		for _, fx := range fixtures64 {
			if fx.prologue == o.Image.Prologue && fx.arch == o.Image.Arch {
				s, _ := patch.Lookup(fx.arch, fx.strategy)
				_, _ = patch.Compile(s, o.Image, 2)
				break
			}
		}
	})
}
