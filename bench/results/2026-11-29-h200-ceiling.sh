#!/usr/bin/env bash
# The radix-16 rounds' arithmetic alone (BenchmarkNTTCeiling), and two
# changes against the commit before them (2add7bb), in one device call,
# interleaved twice: nt_radix16 (the rounds' arithmetic as one function
# that the ceiling kernel runs too) and SIS's products with the key summed
# unreduced (monty31_acc). Binaries (go test -c, stripped) packed as
# .bin/ab.tar.xz: {ntt,sis,vortex}-old.test at 2add7bb,
# {ntt,sis,vortex,poseidon2}-new.test with the changes; the source tree for
# the tests' testdata as .bin/gt/gpu-tests-0.tar.xz. From the project
# root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ceiling.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/ab.tar.xz -C "$dir"
tar xJf .bin/gt/gpu-tests-0.tar.xz -C "$dir"
out=${OUT:-.}
src=$dir/gpu-tests/src/algos
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
run_tests() { # package, binary, flags...
	local p=$1 b=$2 start
	shift 2
	start=$(date +%s.%N)
	(cd "$src/$p" && "$dir/$b" -test.count=1 "$@" >"$out/test-$b.log" 2>&1)
	echo "$b tests rc=$? $(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}') s: $(grep -c '^--- PASS\|^    --- PASS' "$out/test-$b.log") passed, $(grep -c -- '--- FAIL' "$out/test-$b.log") failed"
}
run_tests ntt ntt-new.test -test.run 'TestCeilingKernel|TestFixedPasses|TestTransform|TestExtend' -test.short
run_tests sis sis-new.test
run_tests vortex vortex-new.test -test.short
for round in 1 2; do
	for v in old new; do
		echo "=== $(date +%T) round $round $v"
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
		(cd "$src/ntt" && "$dir/ntt-$v.test" -test.run X -test.bench 'Encode/2048x2\^19/rate2/resident$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
		(cd "$src/sis" && "$dir/sis-$v.test" -test.run X -test.bench 'SISColumns/vulkan/2048x1048576/row-major' -test.benchtime 3x 2>&1 | grep '^Benchmark')
		(cd "$src/vortex" && "$dir/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/resident$' -test.benchtime 5x 2>&1 | grep '^Benchmark')
	done
	echo "=== $(date +%T) round $round ceiling"
	(cd "$src/ntt" && "$dir/ntt-new.test" -test.run X -test.bench 'NTTCeiling' -test.benchtime 50x 2>&1 | grep '^Benchmark')
done
echo "=== $(date +%T) permutations"
(cd "$src/poseidon2" && "$dir/poseidon2-new.test" -test.run X -test.bench 'Permute31/.*/vulkan' -test.benchtime 5x 2>&1 | grep '^Benchmark')
echo "=== $(date +%T) done"
