#!/usr/bin/env bash
# shards.sh: run the n shards of one exhaustive check as separate processes
# on this machine, exchanging the states they do not own through a shared
# directory (check --shard i/n --exchange DIR), then merge them.
#
# Usage: bench/shards.sh N [check flags...]
#   e.g. bench/shards.sh 4 --arch arm --strategy jmp-over --tasks 3 --workers 1
# Uses GNU parallel when RUNNER=parallel (or when it is installed and RUNNER
# is unset), xargs -P otherwise. MCOUNTSIM names the binary (default: built
# from this checkout). Prints one line per shard (verdict, states, steps,
# runs, wall time), the unsharded figures for comparison when UNSHARDED=1,
# and the merged result; exits with merge's status.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: bench/shards.sh N [check flags...]}
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${MCOUNTSIM:-}" ]; then
	go build -o "$tmp/mcountsim" ./cmd/mcountsim
	MCOUNTSIM=$tmp/mcountsim
fi
runner=${RUNNER:-}
if [ -z "$runner" ]; then
	if command -v parallel >/dev/null; then runner=parallel; else runner=xargs; fi
fi
mkdir "$tmp/x"
export MCOUNTSIM
shard() { # shard INDEX N DIR FLAGS...: one shard, its JSON in DIR/shard-INDEX.json
	local i=$1 n=$2 dir=$3
	shift 3
	local t0 t1
	t0=$(date +%s.%N)
	set +e
	"$MCOUNTSIM" check "$@" --json --shard "$i/$n" --exchange "$dir/x" >"$dir/shard-$i.json"
	local code=$?
	set -e
	t1=$(date +%s.%N)
	echo "$t0 $t1" >"$dir/time-$i"
	[ "$code" -ne 2 ] # 0 SAFE, 1 UNSAFE, 3 INCOMPLETE are results
}
export -f shard
t0=$(date +%s.%N)
case $runner in
parallel) seq 0 $((n - 1)) | parallel -j "$n" --halt now,fail=1 shard {} "$n" "$tmp" "$@" ;;
xargs) seq 0 $((n - 1)) | xargs -P "$n" -I{} bash -c 'shard "$@"' _ {} "$n" "$tmp" "$@" ;;
*) echo "shards.sh: unknown RUNNER $runner" >&2; exit 2 ;;
esac
t1=$(date +%s.%N)
for i in $(seq 0 $((n - 1))); do
	read -r a b <"$tmp/time-$i"
	python3 - "$tmp/shard-$i.json" "$i/$n" "$(echo "$b - $a" | bc -l)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"  shard {sys.argv[2]:>5}  {d['verdict']:<10} {d['states']:>10} states {d['transitions']:>11} steps {d['runs']:>6} runs  {float(sys.argv[3]):6.2f} s")
PY
done
if [ "${UNSHARDED:-0}" = 1 ]; then
	set +e
	"$MCOUNTSIM" check "$@" --json >"$tmp/whole.json"
	set -e
	python3 - "$tmp/whole.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"  unsharded    {d['verdict']:<10} {d['states']:>10} states {d['transitions']:>11} steps {d['runs']:>6} runs  {d['elapsed_ns']/1e9:6.2f} s")
PY
fi
printf '  %d shards (%s), wall %.2f s\n' "$n" "$runner" "$(echo "$t1 - $t0" | bc -l)"
set +e
"$MCOUNTSIM" merge "$tmp"/shard-*.json
