#!/usr/bin/env bash
# The shapes whose tiles forSize's change moved and no benchmark had run:
# rows of 2^17 and 2^11 under each policy (BenchmarkNTTConfig, default =
# the new policy; the old one is wg256/tile11/col5 for both), and the ntt
# test binary's whole suite at the change. Binary: .bin/ntt-final.test;
# tree as in 2026-11-29-h200-ntt-config.sh.
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-tiles-2.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
exe=$PWD/.bin/ntt-final.test
cd "$dir/gpu-tests/src/algos/ntt" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
echo "=== $(date +%T) policies"
"$exe" -test.run X -test.bench 'NTTConfig/(512x2\^17|2048x2\^11)' -test.benchtime 100x 2>&1 | grep '^Benchmark\|differs'
echo "=== $(date +%T) tests"
start=$(date +%s.%N)
"$exe" -test.count=1 -test.v >"$out/test-ntt.log" 2>&1
echo "ntt tests rc=$? $(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}') s: $(grep -c -- '--- PASS' "$out/test-ntt.log") passed, $(grep -c -- '--- FAIL' "$out/test-ntt.log") failed"
echo "=== $(date +%T) done"
