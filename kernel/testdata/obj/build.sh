#!/bin/sh
# Rebuilds the fixture objects and their listings (deterministic: the same
# compilers give the same bytes). Needs arm-linux-gnueabi-gcc and gcc 12.
set -eu
cd "$(dirname "$0")"
ARM=arm-linux-gnueabi-gcc
X86=gcc
# The kernel's own x86 flags: no SSE, MMX or x87 (gcc -O2 vectorizes otherwise), no red zone.
X86K="-mno-sse -mno-mmx -mno-80387 -mno-red-zone"
COMMON="-O2 -fno-asynchronous-unwind-tables -fno-ident -fno-stack-protector"
build() { # out compiler flags... src
	out=$1; cc=$2; shift 2
	"$cc" $COMMON "$@" -c -o "$out"
	case $cc in
	$ARM) arm-linux-gnueabi-objdump -d -r "$out" >"$out.objdump" ;;
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
# Objects BuildObject must refuse, naming why.
build arm-tls.o $ARM -fno-pie -marm -march=armv5te -pg tls.c
build x86-fentry-tls.o $X86 $X86K -fno-pie -pg -mfentry tls.c
build arm-thumb-fixture.o $ARM -fno-pie -mthumb -march=armv7-a -pg runaway.c
# realcode.c (issue 21): libgcc helpers, lr as scratch, word-at-a-time
# reads, a long loop, the x86-64 integer instructions of kernel code.
build arm-real.o $ARM -fno-pie -marm -march=armv5te -pg realcode.c
build arm-v7-real.o $ARM -fno-pie -marm -march=armv7-a -pg realcode.c
build x86-fentry-real.o $X86 $X86K -fno-pie -pg -mfentry realcode.c
