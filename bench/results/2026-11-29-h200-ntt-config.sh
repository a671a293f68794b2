#!/usr/bin/env bash
# The NTT's tuning policies side by side (BenchmarkNTTConfig), twice, and
# the ntt test binary's whole suite, in one device call. Binary (go test
# -c, stripped): .bin/ntt-config.test at the commit that adds the
# benchmark; the source tree for the tests' testdata as
# .bin/gt/gpu-tests-0.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-config.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
exe=$PWD/.bin/ntt-config.test
cd "$dir/gpu-tests/src/algos/ntt" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for round in 1 2; do
	echo "=== $(date +%T) round $round"
	"$exe" -test.run X -test.bench 'NTTConfig' -test.benchtime 20x 2>&1 | grep '^Benchmark\|FAIL\|differs'
done
echo "=== $(date +%T) tests"
start=$(date +%s.%N)
"$exe" -test.count=1 -test.v >"$out/test-ntt.log" 2>&1
echo "ntt tests rc=$? $(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}') s: $(grep -c -- '--- PASS' "$out/test-ntt.log") passed, $(grep -c -- '--- FAIL' "$out/test-ntt.log") failed"
echo "=== $(date +%T) done"
