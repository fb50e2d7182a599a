#!/usr/bin/env bash
# compare.sh: mcountsim against a single-stepping emulator and a model checker,
# run in one go on one machine.
#
#  (a) simulated A32 instructions per second: mcountsim's step benchmark
#      (sched BenchmarkRunLocal/arm/straight, the search's inner loop
#      over thread-local code, one core) against qemu-arm
#      -singlestep running the same instruction words (bench/loop.S);
#  (b) time to verdict: `mcountsim check` on every built-in's default
#      scenario against SPIN on the abstract Promela models of the same
#      scenarios (bench/spin.sh, bench/models/*.pml): spin -a, gcc, ./pan.
#
# Needs: go, qemu-arm, arm-linux-gnueabi-gcc, spin, gcc.
# Usage: bench/compare.sh            (ITER=20000 loop iterations under qemu)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in go qemu-arm arm-linux-gnueabi-gcc spin gcc; do
	command -v "$tool" >/dev/null || { echo "compare.sh: $tool not found" >&2; exit 2; }
done

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
fmt() { printf '%.3f' "$1"; }

ITER=${ITER:-20000}
go build -o "$tmp/mcountsim" ./cmd/mcountsim

echo "== (a) simulated A32 instructions per second, one core"
arm-linux-gnueabi-gcc -march=armv7-a -nostdlib -static -DITER="$ITER" -o "$tmp/loop" bench/loop.S
insns=$(( 3 + ITER * (4096 + 2) + 3 ))
t0=$(now); qemu-arm -singlestep "$tmp/loop"; t1=$(now)
qemu_s=$(secs "$t0" "$t1")
qemu_ips=$(echo "$insns / $qemu_s" | bc -l)
bench=$(GOMAXPROCS=1 go test -run '^$' -bench 'RunLocal/arm/straight$' -benchmem -count 3 ./sched)
mc_ips=$(echo "$bench" | awk '/insns\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "insns/s") print $i }' | sort -g | tail -1)
allocs=$(echo "$bench" | awk '/insns\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "allocs/op") print $i }' | sort -g | tail -1)
printf '  qemu-arm -singlestep: %d instructions in %ss = %.1f M insns/s\n' "$insns" "$(fmt "$qemu_s")" "$(echo "$qemu_ips / 1000000" | bc -l)"
printf '  mcountsim step:       %.1f M insns/s (best of 3), %s allocs/op\n' "$(echo "$mc_ips / 1000000" | bc -l)" "$allocs"
printf '  ratio mcountsim/qemu: %.2f\n' "$(echo "$mc_ips / $qemu_ips" | bc -l)"

echo "== (b) time to verdict on every built-in's default scenario (check defaults: 2 cpus, 2 tasks, bound 2)"
MCOUNTSIM="$tmp/mcountsim" bench/spin.sh | sed "s/^/  /" || spin_rc=1

echo "== (c) larger scenarios (mcountsim only; all cores)"
for args in "--tasks 3 --bound 2" "--tasks 3 --bound 3" "--tasks 3 --bound 2 --workers 2" "--tasks 3 --bound 2 --workers 1"; do
	t0=$(now)
	"$tmp/mcountsim" check --arch arm --strategy jmp-over $args >"$tmp/big.txt" || true
	t1=$(now)
	printf '  jmp-over %-32s %ss  %s\n' "$args" "$(fmt "$(secs "$t0" "$t1")")" "$(sed -n 's/^searched: \([0-9]* branching states\).*/\1/p' "$tmp/big.txt")"
done

exit "${spin_rc:-0}" # (b): a verdict of SPIN and mcountsim disagrees
