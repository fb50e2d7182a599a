#!/bin/sh
# Rebuilds the fixture objects and their listings (deterministic: the same
# compilers give the same bytes). Needs arm-linux-gnueabi-gcc, gcc 12,
# aarch64-linux-gnu-gcc and riscv64-linux-gnu-gcc.
set -eu
cd "$(dirname "$0")"
ARM=arm-linux-gnueabi-gcc
X86=gcc
A64=aarch64-linux-gnu-gcc
RV=riscv64-linux-gnu-gcc
# The kernel's own x86 flags: no SSE, MMX or x87 (gcc -O2 vectorizes otherwise), no red zone.
X86K="-mno-sse -mno-mmx -mno-80387 -mno-red-zone"
COMMON="-O2 -fno-asynchronous-unwind-tables -fno-ident -fno-stack-protector"
build() { # out compiler flags... src
	out=$1; cc=$2; shift 2
	"$cc" $COMMON "$@" -c -o "$out"
	case $cc in
	$ARM) arm-linux-gnueabi-objdump -d -r "$out" >"$out.objdump" ;;
	$A64) aarch64-linux-gnu-objdump -d -r "$out" >"$out.objdump" ;;
	$RV) riscv64-linux-gnu-objdump -d -r "$out" >"$out.objdump" ;;
	*) objdump -d -r "$out" >"$out.objdump" ;;
	esac
	sed -i '1,2d' "$out.objdump" # drop the file name line
}
for src in fixture runaway unsupported; do
	build arm-$src.o $ARM -fno-pie -marm -march=armv5te -pg $src.c
	build x86-fentry-$src.o $X86 $X86K -fno-pie -pg -mfentry $src.c
