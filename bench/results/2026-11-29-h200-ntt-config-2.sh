#!/usr/bin/env bash
# BenchmarkNTTConfig again, with the default policy also run last, 100
# transforms a policy, three rounds (the first call's 2^19 rows moved up
# to 4x between rounds). Binary: .bin/ntt-config.test at the commit that
# adds "default-again"; tree as in 2026-11-29-h200-ntt-config.sh.
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-config-2.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
exe=$PWD/.bin/ntt-config.test
cd "$dir/gpu-tests/src/algos/ntt" || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for round in 1 2 3; do
	echo "=== $(date +%T) round $round"
	"$exe" -test.run X -test.bench 'NTTConfig' -test.benchtime 100x 2>&1 | grep '^Benchmark\|FAIL\|differs'
done
echo "=== $(date +%T) done"
