#!/usr/bin/env bash
# spin.sh: time to verdict of mcountsim against SPIN on every built-in
# strategy's default scenario (`mcountsim check --arch A --strategy S`: 2
# cpus, 2 tasks, 2 iterations, 2 toggles, preempt full, bound 2).
#
# For each built-in listed by `mcountsim strategies`, SPIN runs the abstract
# Promela model bench/models/A.pml with -DS (S upper-cased, - as _):
# spin -a, gcc -O2 -DSAFETY pan.c, ./pan; its verdict is the "errors: N"
# line (0 SAFE, 1 UNSAFE). mcountsim's is the exit status of check (0 SAFE,
# 1 UNSAFE). Each side's time is the wall time and the CPU time (user+sys,
# children included, from /usr/bin/time) of its commands. A built-in
# without a model, a model that does not compile or whose search was cut
# short, and any verdict that differs, is a disagreement.
#
# Usage: bench/spin.sh [STRATEGY...]    (default: every built-in)
#        MCOUNTSIM=path/to/mcountsim bench/spin.sh   (use that binary)
# Exit: 0 if every verdict agrees, 1 otherwise, 2 if a tool is missing.
# Needs: go (unless MCOUNTSIM is set), spin, gcc, /usr/bin/time, bc.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in spin gcc /usr/bin/time bc; do
	command -v "$tool" >/dev/null || { echo "spin.sh: $tool not found" >&2; exit 2; }
done
mc=${MCOUNTSIM:-}
if [ -z "$mc" ]; then
	command -v go >/dev/null || { echo "spin.sh: go not found" >&2; exit 2; }
	go build -o "$tmp/mcountsim" ./cmd/mcountsim
	mc=$tmp/mcountsim
fi

# timed FILE CMD...: run CMD, append "wall cpu" to FILE; CMD's exit status.
timed() {
	local f=$1
	shift
	local rc=0
	/usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" || rc=$?
	tail -1 "$tmp/t" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }' >>"$f"
	return $rc
}
# sum FILE: "wall cpu" summed over FILE's lines.
sum() { awk '{ w += $1; c += $2 } END { printf "%.2f %.2f\n", w, c }' "$1"; }
ratio() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.1f' "$(echo "$1 / $2" | bc -l)"; else echo inf; fi; }

list=$("$mc" strategies | awk 'NR > 1 { print $1 " " $2 }')
if [ $# -gt 0 ]; then
	want=" $* "
	list=$(echo "$list" | while read -r a s; do case "$want" in *" $s "*) echo "$a $s" ;; esac; done)
	[ -n "$list" ] || { echo "spin.sh: no built-in strategy among: $*" >&2; exit 2; }
fi

printf '%-19s %-7s | %-31s | %-34s | %-11s | %s\n' "strategy" "arch" "SPIN wall/cpu s, errors, states" "mcountsim wall/cpu s, verdict, st." "SPIN/mc cpu" "agree"
bad=0
spin_cpu=0 mc_cpu=0
while read -r arch s; do
	def=$(echo "$s" | tr a-z- A-Z_)
	model=bench/models/$arch.pml
	run=$tmp/$s
	mkdir "$run"
	spin_errors=none spin_states=
	if [ -f "$model" ]; then
		cp bench/models/*.pml "$run/"
		: >"$run/times"
		(
			cd "$run"
			timed times spin -D"$def" -a "$arch.pml" >spin.out 2>&1 &&
				timed times gcc -O2 -DSAFETY -o pan pan.c >gcc.out 2>&1 &&
				{ timed times ./pan >pan.out 2>&1 || true; }
		) || true
		if [ -f "$run/pan.out" ]; then
			spin_errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$run/pan.out" | head -1)
			grep -q 'max search depth too small' "$run/pan.out" && spin_errors=cut
			[ -n "$spin_errors" ] || spin_errors=none
			spin_states=$(sed -n 's/^ *\([0-9]*\) states, stored.*/\1/p' "$run/pan.out" | head -1)
		fi
		read -r spin_w spin_c < <(sum "$run/times")
	else
		spin_w=0 spin_c=0
	fi
	: >"$run/mctimes"
	code=0
	timed "$run/mctimes" "$mc" check --arch "$arch" --strategy "$s" >"$run/mc.out" 2>&1 || code=$?
	read -r mc_w mc_c < <(sum "$run/mctimes")
	# branching states of the search (the first bound to meet a hazard is not counted)
	mc_states=$(grep -o '[0-9]* branching states' "$run/mc.out" | head -1 | cut -d' ' -f1 || true)
	case $code in 0) verdict=SAFE ;; 1) verdict=UNSAFE ;; 3) verdict=INCOMPLETE ;; *) verdict="error($code)" ;; esac
	agree=no
	if { [ "$spin_errors" = 0 ] && [ "$verdict" = SAFE ]; } || { [ "$spin_errors" = 1 ] && [ "$verdict" = UNSAFE ]; }; then
		agree=yes
	else
		bad=1
	fi
	case $spin_errors in
	none) spin_v="no verdict ($model)" ;;
	cut) spin_v="depth cut" ;;
	*) spin_v="errors: $spin_errors" ;;
	esac
	printf '%-19s %-7s | %5s %5s %-12s %6s | %5s %5s %-10s %7s | %-11s | %s\n' \
		"$s" "$arch" "$spin_w" "$spin_c" "$spin_v" "${spin_states:--}" "$mc_w" "$mc_c" "$verdict" "${mc_states:--}" "$(ratio "$spin_c" "$mc_c")" "$agree"
	spin_cpu=$(echo "$spin_cpu + $spin_c" | bc -l)
	mc_cpu=$(echo "$mc_cpu + $mc_c" | bc -l)
done <<<"$list"
printf 'total cpu: SPIN %.2f s, mcountsim %.2f s, ratio %s; load average: %s\n' \
	"$spin_cpu" "$mc_cpu" "$(ratio "$spin_cpu" "$mc_cpu")" "$(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$bad" != 0 ]; then
	echo "spin.sh: SPIN's and mcountsim's verdicts disagree (see the agree column)" >&2
	exit 1
fi