done
build arm-v7-fixture.o $ARM -fno-pie -marm -march=armv7-a -pg fixture.c
build arm-apcs-fixture.o $ARM -fno-pie -marm -march=armv5te -pg -fno-omit-frame-pointer -mapcs-frame fixture.c
build x86-pg-fixture.o $X86 $X86K -fno-pie -pg fixture.c
build x86-pic-fixture.o $X86 $X86K -fPIC -pg -mfentry fixture.c
# An x86-64 kernel's own flags (Makefile, arch/x86/Makefile): the 5-byte
# NOPs of -mrecord-mcount -mnop-mcount in __mcount_loc for sites,
# CONFIG_CALL_PADDING's 16 NOPs before each function (not ftrace sites:
# HAVE_DYNAMIC_FTRACE_NO_PATCHABLE), endbr64 (CONFIG_X86_KERNEL_IBT), the
# kernel code model, int3 after ret and jmp (CONFIG_MITIGATION_SLS); and
# the padding with the calls kept (objtool's --mcount without --mnop).
build x86-kernel-fixture.o $X86 $X86K -fno-pie -mcmodel=kernel -pg -mfentry -mrecord-mcount -mnop-mcount -fpatchable-function-entry=16,16 -fcf-protection=branch -mharden-sls=all -fno-jump-tables fixture.c
build x86-pad-fixture.o $X86 $X86K -fno-pie -pg -mfentry -fpatchable-function-entry=16,16 -fcf-protection=branch fixture.c
# Objects BuildObject must refuse, naming why.
build arm-tls.o $ARM -fno-pie -marm -march=armv5te -pg tls.c
build x86-fentry-tls.o $X86 $X86K -fno-pie -pg -mfentry tls.c
build arm-thumb-fixture.o $ARM -fno-pie -mthumb -march=armv7-a -pg runaway.c
# realcode.c (issue 21): libgcc helpers, lr as scratch, word-at-a-time
# reads, a long loop, the x86-64 integer instructions of kernel code.
build arm-real.o $ARM -fno-pie -marm -march=armv5te -pg realcode.c
build arm-v7-real.o $ARM -fno-pie -marm -march=armv7-a -pg realcode.c
build x86-fentry-real.o $X86 $X86K -fno-pie -pg -mfentry realcode.c
# scratch.c: lr as a data register (siphash_2u64 at -O2), seven arguments.
build arm-scratch.o $ARM -fno-pie -marm -march=armv5te -pg scratch.c
# stack.c: a local array reached through computed pointers (accesses to
# the task's own stack through a base other than sp).
build arm-stack.o $ARM -fno-pie -marm -march=armv5te -pg stack.c
build x86-fentry-stack.o $X86 $X86K -fno-pie -pg -mfentry stack.c
arm-linux-gnueabi-as -o arm-lrtaint.o lrtaint.s
arm-linux-gnueabi-objdump -d -r arm-lrtaint.o | sed '1,2d' >arm-lrtaint.o.objdump
arm-linux-gnueabi-as -o arm-freed.o freed.s
arm-linux-gnueabi-objdump -d -r arm-freed.o | sed '1,2d' >arm-freed.o.objdump
# args8.c (issues 15 and 16): up to 8 register arguments, on arm64 in
# the three layouts of Linux (=2; =4,2 with the 8-aligned CALL_OPS
# literal; -pg) and on RISC-V in era 2 (=4 with RVC, =2 without), era 1
# (=8 with RVC), era 3 (=8,4 with 4-byte alignment) and era 0 (-pg with
# the frame pointer the era's ftrace_caller reads the parent ip through).
# -fno-unwind-tables: no .eh_frame; -mgeneral-regs-only: no SIMD, as in
# the kernel; -mno-relax: RISC-V text as written.
A64K="-fno-pie -fno-unwind-tables -mgeneral-regs-only"
RVK="-fno-pie -fno-unwind-tables -mcmodel=medany -mno-relax"
build arm64-pfe2-args8.o $A64 $A64K -fpatchable-function-entry=2 args8.c
build arm64-pfe4-2-args8.o $A64 $A64K -fpatchable-function-entry=4,2 -falign-functions=8 args8.c
build arm64-pg-args8.o $A64 $A64K -pg args8.c
build rv-pfe8-rvc-args8.o $RV $RVK -march=rv64gc -fpatchable-function-entry=4 args8.c
build rv-pfe8-norvc-args8.o $RV $RVK -march=rv64imafd -fpatchable-function-entry=2 args8.c
build rv-pfe16-args8.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8 args8.c
build rv-atomic-args8.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 args8.c
build rv-pg-args8.o $RV $RVK -march=rv64gc -pg -fno-omit-frame-pointer args8.c
# realcode.c on arm64 and RISC-V (issue 21): lcm calls the traced gcd_mod,
# for the reductions of the views of text (sched/quiet.go, fetch.go).
build arm64-pfe2-real.o $A64 $A64K -fpatchable-function-entry=2 realcode.c
build rv-atomic-real.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 realcode.c
# The libgcc bit helpers (no Zbb on rv64gc; no SIMD on arm64) and, at -Os,
# the 128-bit shifts (issue 21).
build rv-atomic-bits.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 bits.c
build rv-pfe8-Os-bits.o $RV $RVK -march=rv64gc -fpatchable-function-entry=4 -Os bits.c
build arm64-pfe2-bits.o $A64 $A64K -fpatchable-function-entry=2 bits.c
build arm64-pfe2-Os-bits.o $A64 $A64K -fpatchable-function-entry=2 -Os bits.c
# Objects LinkObject must refuse on arm64 and RISC-V, naming why. gcc 12
# ignores -falign-functions=4 at -Os: b_clrsb starts at 2 mod 4.
build rv-atomic-Os-bits.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 -Os bits.c
build arm64-tls.o $A64 $A64K -fpatchable-function-entry=2 tls.c
build rv-tls.o $RV $RVK -march=rv64gc -fpatchable-function-entry=4 tls.c
# weak.c (issue 21): a weak definition and undefined weak references
# (address 0; through the GOT on arm64).
build arm-weak.o $ARM -fno-pie -marm -march=armv5te -pg weak.c
build x86-fentry-weak.o $X86 $X86K -fno-pie -pg -mfentry weak.c
build arm64-pfe2-weak.o $A64 $A64K -fpatchable-function-entry=2 weak.c
build rv-atomic-weak.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 weak.c
# jumplabel.c (issue 21): a static branch and its __jump_table entry.
build x86-fentry-jumplabel.o $X86 $X86K -fno-pie -pg -mfentry jumplabel.c
build arm-jumplabel.o $ARM -fno-pie -marm -march=armv5te -pg jumplabel.c
build arm64-pfe2-jumplabel.o $A64 $A64K -fpatchable-function-entry=2 jumplabel.c
build rv-atomic-jumplabel.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 jumplabel.c
# thunks.c (issue 21): the retpoline and return thunks of x86-64 kernels.
build x86-fentry-thunks.o $X86 $X86K -fno-pie -pg -mfentry -mindirect-branch=thunk-extern -mfunction-return=thunk-extern thunks.c
# atomics.c (issue 21): ldrex/strex on ARMv7, the outline atomics and
# ldaxr/stlxr on arm64, amo* and lr/sc on RISC-V.
build arm-v7-atomics.o $ARM -fno-pie -marm -march=armv7-a -pg atomics.c
build arm64-pfe2-atomics.o $A64 $A64K -fpatchable-function-entry=2 atomics.c
build arm64-pfe2-noola-atomics.o $A64 $A64K -fpatchable-function-entry=2 -mno-outline-atomics atomics.c
build rv-atomic-atomics.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 atomics.c
build rv-pfe8-atomics.o $RV $RVK -march=rv64gc -fpatchable-function-entry=4 atomics.c
# loops.c (issue 21): traced callees in loops, for the thread-modular
# check (sched/modular.go), and stores to a shared global.
build arm-loops.o $ARM -fno-pie -marm -march=armv5te -pg loops.c
build x86-fentry-loops.o $X86 $X86K -fno-pie -pg -mfentry loops.c
build arm64-pfe2-loops.o $A64 $A64K -fpatchable-function-entry=2 loops.c
build rv-atomic-loops.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 loops.c
# shared.c (issue 21): workers that share data, for the stable bytes of
# sched/stable.go.
build arm-shared.o $ARM -fno-pie -marm -march=armv5te -pg shared.c
build x86-fentry-shared.o $X86 $X86K -fno-pie -pg -mfentry shared.c
build arm64-pfe2-shared.o $A64 $A64K -fpatchable-function-entry=2 shared.c
build rv-atomic-shared.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 shared.c
# voidret.c (issue 21): a void function returning before it writes x0,
# after arm64 -pg's _mcount call.
build arm64-pg-voidret.o $A64 $A64K -pg voidret.c
# bti.c (issue 21): -mbranch-protection (CONFIG_ARM64_BTI_KERNEL's flags):
# "bti c" before the entry NOPs, between the CALL_OPS literal and them, or
# none (a static function only called directly); pacentry.s: paciasp as
# the landing pad; notpad.s: no landing pad, refused.
build arm64-pfe2-bti.o $A64 $A64K -fpatchable-function-entry=2 -mbranch-protection=standard bti.c
build arm64-pfe2-btionly.o $A64 $A64K -fpatchable-function-entry=2 -mbranch-protection=bti bti.c
build arm64-pfe4-2-bti.o $A64 $A64K -fpatchable-function-entry=4,2 -falign-functions=8 -mbranch-protection=standard bti.c
for s in pacentry notpad; do
	aarch64-linux-gnu-as -o arm64-pfe2-$s.o $s.s
	aarch64-linux-gnu-objdump -d -r arm64-pfe2-$s.o | sed '1,2d' >arm64-pfe2-$s.o.objdump
