package kernel_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
	"github.com/stretchr/testify/require"
)

// The corpus measurement of issue 21 (testdata/corpus/README.md): every
// function of every testdata/corpus/corpus*.c (each called as its
// calls*.txt says: corpus.c with calls.txt, corpus2.c with calls2.txt, ...),
// compiled by the cross compilers
// at every flag set of corpusSets, is linked as check --object links it,
// run once unpatched (it must return what it returns natively under
// qemu-user), and checked with the CLI's default scenario (2 CPUs, 2
// tasks, 2 iterations, 2 toggles, bound 2, 1024 stack words) under its
// set's SAFE strategy (which must be SAFE) and its UNSAFE one (which must
// be UNSAFE), each within corpusLimit.

const corpusDir = "testdata/corpus"

// corpusLimit is the time one check may take (the acceptance of issue 21).
const corpusLimit = 20 * time.Second

// corpusWall stops a check that runs far past corpusLimit in wall time
// (the limit is judged on CPU time, with one worker, which bounds the wall
// time of the CLI's search on an idle machine).
const corpusWall = 30 * corpusLimit

// cpuTime is the process's user and system time, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// corpusTableEnv names a file the full matrix writes its table to.
const corpusTableEnv = "MCOUNTSIM_CORPUS_TABLE"

// corpusSet is one compiler and flag set of the measurement.
type corpusSet struct {
	name   string
	arch   kernel.Arch
	cc     string
	flags  []string
	safe   string // a strategy that must be SAFE ("" none for the layout)
	unsafe string // one that must be UNSAFE ("" none)
}

var (
	armFlags = []string{"-fno-pie", "-marm", "-march=armv5te", "-pg"}
	x86Flags = []string{"-fno-pie", "-mno-sse", "-mno-mmx", "-mno-80387", "-mno-red-zone"}
	a64Flags = []string{"-fno-pie", "-fno-unwind-tables", "-mgeneral-regs-only"}
	rvFlags  = []string{"-fno-pie", "-fno-unwind-tables", "-mcmodel=medany", "-mno-relax", "-march=rv64gc"}
)

func with(base []string, more ...string) []string {
	return append(append([]string{}, base...), more...)
}

