#!/usr/bin/env bash
# compare.sh: mcountsim against a single-stepping emulator and a model checker,
# run in one go on one machine.
#
#  (a) simulated A32 instructions per second: mcountsim's step benchmark
#      (sched BenchmarkRunLocal/arm/straight, the search's inner loop
#      over thread-local code, one core) against qemu-arm
#      -singlestep running the same instruction words (bench/loop.S);
#  (b) time to verdict: `mcountsim check` on the seed scenario (nop-nop:
#      UNSAFE; jmp-over: SAFE) against SPIN on the abstract Promela model of
#      the same scenario (bench/seed.pml): spin -a, gcc, ./pan.
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

echo "== (b) time to verdict on the seed scenario (check defaults: 2 cpus, 2 tasks, bound 2)"
cp bench/seed.pml "$tmp/"
for s in nop-nop jmp-over; do
	def=$(echo "$s" | tr a-z- A-Z_)
	(
		cd "$tmp"
		t0=$(now)
		spin -D"$def" -a seed.pml >/dev/null
		gcc -O2 -DSAFETY -o pan pan.c
		out=$(./pan 2>&1 || true)
		t1=$(now)
		echo "$(secs "$t0" "$t1") $(echo "$out" | grep -o 'errors: [0-9]*')" >"$tmp/spin-$s"
	)
	read -r spin_s spin_verdict <"$tmp/spin-$s"
	t0=$(now)
	set +e
	"$tmp/mcountsim" check --arch arm --strategy "$s" >"$tmp/mc-$s.txt"
	code=$?
	set -e
	t1=$(now)
	mc_s=$(secs "$t0" "$t1")
	verdict=$(sed -n 's/^verdict:  \([A-Z]*\).*/\1/p' "$tmp/mc-$s.txt")
	printf '  %-9s SPIN (spin -a + gcc + ./pan): %ss (%s)   mcountsim check: %ss (%s, exit %d)   ratio SPIN/mcountsim: %.1f\n' \
		"$s" "$(fmt "$spin_s")" "$spin_verdict" "$(fmt "$mc_s")" "$verdict" "$code" "$(echo "$spin_s / $mc_s" | bc -l)"
done

echo "== (c) larger scenarios (mcountsim only; all cores)"
for args in "--tasks 3 --bound 2" "--tasks 3 --bound 3" "--tasks 3 --bound 2 --workers 2" "--tasks 3 --bound 2 --workers 1"; do
	t0=$(now)
	"$tmp/mcountsim" check --arch arm --strategy jmp-over $args >"$tmp/big.txt" || true
	t1=$(now)
	printf '  jmp-over %-32s %ss  %s\n' "$args" "$(fmt "$(secs "$t0" "$t1")")" "$(sed -n 's/^searched: \([0-9]* branching states\).*/\1/p' "$tmp/big.txt")"
done
