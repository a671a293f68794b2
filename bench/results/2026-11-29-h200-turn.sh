#!/usr/bin/env bash
# The encoding's fused middle pass with the inverse's lowest step, the
# scales and the coset transform's lowest step run as one step (turn:
# NT_IO_TURN) against the head before it (cb54769, head), in one device
# call, interleaved twice; the turn binary's encoding tests first.
# Binaries (go test -c, stripped) packed as .bin/ab7.tar.xz; the source
# tree (for the tests' testdata) as .bin/gt.prev/gpu-tests-0.tar.xz. From
# the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-turn.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab7.tar.xz -C "$dir"
tar xJf .bin/gt.prev/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
bin=$dir/ab7
src=$dir/gpu-tests/src/algos
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
echo "=== $(date +%T) tests, ntt-turn"
(cd "$src/ntt" && "$bin/ntt-turn.test" -test.count=1 -test.short -test.run 'TestExtendFused|TestEncodeGPU|TestExtendGPU|TestGoldilocksExtend|TestEncodeMonty|TestExtendMonty' >"$out/test-ntt-turn.log" 2>&1; echo "ntt-turn tests rc=$?")
for round in 1 2; do
	for v in head turn; do
		echo "=== $(date +%T) round $round ntt-$v"
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident/out=bitreversed' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$bin/ntt-$v.test" -test.run X -test.bench 'NTTBatch/128x2\^18/coset/out=bitreversed' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		echo "=== $(date +%T) round $round vortex-$v"
		(cd "$src/vortex" && "$bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
done
echo "=== $(date +%T) done"
