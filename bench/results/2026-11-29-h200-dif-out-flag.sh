#!/usr/bin/env bash
# DIF's strided passes storing from their last round or pair straight to
# device memory, chosen by a flag that Go sets on those passes (NT_DIF_OUT,
# compiled into each pass's kernel: c), and the same flag on the low bits'
# pass too, where its stores are sixteen words apart across a warp (e),
# (e: not kept, its diff in 2026-11-29-ntt-dif-out-low-bits.patch)
# against f85ff4b (old), in one device call, interleaved twice: the
# transforms, the batched coset transform, the encoding, and Vortex's
# resident commitment (old, c); then the memory schedule alone
# (BenchmarkNTTSchedule) at c, and the new binaries' tests. Binaries (go
# test -c, stripped) packed as .bin/ab4.tar.xz: ntt-{old,c,e}.test,
# vortex-{old,c}.test; the source tree for the tests' testdata as
# .bin/gt/gpu-tests-0.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-dif-out-flag.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab4.tar.xz -C "$dir"
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
run_tests ntt ntt-c.test -test.run 'TestGPU$|TestGPULarge|TestEncodeGPU|TestExtendGPU|TestFixedPasses|TestBareSchedule|TestMonty$|TestTarget' -test.timeout 200s
run_tests ntt ntt-e.test -test.run 'TestGPU$|TestEncodeGPU|TestBareSchedule' -test.timeout 100s
run_tests vortex vortex-c.test -test.short -test.timeout 100s
for round in 1 2; do
	for v in old c e; do
		echo "=== $(date +%T) round $round $v"
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTTBatch' -test.benchtime 10x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
	done
	for v in old c; do
		echo "=== $(date +%T) round $round vortex $v"
		(cd "$src/vortex" && "$dir/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
done
echo "=== $(date +%T) schedule c"
(cd "$src/ntt" && "$dir/ntt-c.test" -test.run X -test.bench 'NTTSchedule' -test.benchtime 20x 2>&1 | grep '^Benchmark')
echo "=== $(date +%T) done"
