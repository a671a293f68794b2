#!/usr/bin/env bash
# Two changes against the head before them (f920258), in one device call:
#   ntt-b:     the conversions at a pass's loads and stores reduce with a
#              select again (ntt_monty31.wgsl), where e4d38d5's min in
#              monty31_reduce slowed the NTT's passes
#   vortex-s:  a piece's copies queued before the last piece's encoding
#              and settled after it (algos/vortex/stages.go)
#   vortex-bs: both
# Binaries (go test -c, stripped) packed as .bin/x2x/x2.tar.xz; the
# source tree (for the tests' testdata) as .bin/gt2/gpu-tests-0.tar.xz.
# From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-overlap.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/x2x/x2.tar.xz -C "$dir"
tar xJf .bin/gt2/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
bin=$dir/x2
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
echo "=== $(date +%T) tests"
(cd "$dir/gpu-tests/src/algos/ntt" && "$bin/ntt-b.test" -test.count=1 >"$out/test-ntt-b.log" 2>&1; echo "ntt-b tests rc=$?")
(cd "$dir/gpu-tests/src/algos/vortex" && "$bin/vortex-bs.test" -test.count=1 >"$out/test-vortex-bs.log" 2>&1; echo "vortex-bs tests rc=$?")
for round in 1 2; do
	for v in head b; do
		echo "=== $(date +%T) round $round ntt-$v"
		"$bin/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark'
		"$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark'
	done
	for v in head s bs; do
		echo "=== $(date +%T) round $round vortex-$v"
		"$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/(resident|e2e)$' -test.benchtime 5x 2>&1 | grep '^Benchmark'
		"$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkLinea$/2\^(9x2\^16|11x2\^19)/rate2/e2e$' -test.benchtime 5x 2>&1 | grep '^Benchmark'
	done
done
for v in head bs; do
	echo "=== $(date +%T) trace vortex-$v"
	VORTEX_BENCH_TRACE=$out/trace-$v.txt "$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/trace$' -test.benchtime 3x 2>&1 | grep '^Benchmark'
done
echo "=== $(date +%T) done"
