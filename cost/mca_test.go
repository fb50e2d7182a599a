package cost

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needMCA skips a test without llvm-mca, except under CI=true, where .ci/run
// installs it (Debian package llvm) and a missing one is a failure. It
// reports whether the found llvm-mca is LLVM 14, whose figures are pinned.
func needMCA(t *testing.T) (llvm14 bool) {
	t.Helper()
	v, err := MCAVersion()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("llvm-mca is required under CI=true: %v", err)
		}
		t.Skipf("llvm-mca not available: %v", err)
	}
	t.Logf("%s", v)
	return strings.Contains(v, "version 14.")
}

// TestPredictSiteForms runs the dormant and live forms of a call site
// through every default CPU. Figures are LLVM 14.0.6's (Debian bookworm,
// what CI installs); with another LLVM only the orderings are checked.
func TestPredictSiteForms(t *testing.T) {
	llvm14 := needMCA(t)
	cases := []struct {
		arch, cpu, name string
		asm             []string
		cycles, rthr    float64
		rewritten       int
	}{
		// ARM: the live site, Rostedt's jmp-over, the kernel's NOP
		// (mov r0, r0) after the push, and the pop.
		{"arm", "cortex-a57", "push+bl", []string{"push {lr}", "bl .-0x4"}, 1.03, 1, 1},
		{"arm", "cortex-a57", "push+b", []string{"push {lr}", "b .+0x4"}, 1.03, 1, 0},
		{"arm", "cortex-a57", "push+nop", []string{"push {lr}", "mov r0, r0"}, 1.03, 1, 0},
		{"arm", "cortex-a57", "push+pop", []string{"push {lr}", "ldm sp!, {lr}"}, 2.05, 2, 0},
		{"arm", "cortex-a57", "nop+nop", []string{"mov r0, r0", "mov r0, r0"}, 2.03, 1, 0},
		{"arm", "cortex-r52", "push+bl", []string{"push {lr}", "bl .-0x4"}, 5, 1.5, 1},
		{"arm", "cortex-r52", "push+b", []string{"push {lr}", "b .+0x4"}, 5, 1.5, 0},
		{"arm", "cortex-r52", "push+add-sp", []string{"push {lr}", "add sp, sp, #4"}, 4.03, 1.5, 0},
		{"arm", "cortex-r52", "push+pop", []string{"push {lr}", "ldm sp!, {lr}"}, 19.05, 5, 0},
		// x86: the 5-byte NOP against the fentry call.
		{"x86", "skylake", "nop5", []string{"nopl (%rax,%rax)"}, 0.2, 0.2, 0},
		{"x86", "skylake", "call", []string{"callq 0x1005"}, 2.03, 1, 1},
		{"x86", "znver3", "nop5", []string{"nopl (%rax,%rax)"}, 0.27, 0.3, 0},
		{"x86", "znver3", "call", []string{"addr32 callq 0x1300"}, 1.03, 1, 1},
		{"arm64", "cortex-a53", "nop+nop", []string{"nop ", "nop "}, 2.01, 2, 0},
		{"arm64", "cortex-a72", "mov+bl", []string{"mov x9, x30", "bl .+0x0"}, 1.03, 1, 1},
		{"riscv64", "sifive-u74", "nop+nop", []string{"nop", "nop"}, 1.01, 1, 0},
		{"riscv64", "rocket-rv64", "mv+jal", []string{"mv t0, ra", "jal 0"}, 2.01, 2, 1},
	}
	got := map[string]float64{}
	for _, tc := range cases {
		t.Run(tc.arch+"/"+tc.cpu+"/"+tc.name, func(t *testing.T) {
			p, err := Predict(tc.arch, tc.cpu, tc.asm)
			require.NoError(t, err)
			assert.Equal(t, Iterations, p.Iterations)
			assert.Equal(t, tc.rewritten, p.Rewritten)
			assert.Less(t, p.Cycles, 50.0, "no 100-cycle call latency")
			if llvm14 {
				assert.Equal(t, tc.cycles, p.Cycles)
				assert.Equal(t, tc.rthr, p.BlockRThroughput)
			}
			c, err := Cycles(tc.arch, tc.cpu, tc.asm)
			require.NoError(t, err)
			assert.Equal(t, p.Cycles, c)
			got[tc.arch+"/"+tc.cpu+"/"+tc.name] = p.Cycles
		})
	}
	assert.Less(t, got["x86/skylake/nop5"], got["x86/skylake/call"])
	assert.Less(t, got["arm/cortex-r52/push+b"], got["arm/cortex-r52/push+pop"])
}

