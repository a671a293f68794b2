#!/usr/bin/env bash
# The round on a row's lowest bits without the products of twiddle 1,
# as a flag compiled into the passes that run it (NT_UNIT), against
# 2ba13d8 (old) and ed2c102 (ditin: NT_DIT_IN, the head before it), in
# one device call, interleaved twice:
#   ntt-v2:    NT_UNIT on the low bits' pass where m is a multiple of 4
#   ntt-v3:    and on the low bits' pass where m is odd (its lone stage 0
#              without products: the encoding's rows of 2^19)
#   vortex-v2: ntt-v2's kernels in Vortex's commitment
# Binaries (go test -c, stripped) packed as .bin/ab6.tar.xz; the source
# tree (for the tests' testdata) as .bin/gt/gpu-tests-0.tar.xz. From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-unit-flag.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab6.tar.xz -C "$dir"
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
bin=$dir/ab6
src=$dir/gpu-tests/src/algos
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for v in v2 v3; do
	echo "=== $(date +%T) tests, ntt-$v"
	(cd "$src/ntt" && "$bin/ntt-$v.test" -test.count=1 -test.short -test.run 'TestGPU$|TestGPULarge|TestExtendFused|TestEncodeGPU|TestBareSchedule|TestCeilingKernel' >"$out/test-ntt-$v.log" 2>&1; echo "ntt-$v tests rc=$?")
done
for round in 1 2; do
	for v in old ditin v2 v3; do
		echo "=== $(date +%T) round $round ntt-$v"
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|22|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
	for v in old v2; do
		echo "=== $(date +%T) round $round vortex-$v"
		(cd "$src/vortex" && "$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
done
echo "=== $(date +%T) done"
