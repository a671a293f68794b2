#!/bin/bash
# Times `wgbench b3sum FILE...` against `b3sum --num-threads 16 FILE...`
# side by side: ROUNDS alternating runs of each (default 7), each timed with
# date +%s%N around the process, output to /dev/null; prints the medians in
# microseconds and whether the two outputs are equal. The method behind
# BENCHMARKS.md's b3sum tables on the GPU machine.
#
#   bench/b3sum-compare.sh [-n ROUNDS] [-x 'EXTRA WGBENCH ARGS'] WGBENCH B3SUM NAME FILE...
set -euo pipefail
rounds=7 extra=""
while getopts n:x: o; do
  case $o in n) rounds=$OPTARG ;; x) extra=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
W=$1 B=$2 name=$3; shift 3
us() { local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
tb=$(mktemp) tw=$(mktemp)
trap 'rm -f "$tb" "$tw" "$tb.o" "$tw.o"' EXIT
for _ in $(seq "$rounds"); do
  us "$B" --num-threads 16 "$@" >> "$tb"
  # shellcheck disable=SC2086
  us "$W" b3sum $extra "$@" >> "$tw"
done
"$B" --num-threads 16 "$@" > "$tb.o"
# shellcheck disable=SC2086
"$W" b3sum $extra "$@" > "$tw.o"
cmp -s "$tb.o" "$tw.o" && eq=equal || eq=DIFFER
echo "$name b3sum_us $(med < "$tb") wgbench_us $(med < "$tw") outputs $eq (b3sum: $(tr '\n' ' ' < "$tb"); wgbench: $(tr '\n' ' ' < "$tw"))"