// TestPredictDefaultCPUs: every default CPU schedules a push/pop site.
func TestPredictDefaultCPUs(t *testing.T) {
	needMCA(t)
	forms := map[string][]string{
		"arm":     {"push {lr}", "ldm sp!, {lr}", "stmdb sp!, {r4, lr}", "ldm sp!, {r4, pc}", "bx lr"},
		"x86":     {"push %rbp", "mov %rsp,%rbp", "nopl (%rax,%rax)", "pop %rbp", "retq"},
		"arm64":   {"stp x29, x30, [sp,#-16]!", "mov x29, sp", "nop ", "ldp x29, x30, [sp],#16", "ret"},
		"riscv64": {"addi x2,x2,-16", "sd x1,8(x2)", "nop", "ld x1,8(x2)", "addi x2,x2,16", "ret"},
	}
	for arch, asm := range forms {
		cpus, err := CPUs(arch)
		require.NoError(t, err)
		require.Len(t, cpus, 2)
		for _, cpu := range cpus {
			p, err := Predict(arch, cpu, asm)
			require.NoError(t, err, "%s/%s", arch, cpu)
			assert.Equal(t, len(asm), p.Instructions)
			assert.Greater(t, p.Cycles, 0.0)
		}
	}
}

func TestPredictErrors(t *testing.T) {
	needMCA(t)
	_, err := Predict("arm", "cortex-a8", []string{"push {lr}"})
	require.ErrorIs(t, err, ErrNoModel)
	assert.Equal(t, "llvm-mca arm: cortex-a8 has no scheduling model llvm-mca can use (it provides only itineraries, which llvm-mca does not support)", err.Error())
	_, err = Predict("arm", "cortex-a9", []string{"push {lr}", "ldm sp!, {lr}"})
	require.ErrorIs(t, err, ErrUnscheduled)
	var me *MCAError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 1, me.Index)
	assert.Equal(t, "ldm sp!, {lr}", me.Instruction)
	_, err = Predict("x86", "pentium-foo", []string{"nop"})
	require.ErrorIs(t, err, ErrUnknownCPU)
	// llvm-mca itself exits 0 and skips a line it cannot assemble.
	_, err = Predict("x86", "skylake", []string{"nop", "callq 0x10", "frobnicate %rax"})
	require.ErrorIs(t, err, ErrAsm)
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 2, me.Index)
	assert.Contains(t, err.Error(), `instruction 2 "frobnicate %rax": the assembler rejects it: invalid instruction mnemonic 'frobnicate'`)
}