// corpusSets are the flag sets of the measurement, the ones of issue 21
// (five ARM A32, six x86-64) and the arm64 and RISC-V layouts of Linux.
var corpusSets = []corpusSet{
	{"arm-O1", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O1"), "jmp-over", "nop-nop"},
	{"arm-O2", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O2"), "jmp-over", "nop-nop"},
	{"arm-Os", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-Os"), "jmp-over", "nop-nop"},
	{"arm-apcs", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O2", "-fno-omit-frame-pointer", "-mapcs-frame"), "jmp-over", "nop-nop"},
	{"arm-v7", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O2", "-march=armv7-a"), "jmp-over", "nop-nop"},
	// An ARMv7 kernel's code-generation flags (arch/arm/Makefile: the
	// Linux EABI, soft float, the TLS register, APCS frames with
	// FRAME_POINTER, the stack protector, auto-initialized locals).
	{"arm-v7-kernel", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O2", "-march=armv7-a", "-mabi=aapcs-linux", "-mno-thumb-interwork",
		"-msoft-float", "-mtp=cp15", "-fno-omit-frame-pointer", "-mapcs", "-mno-sched-prolog", "-fstack-protector-strong",
		"-ftrivial-auto-var-init=zero", "-fno-strict-aliasing", "-fno-delete-null-pointer-checks"), "jmp-over", "nop-nop"},
	// CONFIG_STACKPROTECTOR_STRONG as each kernel builds it: ARM's global
	// __stack_chk_guard; x86-64's per-CPU canary through gs (gcc's default
	// guard for -mcmodel=kernel, %gs:40); arm64's and RISC-V's per task
	// (STACKPROTECTOR_PER_TASK: sp_el0, tp).
	{"arm-O2-ssp", kernel.ARM, "arm-linux-gnueabi-gcc", with(armFlags, "-O2", "-fstack-protector-strong"), "jmp-over", "nop-nop"},
	{"x86-O1-fentry", kernel.X86, "gcc", with(x86Flags, "-O1", "-pg", "-mfentry"), "text-poke-bp", "plain-write"},
	{"x86-O2-fentry", kernel.X86, "gcc", with(x86Flags, "-O2", "-pg", "-mfentry"), "text-poke-bp", "plain-write"},
	{"x86-Os-fentry", kernel.X86, "gcc", with(x86Flags, "-Os", "-pg", "-mfentry"), "text-poke-bp", "plain-write"},
	{"x86-O2-ssp", kernel.X86, "gcc", with(x86Flags, "-O2", "-pg", "-mfentry", "-mcmodel=kernel", "-fstack-protector-strong"), "text-poke-bp", "plain-write"},
	// An x86-64 kernel's whole set of code-generation flags
	// (arch/x86/Makefile, the top Makefile; a defconfig with the
	// mitigations, IBT, call padding and auto-initialized locals).
	{"x86-O2-kernel", kernel.X86, "gcc", with(x86Flags, "-O2", "-mcmodel=kernel", "-pg", "-mfentry", "-mrecord-mcount", "-mnop-mcount",
		"-fpatchable-function-entry=16,16", "-falign-functions=16", "-fcf-protection=branch", "-fno-jump-tables",
		"-mindirect-branch=thunk-extern", "-mindirect-branch-register", "-mindirect-branch-cs-prefix", "-mfunction-return=thunk-extern",
		"-mharden-sls=all", "-fstack-protector-strong", "-fzero-call-used-regs=used-gpr", "-ftrivial-auto-var-init=zero",
		"-fno-strict-aliasing", "-fno-omit-frame-pointer", "-fno-delete-null-pointer-checks", "-mskip-rax-setup"), "text-poke-bp", "plain-write"},
	{"x86-O1-pg", kernel.X86, "gcc", with(x86Flags, "-O1", "-pg"), "text-poke-bp", "plain-write"},
	{"x86-O2-pg", kernel.X86, "gcc", with(x86Flags, "-O2", "-pg"), "text-poke-bp", "plain-write"},
	{"x86-Os-pg", kernel.X86, "gcc", with(x86Flags, "-Os", "-pg"), "text-poke-bp", "plain-write"},
	// The retpoline and return thunks of x86-64 kernels (CONFIG_MITIGATION_RETPOLINE, _RETHUNK).
	{"x86-O2-thunks", kernel.X86, "gcc", with(x86Flags, "-O2", "-pg", "-mfentry", "-mindirect-branch=thunk-extern", "-mfunction-return=thunk-extern"), "text-poke-bp", "plain-write"},
	{"a64-O1-pfe2", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O1", "-fpatchable-function-entry=2"), "arm64-nop-bl", "arm64-both-sm"},
	{"a64-O2-pfe2", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-fpatchable-function-entry=2"), "arm64-nop-bl", "arm64-both-sm"},
	{"a64-Os-pfe2", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-Os", "-fpatchable-function-entry=2"), "arm64-nop-bl", "arm64-both-sm"},
	{"a64-O2-ssp", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-fpatchable-function-entry=2", "-fstack-protector-strong", "-mstack-protector-guard=sysreg", "-mstack-protector-guard-reg=sp_el0", "-mstack-protector-guard-offset=1400"), "arm64-nop-bl", "arm64-both-sm"},
	// An arm64 kernel's code-generation flags with gcc -O2 (CALL_OPS,
	// pointer authentication and BTI, the per-task canary, frame records,
	// auto-initialized locals).
	{"a64-O2-kernel", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-fpatchable-function-entry=4,2", "-falign-functions=8",
		"-mbranch-protection=pac-ret+bti", "-fstack-protector-strong", "-mstack-protector-guard=sysreg", "-mstack-protector-guard-reg=sp_el0",
		"-mstack-protector-guard-offset=1400", "-fno-omit-frame-pointer", "-ftrivial-auto-var-init=zero", "-fno-strict-aliasing",
		"-fno-delete-null-pointer-checks"), "arm64-call-ops", ""},
	{"a64-O2-pg", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-pg"), "arm64-mcount", ""},
	// CONFIG_ARM64_BTI_KERNEL's branch protection (bti c before the entry
	// NOPs), with and without CALL_OPS.
	{"a64-O2-bti", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-fpatchable-function-entry=2", "-mbranch-protection=standard"), "arm64-nop-bl", "arm64-both-sm"},
	{"a64-O2-bti-callops", kernel.ARM64, "aarch64-linux-gnu-gcc", with(a64Flags, "-O2", "-fpatchable-function-entry=4,2", "-falign-functions=8", "-mbranch-protection=standard"), "arm64-call-ops", ""},
	{"rv-O1-atomic", kernel.RISCV64, "riscv64-linux-gnu-gcc", with(rvFlags, "-O1", "-fpatchable-function-entry=8,4", "-falign-functions=4"), "rv-atomic", ""},
	{"rv-O2-atomic", kernel.RISCV64, "riscv64-linux-gnu-gcc", with(rvFlags, "-O2", "-fpatchable-function-entry=8,4", "-falign-functions=4"), "rv-atomic", ""},
	{"rv-Os-atomic", kernel.RISCV64, "riscv64-linux-gnu-gcc", with(rvFlags, "-Os", "-fpatchable-function-entry=8,4", "-falign-functions=4"), "rv-atomic", ""},
	{"rv-O2-ssp", kernel.RISCV64, "riscv64-linux-gnu-gcc", with(rvFlags, "-O2", "-fpatchable-function-entry=8,4", "-falign-functions=4", "-fstack-protector-strong", "-mstack-protector-guard=tls", "-mstack-protector-guard-reg=tp", "-mstack-protector-guard-offset=1400"), "rv-atomic", ""},
	// A RISC-V kernel's code-generation flags (arch/riscv/Makefile: no F/D
	// in -march, lp64, no save-restore libcalls, frame pointers, the
	// per-task canary, the atomic layout's alignment).
	{"rv-O2-kernel", kernel.RISCV64, "riscv64-linux-gnu-gcc", []string{"-fno-pie", "-fno-unwind-tables", "-mcmodel=medany", "-mno-relax",
		"-march=rv64imac_zicsr_zifencei", "-mabi=lp64", "-mno-save-restore", "-O2", "-fpatchable-function-entry=8,4", "-falign-functions=4",
		"-fno-omit-frame-pointer", "-fstack-protector-strong", "-mstack-protector-guard=tls", "-mstack-protector-guard-reg=tp",
		"-mstack-protector-guard-offset=1400", "-ftrivial-auto-var-init=zero", "-fno-strict-aliasing"}, "rv-atomic", ""},
	{"rv-O2-pfe8", kernel.RISCV64, "riscv64-linux-gnu-gcc", with(rvFlags, "-O2", "-fpatchable-function-entry=4"), "", "rv-pfe8"},
}

// corpusCommon are the flags of every object (as build.sh's COMMON).
var corpusCommon = []string{"-fno-asynchronous-unwind-tables", "-fno-ident", "-fno-stack-protector"}

var corpusQEMU = map[kernel.Arch]string{kernel.ARM: "qemu-arm", kernel.X86: "qemu-x86_64", kernel.ARM64: "qemu-aarch64", kernel.RISCV64: "qemu-riscv64"}

// corpusSource is one corpus file and its calls: corpusNAME.c is called
// as callsNAME.txt says.
type corpusSource struct {
	name  string // "corpus", "corpus2", ...
	src   string // its C file
	calls string // its calls file
}

// corpusFilesEnv narrows the measurement to some corpus files (by name:
// corpus,corpus2).
const corpusFilesEnv = "MCOUNTSIM_CORPUS_FILES"

// corpusSources lists every corpus*.c of testdata/corpus with its
// calls*.txt (corpus.c first), as MCOUNTSIM_CORPUS_FILES narrows them.
func corpusSources(t testing.TB) []corpusSource {
	srcs, err := filepath.Glob(filepath.Join(corpusDir, "corpus*.c"))
	require.NoError(t, err)
	sort.Strings(srcs)
	only := map[string]bool{}
	if s := os.Getenv(corpusFilesEnv); s != "" {
		for _, f := range strings.Split(s, ",") {
			only[f] = true
		}
	}
	var out []corpusSource
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		if len(only) > 0 && !only[name] {
			continue
		}
		calls := filepath.Join(corpusDir, "calls"+strings.TrimPrefix(name, "corpus")+".txt")
		_, err := os.Stat(calls)
		require.NoError(t, err, "%s has no calls file", src)
		out = append(out, corpusSource{name: name, src: src, calls: calls})
	}
	require.NotEmpty(t, out, "no corpus file in %s", corpusDir)
	return out
}

// corpusCalls reads a calls file (testdata/corpus/calls.txt); every
// argument is a 32-bit value, passed as an int32.
func corpusCalls(t testing.TB, path string) []call {
	f, err := os.Open(path)
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
			require.True(t, v >= -1<<31 && v < 1<<32, "%s: %s is not a 32-bit value", c.fn, a)
			c.args = append(c.args, int64(int32(v))) // sign-extended, as the 64-bit ABIs pass an int

		}
		require.LessOrEqual(t, len(c.args), 6, c.fn)
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	return out
}

// corpusTools reports whether the compiler and qemu of set are installed.
func corpusTools(set corpusSet) error {
	for _, name := range []string{set.cc, corpusQEMU[set.arch]} {
		if _, err := exec.LookPath(name); err != nil {
			return fmt.Errorf("%s is not installed", name)
		}
	}
	return nil
}

// corpusHarness is the C source of the native harness: it reads "name
// arg..." lines on stdin and prints each call's result (truncated to
// int) on a line. The profiling hooks return at once. For the per-task
// stack canaries it stands in for the kernel as the machine does: gs (set
// with arch_prctl) and tp (around each call) point to an area of canary
// words, and a SIGILL handler runs arm64's mrs of sp_el0, which EL0 may
// not execute.
func corpusHarness(calls []call) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n")
	b.WriteString(`#include <signal.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#endif
static unsigned long canary_area[1024];
#if defined(__aarch64__)
#include <ucontext.h>
static void mrs_sp_el0(int sig, siginfo_t *si, void *p)
{
	ucontext_t *uc = p;
	unsigned int w = *(unsigned int *)uc->uc_mcontext.pc;
	if ((w & 0xffffffe0) != 0xd5384100)
		_exit(4);
	if ((w & 31) != 31)
		uc->uc_mcontext.regs[w & 31] = (unsigned long)canary_area;
	uc->uc_mcontext.pc += 4;
}
#endif
`)
	b.WriteString("typedef long (*fn6)(long, long, long, long, long, long);\n")
	seen := map[string]bool{}
	var names []string
	for _, c := range calls {
		if !seen[c.fn] {
			seen[c.fn] = true
			names = append(names, c.fn)
			fmt.Fprintf(&b, "extern char %s[];\n", c.fn)
		}
	}
	b.WriteString(`#if defined(__arm__)
__asm__(".global __gnu_mcount_nc\n__gnu_mcount_nc:\n\tmov ip, lr\n\tldr lr, [sp], #4\n\tbx ip\n");
#elif defined(__x86_64__)
__asm__(".global mcount\nmcount:\n\tret\n.global __fentry__\n__fentry__:\n\tret\n"
	".global __x86_return_thunk\n__x86_return_thunk:\n\tret\n");
#define THUNK(r) __asm__(".global __x86_indirect_thunk_" #r "\n__x86_indirect_thunk_" #r ":\n\tjmp *%" #r "\n");
THUNK(rax) THUNK(rcx) THUNK(rdx) THUNK(rbx) THUNK(rbp) THUNK(rsi) THUNK(rdi) THUNK(r8)
THUNK(r9) THUNK(r10) THUNK(r11) THUNK(r12) THUNK(r13) THUNK(r14) THUNK(r15)
#else
__asm__(".global _mcount\n_mcount:\n\tret\n");
#endif
static const struct { const char *name; void *fn; } fns[] = {
`)
	for _, n := range names {
		fmt.Fprintf(&b, "\t{\"%s\", %s},\n", n, n)
	}
	b.WriteString(`};
int main(void)
{
	char line[512];
	for (unsigned i = 0; i < sizeof canary_area / sizeof canary_area[0]; i++)
		canary_area[i] = 0x5eed1e5ca9a71000ul;
#if defined(__x86_64__)
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, canary_area))
		return 3;
#elif defined(__aarch64__)
	struct sigaction sa = {0};
	sa.sa_sigaction = mrs_sp_el0;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, 0);
#endif
	while (fgets(line, sizeof line, stdin)) {
		char *save, *name = strtok_r(line, " \n", &save);
		long a[6] = {0};
		int n = 0;
		for (char *w; n < 6 && (w = strtok_r(0, " \n", &save)); n++)
			a[n] = (long)(int)strtol(w, 0, 0);
		unsigned i;
		for (i = 0; i < sizeof fns / sizeof fns[0]; i++)
			if (!strcmp(fns[i].name, name))
				break;
		if (i == sizeof fns / sizeof fns[0])
			return 2;
#if defined(__riscv)
		unsigned long tp;
		__asm__ volatile("mv %0, tp" : "=r"(tp));
		__asm__ volatile("mv tp, %0" : : "r"(canary_area) : "memory");
#endif
		int r = (int)((fn6)fns[i].fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
#if defined(__riscv)
		__asm__ volatile("mv tp, %0" : : "r"(tp) : "memory");
#endif
		printf("%d\n", r);
		fflush(stdout);
	}
	return 0;
}
`)
	return b.String()
}

// corpusBase is the file name (without extension) of src's object at set:
// SET for corpus.c, SET-corpus2 for corpus2.c.
func corpusBase(set corpusSet, src corpusSource) string {
	if src.name == "corpus" {
		return set.name
	}
	return set.name + "-" + src.name
}

// buildCorpus compiles src for set into dir and returns the object's
// path.
func buildCorpus(t testing.TB, set corpusSet, src corpusSource, dir string) string {
	obj := filepath.Join(dir, corpusBase(set, src)+".o")
	srcPath, err := filepath.Abs(src.src)
	require.NoError(t, err)
	args := append(append(with(corpusCommon, set.flags...), "-c", "-o", obj), srcPath)
	out, err := exec.Command(set.cc, args...).CombinedOutput()
	require.NoError(t, err, "%s %s: %s", set.cc, strings.Join(args, " "), out)
	return obj
}

// nativeObject returns the object to link with the native harness: obj
// itself, or for a RISC-V object of the soft-float ABI (the kernel's
// -mabi=lp64, which glibc's lp64d will not link with) a copy whose ELF
// header says double-float: integer code is the same under both.
func nativeObject(t testing.TB, set corpusSet, obj string) string {
	if set.arch != kernel.RISCV64 {
		return obj
	}
	b, err := os.ReadFile(obj)
	require.NoError(t, err)
	const eFlags, floatABI, double = 48, 0x6, 0x4 // ELF64 e_flags; EF_RISCV_FLOAT_ABI
	if len(b) < eFlags+4 || b[eFlags]&floatABI != 0 {
		return obj
	}
	b[eFlags] |= double
	out := strings.TrimSuffix(obj, ".o") + ".lp64d.o"
	require.NoError(t, os.WriteFile(out, b, 0o644))
	return out
}

// corpusNativeLimit is the wall time the native run of one file's calls
// may take under qemu-user.
const corpusNativeLimit = 2 * time.Minute

// corpusNative runs every call natively under qemu-user: the harness
// linked statically with obj, the object of set.
func corpusNative(t testing.TB, set corpusSet, obj, dir string, calls []call) map[string]int32 {
	hsrc := filepath.Join(dir, "harness.c")
	require.NoError(t, os.WriteFile(hsrc, []byte(corpusHarness(calls)), 0o644))
	exe := strings.TrimSuffix(obj, ".o") + ".exe"
	args := []string{"-static", "-O2", "-o", exe, hsrc, nativeObject(t, set, obj)}
	if set.arch == kernel.X86 {
		args = append([]string{"-no-pie"}, args...)
	}
	out, err := exec.Command(set.cc, args...).CombinedOutput()
	require.NoError(t, err, "building the harness for %s: %s", set.name, out)
	var in strings.Builder
	for _, c := range calls {
		in.WriteString(c.fn)
		for _, a := range c.args {
			fmt.Fprintf(&in, " %d", a)
		}
		in.WriteString("\n")
	}
	// A call that does not return natively would hang the measurement.
	ctx, cancel := context.WithTimeout(context.Background(), corpusNativeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, corpusQEMU[set.arch], exe)
	cmd.Stdin = strings.NewReader(in.String())
	b, err := cmd.Output()
	require.NoError(t, err, "%s under %s (a call that runs past %v natively is killed)", set.name, corpusQEMU[set.arch], corpusNativeLimit)
	lines := strings.Fields(string(b))
	require.Len(t, lines, len(calls), "%s: the harness printed %q", set.name, b)
	res := map[string]int32{}
	for i, c := range calls {
		v, err := strconv.ParseInt(lines[i], 10, 32)
		require.NoError(t, err)
		res[c.String()] = int32(v)
	}
	return res
}

// corpusRow is one function at one flag set.
type corpusRow struct {
	set, src      string // the flag set, the corpus file's name
	call          string
	runs, retOK   bool
	got, want     int32
	why           string // what failed, "" when nothing did
	safe, unsafe  string // verdicts ("" not checked)
	safeOK, unsOK bool
	secs          float64 // the CPU seconds of the longest check
	checked       bool    // a verdict was checked
	stubs         []string
}

func (r corpusRow) ok() bool {
	return r.runs && r.retOK && r.safeOK && r.unsOK && r.secs <= corpusLimit.Seconds()
}

// corpusRegs is where each arch's result is (sched.Machine.Reg numbering)
// and the length of the worker's call instruction.
var corpusRegs = map[kernel.Arch][2]int{kernel.ARM: {0, 4}, kernel.X86: {0, 5}, kernel.ARM64: {0, 4}, kernel.RISCV64: {10, 8}}

// corpusRunOnce runs c alone (1 CPU, 1 task, no preemption) with the
// sites as strategy st boots them: it must return with no hazard.
func corpusRunOnce(obj string, st *patch.Strategy, c call) (int32, error) {
	o, err := kernel.LoadObject(obj, kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: 1})
	if err != nil {
		return 0, err
	}
	prog, err := patch.Compile(st, o.Image, 0)
	if err != nil {
		return 0, err
	}
	m, err := sched.New(o.Image, sched.Config{CPUs: 1, Tasks: 1, Preempt: sched.PreemptNone, StackWords: 1024}, prog)
	if err != nil {
		return 0, err
	}
	reg := corpusRegs[o.Image.Arch][0]
	var ret int32
	got := false
	var buf []sched.Action
	for steps := 0; !m.Done(); steps++ {
		if steps > 50_000_000 {
			return 0, fmt.Errorf("no return after %d steps", steps)
		}
		buf = m.Options(buf)
		if len(buf) == 0 {
			m.Deadlock()
			break
		}
		m.Apply(buf[0])
		if m.Task(0).State == sched.Running && m.PC(0) == o.Return && !got {
			ret, got = int32(m.Reg(0, reg)), true
		}
	}
	if h := m.Hazards(); len(h) > 0 {
		return ret, fmt.Errorf("%v", h[0])
	}
	if !got {
		return 0, fmt.Errorf("never returned")
	}
	return ret, nil
}

// corpusCheck runs check --object's search on c under strategy name.
func corpusCheck(obj string, arch kernel.Arch, name string, c call) (explore.Verdict, string, float64, error) {
	o, err := kernel.LoadObject(obj, kernel.ObjectConfig{Function: c.fn, Args: c.args})
	if err != nil {
		return 0, "", 0, err
	}
	st, ok := patch.Lookup(arch, name)
	if !ok {
		return 0, "", 0, fmt.Errorf("no strategy %s", name)
	}
	sc := explore.Scenario{Arch: arch, Strategy: st, StackWords: 1024, Image: func() (*kernel.Image, error) { return o.Image, nil },
		ObjectFile: obj, Function: c.fn, Args: c.args}
	if err := explore.Preflight(sc); err != nil {
		return 0, "", 0, err
	}
	// The budget is CPU time (the machine may be shared): the search is
	// cancelled once it has used corpusLimit, and at corpusWall at most.
	start := cpuTime()
	ctx, cancel := context.WithTimeout(context.Background(), corpusWall)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			if cpuTime()-start > corpusLimit.Seconds() {
				cancel()
			}
		}
	}()
	res, err := explore.Check(sc, explore.Options{Context: ctx, Workers: 1})
	secs := cpuTime() - start
	if err != nil {
		return 0, "", secs, err
	}
	what := res.Verdict.String()
	if res.Hazard != nil {
		what += " " + res.Hazard.Kind.String() + " at " + res.Hazard.Where
	}
	if res.Verdict == explore.Incomplete {
		what += " (" + res.Reason + ")"
	}
	return res.Verdict, what, secs, nil
}

// corpusRunOnlyEnv, when set, leaves the verdicts out: every call is only
// run alone and its return value compared (the run and return columns).
const corpusRunOnlyEnv = "MCOUNTSIM_CORPUS_RUNONLY"

// corpusUnsafeOnlyEnv, when set, leaves the SAFE strategy's check out (the
// verdict columns then count the UNSAFE one only).
const corpusUnsafeOnlyEnv = "MCOUNTSIM_CORPUS_UNSAFEONLY"

// measureCorpus measures the calls of src at set; only selects the calls
// to check (nil: all). A source none of whose calls is selected is not
// compiled.
func measureCorpus(t *testing.T, set corpusSet, src corpusSource, dir string, only map[string]bool) []corpusRow {
	calls := corpusCalls(t, src.calls)
	if only != nil {
		n := 0
		for _, c := range calls {
			if only[c.fn] {
				n++
			}
		}
		if n == 0 {
			return nil
		}
	}
	obj := buildCorpus(t, set, src, dir)
	native := corpusNative(t, set, obj, dir, calls)
	boot := set.safe
	if boot == "" {
		boot = set.unsafe
	}
	bootSt, ok := patch.Lookup(set.arch, boot)
	require.True(t, ok, boot)
	runOnly := os.Getenv(corpusRunOnlyEnv) != ""
	if os.Getenv(corpusUnsafeOnlyEnv) != "" {
		set.safe = ""
	}
	var rows []corpusRow
	for _, c := range calls {
		if only != nil && !only[c.fn] {
			continue
		}
		r := corpusRow{set: set.name, src: src.name, call: c.String(), want: native[c.String()], safeOK: set.safe == "" || runOnly, unsOK: set.unsafe == "" || runOnly}
		if o, err := kernel.LoadObject(obj, kernel.ObjectConfig{Function: c.fn, Args: c.args}); err == nil {
			r.stubs = o.Stubs
		}
		got, err := corpusRunOnce(obj, bootSt, c)
		switch {
		case err != nil:
			r.why = "run: " + err.Error()
		default:
			r.runs, r.got, r.retOK = true, got, got == r.want
			if !r.retOK {
				r.why = fmt.Sprintf("returned %d, natively %d", got, r.want)
			}
		}
		for _, s := range []struct {
			name string
			want explore.Verdict
			out  *string
			ok   *bool
		}{{set.safe, explore.Safe, &r.safe, &r.safeOK}, {set.unsafe, explore.Unsafe, &r.unsafe, &r.unsOK}} {
			if s.name == "" || !r.runs || runOnly {
				continue
			}
			r.checked = true
			v, what, secs, err := corpusCheck(obj, set.arch, s.name, c)
			if secs > r.secs {
				r.secs = secs
			}
			if err != nil {
				*s.out = "error: " + err.Error()
			} else {
				*s.out, *s.ok = what, v == s.want
			}
			if !*s.ok && r.why == "" {
				r.why = s.name + ": " + *s.out
			}
		}
		if r.ok() {
			t.Logf("%s %s: ok (%.1f s)", set.name, c, r.secs)
		} else {
			t.Logf("%s %s: FAILS: %s (%.1f s; safe %q, unsafe %q)", set.name, c, r.why, r.secs, r.safe, r.unsafe)
		}
		rows = append(rows, r)
	}
	return rows
}

// corpusTable renders rows as the README's measurement table: one line
// per flag set and corpus file (runs / verdicts right / return right / max
// seconds; "-" where no verdict was checked), then every failing call.
func corpusTable(rows []corpusRow) string {
	type agg struct {
		set, src               string
		n, runs, verd, ret, ok int
		checked                bool
		max                    float64
	}
	var order []string
	by := map[string]*agg{}
	var fails []string
	for _, r := range rows {
		key := r.set + " " + r.src
		a := by[key]
		if a == nil {
			a = &agg{set: r.set, src: r.src}
			by[key] = a
			order = append(order, key)
		}
		a.n++
		a.checked = a.checked || r.checked
		if r.runs {
			a.runs++
		}
		if r.runs && r.safeOK && r.unsOK {
			a.verd++
		}
		if r.retOK {
			a.ret++
		}
		if r.ok() {
			a.ok++
		}
		if r.secs > a.max {
			a.max = r.secs
		}
		if !r.ok() {
			why := r.why
			if why == "" {
				why = fmt.Sprintf("%.1f s", r.secs)
			}
			fails = append(fails, fmt.Sprintf("| %s | %s | %s |", r.set, r.call, strings.ReplaceAll(why, "|", "/")))
		}
	}
	var b strings.Builder
	b.WriteString("| flag set | corpus | functions | run | verdicts right | return right | all right | max s |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range order {
		a := by[s]
		verd, ok := strconv.Itoa(a.verd), strconv.Itoa(a.ok)
		if !a.checked {
			verd, ok = "-", "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d | %s | %.1f |\n", a.set, a.src, a.n, a.runs, verd, a.ret, ok, a.max)
	}
	if len(fails) > 0 {
		sort.Strings(fails)
		b.WriteString("\n| flag set | call | what fails |\n|---|---|---|\n")
		b.WriteString(strings.Join(fails, "\n") + "\n")
	}
	return b.String()
}

// corpusSubset is what runs by default: a call of each kind (a division,
// lr under register pressure, a word-at-a-time string read, a bitmap
// scan, a jump table, a 64-bit shift) at one flag set of each arch.
var corpusSubset = map[string]bool{"c_lcm": true, "c_arx4": true, "c_strlen": true, "c_find_next_bit": true, "c_switch": true, "c_shl64": true}

var corpusSubsetSets = map[string]bool{"arm-O2": true, "x86-O2-fentry": true}

// corpusSubsetX86 are the corpus2 calls the subset adds on x86-64: rep
// stos and rep movs (d_blockcopy), rcr, shld and shrd of 128-bit values
// (d_carry), the __popcountdi2 helper (d_bitmap64), movsb and the string
// functions (d_strings).
var corpusSubsetX86 = map[string]bool{"d_blockcopy": true, "d_carry": true, "d_bitmap64": true, "d_strings": true}

// corpusGaps are the checks the subset leaves out, with why (the matrix
// measures them).
var corpusGaps = map[string]string{
	"x86-O2-fentry safe": "text-poke-bp at the CLI's defaults takes about 20 CPU s on c_lcm (315,580 branching states), at the budget's edge",
}

// TestCorpus: the corpus subset, at one flag set per arch (skipped when
// a compiler or qemu is missing, and under -short).
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and checks real code (seconds)")
	}
	if raceEnabled {
		t.Skip("each check has a budget of 20 CPU s, which the race detector's slowdown spends")
	}
	dir := t.TempDir()
	for _, set := range corpusSets {
		if !corpusSubsetSets[set.name] {
			continue
		}
		t.Run(set.name, func(t *testing.T) {
			if err := corpusTools(set); err != nil {
				t.Skip(err)
			}
			if why, ok := corpusGaps[set.name+" safe"]; ok {
				t.Logf("%s: %s not checked: %s", set.name, set.safe, why)
				set.safe = ""
			}
			only := corpusSubset
			if set.arch == kernel.X86 {
				only = map[string]bool{}
				for _, m := range []map[string]bool{corpusSubset, corpusSubsetX86} {
					for f := range m {
						only[f] = true
					}
				}
			}
			for _, src := range corpusSources(t) {
				for _, r := range measureCorpus(t, set, src, dir, only) {
					require.True(t, r.ok(), "%s %s: %s (%.1f s)", r.set, r.call, r.why, r.secs)
				}
			}
		})
	}
}

// TestCorpusMatrix is the full measurement (minutes): every call at every
// flag set, MCOUNTSIM_SLOW=1; with MCOUNTSIM_CORPUS_TABLE=FILE it writes
// the table of README.md to FILE. MCOUNTSIM_CORPUS_SETS=a,b limits the
// flag sets, MCOUNTSIM_CORPUS_FILES=corpus,corpus2 the corpus files,
// MCOUNTSIM_CORPUS_CALLS=f,g the functions; MCOUNTSIM_CORPUS_RUNONLY=1
// leaves the verdicts out (the run and return columns only),
// MCOUNTSIM_CORPUS_UNSAFEONLY=1 the SAFE strategy's.
func TestCorpusMatrix(t *testing.T) {
	if testing.Short() || os.Getenv("MCOUNTSIM_SLOW") == "" {
		t.Skip("the corpus matrix takes many minutes; run with MCOUNTSIM_SLOW=1")
	}
	var only map[string]bool
	if s := os.Getenv("MCOUNTSIM_CORPUS_CALLS"); s != "" {
		only = map[string]bool{}
		for _, f := range strings.Split(s, ",") {
			only[f] = true
		}
	}
	sets := map[string]bool{}
	if s := os.Getenv("MCOUNTSIM_CORPUS_SETS"); s != "" {
		for _, f := range strings.Split(s, ",") {
			sets[f] = true
		}
	}
	dir := t.TempDir()
	if d := os.Getenv("MCOUNTSIM_CORPUS_KEEP"); d != "" {
		dir = d
	}
	var rows []corpusRow
	for _, set := range corpusSets {
		if len(sets) > 0 && !sets[set.name] {
			continue
		}
		if err := corpusTools(set); err != nil {
			t.Logf("%s skipped: %v", set.name, err)
			continue
		}
		for _, src := range corpusSources(t) {
			rows = append(rows, measureCorpus(t, set, src, dir, only)...)
		}
	}
	table := corpusTable(rows)
	t.Log("\n" + table)
	if p := os.Getenv(corpusTableEnv); p != "" {
		require.NoError(t, os.WriteFile(p, []byte(table), 0o644))
	}
	for _, r := range rows {
		if !r.ok() {
			t.Errorf("%s %s: %s", r.set, r.call, r.why)
		}
	}
}

// TestCorpusSources: every corpus*.c is paired with its calls*.txt
// (corpus.c first, with calls.txt), every calls file parses, and no
// function is called from two corpus files.
func TestCorpusSources(t *testing.T) {
	t.Setenv(corpusFilesEnv, "")
	srcs := corpusSources(t)
	require.Equal(t, corpusSource{"corpus", filepath.Join(corpusDir, "corpus.c"), filepath.Join(corpusDir, "calls.txt")}, srcs[0])
	from := map[string]string{}
	for _, src := range srcs {
		require.Equal(t, filepath.Join(corpusDir, "calls"+strings.TrimPrefix(src.name, "corpus")+".txt"), src.calls)
		calls := corpusCalls(t, src.calls)
		require.NotEmpty(t, calls, src.calls)
		for _, c := range calls {
			if f, ok := from[c.fn]; ok && f != src.name {
				t.Errorf("%s is called from %s and %s", c.fn, f, src.name)
			}
			from[c.fn] = src.name
		}
	}
}
