package kernel_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
	"github.com/stretchr/testify/require"
)

// The fixture runner the object tests share: the calls of a testdata/obj
// args file, the values they return natively (an expected file, and
// qemu-user through a C harness), and one call run through the simulator.

const objDir = "testdata/obj"

type call struct {
	fn   string
	args []int64
}

func (c call) String() string {
	var s []string
	for _, a := range c.args {
		s = append(s, strconv.FormatInt(a, 10))
	}
	return c.fn + "(" + strings.Join(s, ",") + ")"
}

// callsFrom reads a "function args..." file of testdata/obj.
func callsFrom(t testing.TB, name string) []call {
	f, err := os.Open(filepath.Join(objDir, name))
	require.NoError(t, err)
	defer f.Close()
	var out []call
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		c := call{fn: fields[0]}
		for _, a := range fields[1:] {
			v, err := strconv.ParseInt(a, 0, 64)
			require.NoError(t, err)
			c.args = append(c.args, v)
		}
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	return out
}

// readExpected reads a "file call value" file of testdata/obj, keyed
// "file call"; a missing file reads as empty.
func readExpected(t testing.TB, name string) map[string]int32 {
	out := map[string]int32{}
	b, err := os.ReadFile(filepath.Join(objDir, name))
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseInt(f[2], 10, 32)
		require.NoError(t, err)
		out[f[0]+" "+f[1]] = int32(v)
	}
	return out
}

// writeExpected rewrites the expected file name of testdata/obj (-update):
// a "# file call value: what" line, then lines.
func writeExpected(t *testing.T, name, what string, lines []string) {
	out := "# file call value: " + what + "\n" + strings.Join(lines, "\n") + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(objDir, name), []byte(out), 0o644))
}

// nativeTools are the cross compiler, its extra flags and the qemu-user
// of each harness arch.
var nativeTools = map[string]struct {
	gcc   string
	flags []string
	qemu  string
}{
	"arm":     {"arm-linux-gnueabi-gcc", nil, "qemu-arm"},
	"x86":     {"gcc", []string{"-no-pie"}, "qemu-x86_64"},
	"arm64":   {"aarch64-linux-gnu-gcc", nil, "qemu-aarch64"},
	"riscv64": {"riscv64-linux-gnu-gcc", nil, "qemu-riscv64"},
}

// haveTools reports whether the compilers and qemu-user of the harness
// arches are installed; without one it fails the test under CI and
// otherwise logs that the test checks against fallback only.
func haveTools(t *testing.T, fallback string, arches ...string) bool {
	for _, a := range arches {
		for _, name := range []string{nativeTools[a].gcc, nativeTools[a].qemu} {
			if _, err := exec.LookPath(name); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed (CI needs it)", name)
				}
				t.Logf("%s not installed: checking against %s only", name, fallback)
				return false
			}
		}
	}
	return true
}

// native links obj into harness (a C file of testdata/obj) for the
// harness arch and returns what each call returns under qemu-user, keyed
// "obj call" (out, when not nil, receives them).
func native(t *testing.T, arch, harness, obj string, calls []call, out map[string]int32) map[string]int32 {
	tl := nativeTools[arch]
	if out == nil {
		out = map[string]int32{}
	}
	exe := filepath.Join(t.TempDir(), obj+".exe")
	flags := append(append([]string(nil), tl.flags...), "-static", "-O2", "-o", exe, filepath.Join(objDir, harness), filepath.Join(objDir, obj))
	b, err := exec.Command(tl.gcc, flags...).CombinedOutput()
	require.NoError(t, err, "building the harness for %s: %s", obj, b)
	for _, c := range calls {
		args := []string{exe, c.fn}
		for _, a := range c.args {
			args = append(args, strconv.FormatInt(a, 10))
		}
		b, err := exec.Command(tl.qemu, args...).Output()
		require.NoError(t, err, "%s %v under %s", obj, c, tl.qemu)
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 32)
		require.NoError(t, err)
		out[obj+" "+c.String()] = int32(v)
	}
	return out
}

// abis are where a call's result and the callee-saved registers (and the
// stack pointer) are, in sched.Machine.Reg numbering, and the length of
// the worker's call.
var abis = map[kernel.Arch]struct {
	ret, callLen int
	saved        []int
}{
	kernel.ARM:     {0, 4, []int{arm.R4, arm.R5, arm.R6, arm.R7, arm.R8, arm.R9, arm.R10, arm.R11, arm.SP}},
	kernel.X86:     {0, 5, []int{int(x86.RBX), int(x86.RBP), int(x86.R12), int(x86.R13), int(x86.R14), int(x86.R15), int(x86.RSP)}},
	kernel.ARM64:   {0, 4, []int{19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31}},   // x19-x29, sp
	kernel.RISCV64: {10, 8, []int{2, 8, 9, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}}, // sp, s0-s11
}

// runObject links file for c, boots it under strategy ("" is disabled's;
// "S+enabled" is S with every site booted enabled), runs it on one CPU
// with one task, and returns the low 32 bits of the result (returned
// false if it never returned), whether the task reached trace_function,
// and the machine. The callee-saved registers and the stack pointer must
// be the same at the call and at the return.
func runObject(t testing.TB, file, strategy string, c call) (ret int32, returned, traced bool, m *sched.Machine) {
	t.Helper()
	o, err := kernel.LoadObject(filepath.Join(objDir, file), kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: 1})
	require.NoError(t, err)
	s := disabled(o.Image.Arch)
	if strategy != "" {
		name, bootEnabled := strings.CutSuffix(strategy, "+enabled")
		var ok bool
		s, ok = patch.Lookup(o.Image.Arch, name)
		require.True(t, ok, strategy)
		if bootEnabled {
			on := *s
			on.Boot = []patch.Ref{{Form: s.Enabled}}
			s = &on
		}
	}
	prog, err := patch.Compile(s, o.Image, 0)
	require.NoError(t, err)
	m, err = sched.New(o.Image, sched.Config{CPUs: 1, Tasks: 1, Preempt: sched.PreemptNone, StackWords: 1024}, prog)
	require.NoError(t, err)
	abi := abis[o.Image.Arch]
	callAt := o.Return - uint64(abi.callLen)
	tracer, ok := o.Image.Symbol("trace_function")
	require.True(t, ok)
	regs := func() []uint64 {
		var r []uint64
		for _, i := range abi.saved {
			r = append(r, m.Reg(0, i))
		}
		return r
	}
	var before []uint64
	var buf []sched.Action
	for !m.Done() {
		buf = m.Options(buf)
		if len(buf) == 0 {
			m.Deadlock()
			break
		}
		m.Apply(buf[0])
		if m.Task(0).State != sched.Running {
			continue
		}
		switch m.PC(0) {
		case tracer:
			traced = true
		case callAt:
			before = regs()
		case o.Return:
			require.Equal(t, before, regs(), "%s %v: callee-saved registers or the stack pointer changed across the call", file, c)
			ret, returned = int32(m.Reg(0, abi.ret)), true // r0, %rax, x0, a0
		}
	}
	return ret, returned, traced, m
}

// runOnce is runObject with the sites disabled.
func runOnce(t testing.TB, file string, c call) (int32, bool, *sched.Machine) {
	t.Helper()
	ret, returned, _, m := runObject(t, file, "", c)
	return ret, returned, m
}