// TestPredictInputErrors need no llvm-mca: bad input is rejected first.
func TestPredictInputErrors(t *testing.T) {
	cases := []struct {
		arch, cpu string
		asm       []string
		err       error
		msg       string
	}{
		{"mips", "r4000", []string{"nop"}, ErrArch, `unknown architecture "mips"`},
		{"arm", "", []string{"nop"}, ErrUnknownCPU, "not a CPU name"},
		{"arm", "-mattr=+x", []string{"nop"}, ErrUnknownCPU, "not a CPU name"},
		{"arm", "help", []string{"nop"}, ErrUnknownCPU, "not a CPU name"},
		{"x86", "skylake", nil, ErrAsm, "no instructions"},
		{"x86", "skylake", []string{"nop", " "}, ErrAsm, "instruction 1 empty instruction"},
		{"x86", "skylake", []string{"nop\nnop"}, ErrAsm, "one instruction an element"},
		{"x86", "skylake", []string{".incbin \"/etc/passwd\""}, ErrAsm, "directives and labels"},
		{"x86", "skylake", []string{"1:"}, ErrAsm, "directives and labels"},
	}
	for _, tc := range cases {
		_, err := Predict(tc.arch, tc.cpu, tc.asm)
		require.ErrorIs(t, err, tc.err, "%v", tc.asm)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

func TestRewriteInsn(t *testing.T) {
	cases := []struct {
		arch, in string
		out      []string
		call     bool
	}{
		{"arm", "bl .-0x4", []string{"b .-0x4"}, true},
		{"arm", "blne .+0x8", []string{"bne .+0x8"}, true},
		{"arm", "blt .+0x8", []string{"blt .+0x8"}, false}, // branch if less than
		{"arm", "bls .+0x8", []string{"bls .+0x8"}, false},
		{"arm", "blx ip", []string{"bx ip"}, true},
		{"arm", "blx r3", []string{"bx r3"}, true},
		{"arm", "blx .+0x10", []string{"b .+0x10"}, true},
		{"arm", "push {lr}", []string{"push {lr}"}, false},
		{"arm64", "bl .+0x0", []string{"b .+0x0"}, true},
		{"arm64", "blr x16", []string{"br x16"}, true},
		{"arm64", "nop ", []string{"nop "}, false}, // Predict trims before
		{"riscv64", "jal 0", []string{"beq x0, x0, 0"}, true},
		{"riscv64", "jal x1, 0x10", []string{"beq x0, x0, 0"}, true},
		{"riscv64", "j 8", []string{"beq x0, x0, 0"}, true},
		{"riscv64", "ret", []string{"bne ra, x0, 0"}, true},
		{"riscv64", "jr x5", []string{"bne x5, x0, 0"}, true},
		{"riscv64", "jalr x1,x5,0", []string{"bne x5, x0, 0"}, true},
		{"riscv64", "jalr x1,0(x6)", []string{"bne x6, x0, 0"}, true},
		{"riscv64", "addi x2,x2,-16", []string{"addi x2,x2,-16"}, false},
		{"x86", "callq 0x1005", []string{"pushq $0", "jmp 0x1005"}, true},
		{"x86", "addr32 callq 0x1300", []string{"pushq $0", "jmp 0x1300"}, true},
		{"x86", "callq *(%rip)", []string{"pushq $0", "jmpq *(%rip)"}, true},
		{"x86", "jmpq 0x1008", []string{"jmp 0x1008"}, false},
		{"x86", "jmpq *-0x10(%rip)", []string{"jmpq *-0x10(%rip)"}, false},
		{"x86", "nopl (%rax,%rax)", []string{"nopl (%rax,%rax)"}, false},
	}
	for _, tc := range cases {
		out, call := rewriteInsn(tc.arch, tc.in)
		assert.Equal(t, tc.out, out, "%s %q", tc.arch, tc.in)
		assert.Equal(t, tc.call, call, "%s %q", tc.arch, tc.in)
	}
}

func TestCPUsAndTriples(t *testing.T) {
	for arch, want := range map[string]string{"arm": "arm-linux-gnueabi", "x86": "x86_64-linux-gnu",
		"x86-64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "riscv64": "riscv64-linux-gnu"} {
		got, err := Triple(arch)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	cpus, err := CPUs("arm")
	require.NoError(t, err)
	assert.Equal(t, []string{"cortex-a57", "cortex-r52"}, cpus)
	cpus[0] = "changed"
	cpus, _ = CPUs("arm")
	assert.Equal(t, "cortex-a57", cpus[0], "CPUs returns a copy")
	_, err = CPUs("mips")
	require.ErrorIs(t, err, ErrArch)
}
