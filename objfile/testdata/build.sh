#!/bin/sh
# build.sh rebuilds the ELF fixtures of package objfile, byte for byte.
#
# It compiles src/shapes.c with Debian's gcc 12 cross compilers under the
# ftrace flag sets, derives kernel-like objects from the compiler's assembly
# (a recordmcount-like __mcount_loc for ARM, an objtool-like NOP form for
# x86-64), links small static and position-independent executables, and
# writes an `objdump -d -r` listing (`objdump -d -r -R` and `objdump -R`
# for the PIEs) next to every object. It builds everything twice and fails
# if the two builds differ.
#
# Kernel objects: when Debian's linux-source-6.1 is installed (or
# LINUX_SOURCE names its tarball), it also builds the kernel's own
# scripts/recordmcount and tools/objtool (needs libelf-dev) and runs them on
# copies of -pg objects, as Kbuild does (FTRACE_MCOUNT_USE_RECORDMCOUNT,
# FTRACE_MCOUNT_USE_OBJTOOL). Without it those fixtures are kept as they are.
#
# Needs: gcc, arm-linux-gnueabi-gcc, aarch64-linux-gnu-gcc,
# riscv64-linux-gnu-gcc (Debian packages gcc, gcc-arm-linux-gnueabi,
# gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu) and their binutils;
# optionally linux-source-6.1 and libelf-dev.
#
# Usage: sh objfile/testdata/build.sh   (from any directory)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Fixed paths: every compile runs in $work/src on a copy of the sources, and
# the prefix map hides $work from the debug-free output anyway.
common="-c -O2 -fno-ident -ffile-prefix-map=$work/=./ -fno-asynchronous-unwind-tables"

# objects NAME CC FLAGS... builds one object from shapes.c into $out.
object() {
	name=$1 cc=$2
	shift 2
	(cd "$work/src" && $cc $common "$@" -o "$out/$name.o" shapes.c)
}

# armmloc NAME FLAGS... compiles shapes.c for ARM to assembly and does what
# the kernel's recordmcount does to the object: it records the address of
# every `bl __gnu_mcount_nc` in a __mcount_loc section. The assembler turns
# each `.word` into an R_ARM_ABS32 REL relocation against the text section
# with the addend stored in the section data.
armmloc() {
	name=$1
	shift
	(cd "$work/src" &&
		arm-linux-gnueabi-gcc $common -S "$@" -o "$name.s" shapes.c &&
		awk '
		/^[ \t]*bl[ \t]+__gnu_mcount_nc/ { n++; print ".Lmcount_loc" n ":" }
		{ print }
		END {
			print "\t.section __mcount_loc,\"a\",%progbits"
			print "\t.align 2"
			for (i = 1; i <= n; i++) print "\t.word .Lmcount_loc" i
		}' "$name.s" >"$name.mloc.s" &&
		arm-linux-gnueabi-gcc -c "$@" -o "$out/$name.o" "$name.mloc.s")
}

# x86objtool NAME FLAGS... makes an object shaped like clang output after
# `objtool --mcount --mnop`: each `call __fentry__` becomes a 5-byte NOP,
# its relocation stays behind as R_X86_64_NONE against __fentry__, and an
# __mcount_loc section lists the sites with R_X86_64_64 relocations.
x86objtool() {
	name=$1
	shift
	(cd "$work/src" &&
		gcc $common -S "$@" -o "$name.s" shapes.c &&
		awk '
		/^(1:)?[ \t]*call[ \t]+__fentry__/ {
			n++
			if ($0 ~ /^1:/) print "1:"
			print ".Lmcount_loc" n ":"
			print "\t.reloc .+1, R_X86_64_NONE, __fentry__"
			print "\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00"
			next
		}
		{ print }
		END {
			print "\t.section __mcount_loc,\"a\",@progbits"
			print "\t.align 8"
			for (i = 1; i <= n; i++) print "\t.quad .Lmcount_loc" i
		}' "$name.s" >"$name.nop.s" &&
		gcc -c -o "$out/$name.o" "$name.nop.s")
}

# link NAME CC FLAGS... links shapes.c and the uninstrumented stubs.c into a
# static freestanding executable at a fixed address.
link() {
	name=$1 cc=$2
	shift 2
	(cd "$work/src" &&
		$cc $common -fno-pie -o stubs.o stubs.c &&
		$cc $common -fno-pie "$@" -o shapes.o shapes.c &&
		$cc -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-e,_start \
			-Wl,-z,norelro -o "$out/$name" shapes.o stubs.o)
}

# pie NAME CC FLAGS... links shapes.c and stubs.c into a freestanding
# position-independent executable (ET_DYN) linked at address 0: at load
# time R_*_RELATIVE dynamic relocations fill in the site tables, with the
# site's address as addend in .rela.dyn (RELA) or, in ARM's .rel.dyn
# (REL), as the word already in the table. -z notext accepts the text
# relocations that __mcount_loc, a read-only section, needs. pie_ldflags,
# if set, adds linker flags to the next pie only.
pie() {
	name=$1 cc=$2
	shift 2
	(cd "$work/src" &&
		$cc $common -fPIE -o stubs.o stubs.c &&
		$cc $common -fPIE "$@" -o shapes.o shapes.c &&
		$cc -nostdlib -pie -Wl,--build-id=none -Wl,-e,_start \
			-Wl,-z,norelro -Wl,-z,notext $pie_ldflags -o "$out/$name" shapes.o stubs.o)
	pie_ldflags=
}
pie_ldflags=

# Kernel fixtures made by the kernel's own tools (see kernel_tools).
kernel_fixtures="arm-marm-recordmcount.o arm-thumb-recordmcount.o x86-pg-recordmcount.o
x86-fentry-recordmcount.o arm64-pg-recordmcount.o x86-fentry-objtool.o"

