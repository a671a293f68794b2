#!/usr/bin/env bash
# Three changes against the head before them (2ba13d8, "old"), in one
# device call, interleaved twice:
#   ntt-ditin:  DIT's first round loads from device memory itself on the
#               strided DIT passes whose m is a multiple of 4 (NT_DIT_IN)
#   ntt-unit:   that, and the radix-16 round and the lone stage on a
#               row's lowest bits run without the products of twiddle 1
#   ntt-piece4, ntt-piece16: ntt-unit with the encoding's pieces capped
#               at 4 and 16 rows (of 2^19), so that a piece's scratch
#               stays in L2 between its passes (an experiment only)
#   vortex-unit: ntt-unit's kernels in Vortex's commitment
# Binaries (go test -c, stripped) packed as .bin/ab5.tar.xz; the source
# tree (for the tests' testdata) as .bin/gt/gpu-tests-0.tar.xz. From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-unit-ditin.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab5.tar.xz -C "$dir"
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
bin=$dir/ab5
src=$dir/gpu-tests/src/algos
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
echo "=== $(date +%T) tests, ntt-unit"
(cd "$src/ntt" && "$bin/ntt-unit.test" -test.count=1 -test.short -test.run 'TestGPU$|TestGPULarge|TestEncodeGPU|TestExtendFused|TestExtendGPU|TestGoldilocksGPU|TestBareSchedule|TestCeilingKernel|TestFixedPasses' >"$out/test-ntt-unit.log" 2>&1; echo "ntt-unit tests rc=$?")
for round in 1 2; do
	for v in old ditin unit; do
		echo "=== $(date +%T) round $round ntt-$v"
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|22|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
	for v in piece4 piece16; do
		echo "=== $(date +%T) round $round ntt-$v"
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
	for v in old unit; do
		echo "=== $(date +%T) round $round vortex-$v"
		(cd "$src/vortex" && "$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
done
echo "=== $(date +%T) schedule, ntt-unit"
(cd "$src/ntt" && "$bin/ntt-unit.test" -test.run X -test.bench 'NTTSchedule/1x2\^24' -test.benchtime 20x 2>&1 | grep '^Benchmark')
echo "=== $(date +%T) done"