done
# bigframe.c (issue 21): a 5 KiB frame, for check --stack-words.
build arm-bigframe.o $ARM -fno-pie -marm -march=armv5te -pg bigframe.c
# deadregs.c (issue 21): inline assembly that reads a register the
# calling convention leaves undefined at an entry or after a return, for
# the machine's clearing of them (sched/deadregs.go).
build arm-deadregs.o $ARM -fno-pie -marm -march=armv5te -pg deadregs.c
build x86-fentry-deadregs.o $X86 $X86K -fno-pie -pg -mfentry deadregs.c
build arm64-pfe2-deadregs.o $A64 $A64K -fpatchable-function-entry=2 deadregs.c
build rv-atomic-deadregs.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 deadregs.c
# stackprot.c (issue 21): -fstack-protector-strong with the kernel's global
# guard, __stack_chk_guard, and __stack_chk_fail's panic.
build arm-stackprot.o $ARM -fno-pie -marm -march=armv5te -pg -fstack-protector-strong stackprot.c
build x86-fentry-stackprot.o $X86 $X86K -fno-pie -pg -mfentry -fstack-protector-strong -mstack-protector-guard=global stackprot.c
build arm64-pfe2-stackprot.o $A64 $A64K -fpatchable-function-entry=2 -fstack-protector-strong -mstack-protector-guard=global stackprot.c
build rv-atomic-stackprot.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 -fstack-protector-strong -mstack-protector-guard=global stackprot.c
# The per-task guards of arm64 and RISC-V kernels (STACKPROTECTOR_PER_TASK):
# the canary at an offset from current, in sp_el0 and in tp.
build arm64-pfe2-stackprot-task.o $A64 $A64K -fpatchable-function-entry=2 -fstack-protector-strong -mstack-protector-guard=sysreg -mstack-protector-guard-reg=sp_el0 -mstack-protector-guard-offset=1400 stackprot.c
build rv-atomic-stackprot-task.o $RV $RVK -march=rv64gc -fpatchable-function-entry=8,4 -falign-functions=4 -fstack-protector-strong -mstack-protector-guard=tls -mstack-protector-guard-reg=tp -mstack-protector-guard-offset=1400 stackprot.c
# x86-64's per-CPU canary through gs: %gs:40 (gcc's default for
# -mcmodel=kernel) and %gs:__ref_stack_chk_guard(%rip).
build x86-fentry-stackprot-gs.o $X86 $X86K -fno-pie -mcmodel=kernel -pg -mfentry -fstack-protector-strong stackprot.c
build x86-fentry-stackprot-sym.o $X86 $X86K -fno-pie -mcmodel=kernel -pg -mfentry -fstack-protector-strong -mstack-protector-guard-reg=gs -mstack-protector-guard-symbol=__ref_stack_chk_guard stackprot.c
# arm64's shadow call stack (CONFIG_SHADOW_CALL_STACK), refused by name.
build arm64-pfe2-scs.o $A64 $A64K -fpatchable-function-entry=2 -ffixed-x18 -fsanitize=shadow-call-stack stackprot.c