# kernel_tools builds recordmcount and objtool from the linux-source
# tarball into $work/linux, or returns 1 if there is no tarball.
kernel_tools() {
	tarball=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
	[ -f "$tarball" ] || return 1
	mkdir -p "$work/linux"
	tar -xJf "$tarball" -C "$work/linux" --strip-components=1 \
		linux-source-6.1/scripts/recordmcount.c \
		linux-source-6.1/scripts/recordmcount.h linux-source-6.1/tools
	gcc -O2 -o "$work/linux/recordmcount" "$work/linux/scripts/recordmcount.c"
	make -s -C "$work/linux/tools/objtool" >/dev/null
	cp "$work/linux/tools/objtool/objtool" "$work/linux/objtool"
}

# kernelize NAME FROM TOOL ARGS... copies object FROM to NAME and runs a
# kernel build tool on it in place.
kernelize() {
	name=$1 from=$2 tool=$3
	shift 3
	cp "$out/$from.o" "$out/$name.o"
	"$work/linux/$tool" "$@" "$out/$name.o"
}

build() {
	out=$1
	mkdir -p "$out"
	rm -rf "$work/src"
	mkdir "$work/src"
	cp "$here/src/shapes.c" "$here/src/stubs.c" "$work/src/"

	object arm-pg arm-linux-gnueabi-gcc -pg
	object arm-marm-pg arm-linux-gnueabi-gcc -marm -pg
	object arm-apcs-pg arm-linux-gnueabi-gcc -marm -pg -fno-omit-frame-pointer -mapcs-frame
	object arm-thumb-pg arm-linux-gnueabi-gcc -march=armv7-a -mthumb -pg
	armmloc arm-marm-mloc -marm -pg
	armmloc arm-thumb-mloc -march=armv7-a -mthumb -pg
	pie arm-pfe2-pie.exe arm-linux-gnueabi-gcc -marm -fpatchable-function-entry=2

	object x86-pg-pie gcc -pg
	object x86-pg gcc -fno-pie -pg
	object x86-fentry-pie gcc -pg -mfentry
	object x86-fentry gcc -fno-pie -pg -mfentry
	object x86-fentry-mrecord-pie gcc -pg -mfentry -mrecord-mcount
	object x86-fentry-mrecord gcc -fno-pie -pg -mfentry -mrecord-mcount
	object x86-fentry-mrecord-nop gcc -fno-pie -pg -mfentry -mrecord-mcount -mnop-mcount
	x86objtool x86-objtool -fno-pie -pg -mfentry
	link x86-fentry-mrecord.exe gcc -pg -mfentry -mrecord-mcount
	pie x86-fentry-mrecord-pie.exe gcc -pg -mfentry -mrecord-mcount

	object arm64-pg aarch64-linux-gnu-gcc -pg
	object arm64-pfe2 aarch64-linux-gnu-gcc -fpatchable-function-entry=2
	object arm64-pfe4-2 aarch64-linux-gnu-gcc -fpatchable-function-entry=4,2
	link arm64-pfe2.exe aarch64-linux-gnu-gcc -fpatchable-function-entry=2
	# --export-dynamic: .dynsym names the global functions too, for the
	# test that drops .symtab.
	pie_ldflags=-Wl,--export-dynamic
	pie arm64-pfe2-pie.exe aarch64-linux-gnu-gcc -fpatchable-function-entry=2

	object riscv64-pg riscv64-linux-gnu-gcc -pg
	object riscv64-pfe4 riscv64-linux-gnu-gcc -fpatchable-function-entry=4
	pie riscv64-pfe4-pie.exe riscv64-linux-gnu-gcc -fpatchable-function-entry=4

	if [ -x "$work/linux/recordmcount" ]; then
		kernelize arm-marm-recordmcount arm-marm-pg recordmcount
		kernelize arm-thumb-recordmcount arm-thumb-pg recordmcount
		kernelize x86-pg-recordmcount x86-pg recordmcount
		kernelize x86-fentry-recordmcount x86-fentry recordmcount
		kernelize arm64-pg-recordmcount arm64-pg recordmcount
		kernelize x86-fentry-objtool x86-fentry objtool --mcount
	else
		for k in $kernel_fixtures; do
			cp "$here/$k" "$out/$k"
		done
	fi

	for f in "$out"/*.o "$out"/*.exe; do
		case $(basename "$f") in
		arm-*) objdump=arm-linux-gnueabi-objdump ;;
		arm64-*) objdump=aarch64-linux-gnu-objdump ;;
		riscv64-*) objdump=riscv64-linux-gnu-objdump ;;
		*) objdump=objdump ;;
		esac
		# PIEs: -R shows the dynamic relocations inline in code; the
		# second run lists them all, those filling the tables included.
		case $(basename "$f") in
		*-pie.exe) (cd "$out" && $objdump -d -r -R "$(basename "$f")" &&
			$objdump -R "$(basename "$f")") >"$f.objdump" ;;
		*) (cd "$out" && $objdump -d -r "$(basename "$f")") >"$f.objdump" ;;
		esac
	done
}

if ! kernel_tools; then
	echo "build.sh: no linux-source-6.1 tarball: keeping $kernel_fixtures" | tr '\n' ' ' >&2
	echo >&2
fi
build "$work/a"
build "$work/b"
if ! diff -r "$work/a" "$work/b" >/dev/null; then
	echo "build.sh: two builds differ:" >&2
	diff -r "$work/a" "$work/b" >&2 || true
	exit 1
fi
rm -f "$here"/*.o "$here"/*.exe "$here"/*.objdump
cp "$work/a"/* "$here/"
echo "build.sh: $(ls "$work/a" | grep -vc objdump) fixtures rebuilt in $here"
