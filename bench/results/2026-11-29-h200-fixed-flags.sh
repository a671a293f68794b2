#!/usr/bin/env bash
# Each NTT pass's flags compiled into its kernel (ntt.Plan.fixed) against
# the commit before (e8a1d0a), in one device call, interleaved twice.
# Binaries (go test -c, stripped) packed as .bin/x3x/x3.tar.xz:
#   {ntt,vortex,lde}-base.test at e8a1d0a, {ntt,vortex,lde}-fixed.test with
#   the change; the source tree for the tests' testdata as
#   .bin/gt2/gpu-tests-0.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-fixed-flags.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/x3x/x3.tar.xz -C "$dir"
tar xJf .bin/gt2/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
bin=$dir/x3
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for v in base fixed; do
	for p in ntt vortex lde; do
		start=$(date +%s.%N)
		(cd "$dir/gpu-tests/src/algos/$p" && "$bin/$p-$v.test" -test.count=1 >"$out/test-$p-$v.log" 2>&1)
		echo "$p-$v tests rc=$? $(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}') s"
	done
done
for round in 1 2; do
	for v in base fixed; do
		echo "=== $(date +%T) round $round ntt-$v"
		"$bin/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark'
		"$bin/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 10x 2>&1 | grep '^Benchmark'
		"$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark'
		echo "=== $(date +%T) round $round vortex-$v"
		"$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/(resident|e2e)$' -test.benchtime 5x 2>&1 | grep '^Benchmark'
		echo "=== $(date +%T) round $round lde-$v"
		"$bin/lde-$v.test" -test.run X -test.bench 'Commit/babybear/2\^20' -test.benchtime 5x 2>&1 | grep '^Benchmark'
	done
done
echo "=== $(date +%T) done"
