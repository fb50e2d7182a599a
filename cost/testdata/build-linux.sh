#!/bin/sh
# build-linux.sh rebuilds linux-6.1-arm-range.o: kernel/range.o of Debian's
# linux-source-6.1, compiled by Kbuild for ARMv5 (versatile_defconfig, the
# kind of board of seed 000) with the function tracer on, so that gcc emits
# push {lr}; bl __gnu_mcount_nc in every traced function and Kbuild runs the
# kernel's own scripts/recordmcount on the object (__mcount_loc).
#
# Needs: linux-source-6.1, gcc-arm-linux-gnueabi, make, bc, flex, bison.
# Takes a few minutes (make prepare). Usage: sh cost/testdata/build-linux.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tarball=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$tarball" -C "$work" --strip-components=1
cd "$work"
mk() { make -s ARCH=arm CROSS_COMPILE=arm-linux-gnueabi- "$@"; }
mk versatile_defconfig
./scripts/config --enable FTRACE --enable FUNCTION_TRACER --enable DYNAMIC_FTRACE --disable THUMB2_KERNEL
mk olddefconfig
mk -j2 prepare
mk kernel/range.o
cp kernel/range.o "$here/linux-6.1-arm-range.o"
(cd "$here" && arm-linux-gnueabi-objdump -d -r linux-6.1-arm-range.o >linux-6.1-arm-range.o.objdump)
echo "build-linux.sh: $here/linux-6.1-arm-range.o rebuilt"
