#!/usr/bin/env bash
# DIF's strided passes storing from their last round or pair straight to
# device memory (new: b), against the commit before it (a: the bare
# passes' benchmark added, the product's kernels otherwise unchanged) and
# f85ff4b (old), in one device call, interleaved twice: the transforms,
# the batched coset transform, the encoding and Vortex's resident
# commitment; then the memory schedule alone (BenchmarkNTTSchedule) and
# the arithmetic alone (BenchmarkNTTCeiling), and the new binaries' tests.
# (b: not committed, its diff in 2026-11-29-ntt-dif-out-in-kernel.patch.)
# Binaries (go test -c, stripped) packed as .bin/ab3.tar.xz:
# ntt-{old,a,b}.test, vortex-{old,b}.test; the source tree for the tests'
# testdata as .bin/gt/gpu-tests-0.tar.xz. From the project root on the GPU
# machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-direct-store.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab3.tar.xz -C "$dir"
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
run_tests ntt ntt-b.test -test.timeout 150s
run_tests vortex vortex-b.test -test.short -test.timeout 100s
for round in 1 2; do
	for v in old a b; do
		echo "=== $(date +%T) round $round $v"
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 10x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
	for v in old b; do
		echo "=== $(date +%T) round $round vortex $v"
		(cd "$src/vortex" && "$dir/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
done
for v in a b; do
	echo "=== $(date +%T) schedule $v"
	(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTTSchedule|NTTCeiling' -test.benchtime 20x 2>&1 | grep '^Benchmark')
done
echo "=== $(date +%T) done"
