#!/usr/bin/env bash
# forSize's smaller tiles with a workgroup of a sixteenth of their
# elements, and runs of 8 words where only that saves a pass (new), against
# the commit before (8960b35, old), in one device call: the transforms,
# the batched coset transform and the encoding interleaved twice, Vortex's
# resident commitment once each, the policies side by side once more, and
# the new binaries' tests. Binaries (go test -c, stripped) packed as
# .bin/ab2.tar.xz: {ntt,vortex}-{old,new}.test; the source tree for the
# tests' testdata as .bin/gt/gpu-tests-0.tar.xz. From the project root on
# the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-tiles.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab2.tar.xz -C "$dir"
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
src=$dir/gpu-tests/src/algos
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
run_tests() { # package, binary, flags...
	local p=$1 b=$2 start
	shift 2
	start=$(date +%s.%N)
	(cd "$src/$p" && "$dir/$b" -test.count=1 -test.v "$@" >"$out/test-$b.log" 2>&1)
	echo "$b tests rc=$? $(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}') s: $(grep -c -- '--- PASS' "$out/test-$b.log") passed, $(grep -c -- '--- FAIL' "$out/test-$b.log") failed"
}
run_tests ntt ntt-new.test -test.run 'TestGPUTiles|TestForSize|TestEncodeGPU|TestExtendGPU|TestGPU$|TestMonty$' -test.short
run_tests vortex vortex-new.test -test.short
for round in 1 2; do
	for v in old new; do
		echo "=== $(date +%T) round $round $v"
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(16|20|22|24)/resident/out=bitreversed' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 10x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
done
for v in old new; do
	echo "=== $(date +%T) vortex $v"
	(cd "$src/vortex" && "$dir/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
done
echo "=== $(date +%T) policies"
(cd "$src/ntt" && "$dir/ntt-new.test" -test.run X -test.bench 'NTTConfig/256x' -test.benchtime 100x 2>&1 | grep '^Benchmark\|differs')
echo "=== $(date +%T) done"
