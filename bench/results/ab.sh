#!/usr/bin/env bash
# Sourced by the A/B scripts here, from the project root on the GPU
# machine (a checkout, whose package directories hold what the tests
# read):
#   ab_setup PACK       unpack PACK (.tar.xz of a folder of test binaries
#                       named PKG-VARIANT.test) and print the card
#   ab_test PKG V REGEX run PKG-V.test's tests matching REGEX (-short),
#                       the log in $OUT/test-PKG-V.log
#   ab_bench PKG V BENCH N
#                       run PKG-V.test's benchmarks matching BENCH, N
#                       times each (-test.benchtime Nx)
#   ab_rounds "V..." PKG BENCH N [PKG BENCH N ...]
#                       each variant's benchmarks (ab_bench, in the
#                       order given) in turn, twice round
#   ab_pipeline V...    the pipeline's benchmarks of each variant V in
#                       turn, twice round: NTT 2^20 and 2^24 resident
#                       (20x), the encoding (3x) and Vortex resident (5x)
#   ab_sis V...         SIS of 2^20 columns of 2^11 rows (5x) of each
#                       variant V in turn, twice round, then Vortex
#                       resident (5x) the same way (ab_rounds)
#   ab_whole PKG V DIR LIMIT
#                       run PKG-V.test's whole tests (no -short, as the
#                       suite runs them) from DIR, stopped after LIMIT
#                       seconds, the log in $OUT/test-PKG-V.log
#   ab_logs             join $OUT's test logs into $OUT/tests.txt (the
#                       device returns at most eight files)
# Benchmarks run on Vulkan (WGCOMPUTE_BACKEND), tests on every adapter.
set -u

ab_setup() {
	ab_dir=$(mktemp -d)
	tar xJf "$1" -C "$ab_dir"
	ab_bin=$ab_dir/$(basename "$1" .tar.xz)
	ab_root=$(pwd)
	ab_out=${OUT:-.}
	nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
}

ab_test() {
	echo "=== $(date +%T) tests, $1-$2"
	(cd "$ab_root/algos/$1" && "$ab_bin/$1-$2.test" -test.count=1 -test.short -test.run "$3" >"$ab_out/test-$1-$2.log" 2>&1
		echo "$1-$2 tests rc=$?")
}

ab_bench() {
	echo "=== $(date +%T) $1-$2 $3"
	(cd "$ab_root/algos/$1" && WGCOMPUTE_BACKEND=vulkan "$ab_bin/$1-$2.test" -test.run X -test.bench "$3" -test.benchtime "$4x" 2>&1 | grep '^Benchmark')
}

ab_rounds() {
	local vs=$1 round v i
	shift
	for round in 1 2; do
		for v in $vs; do
			for ((i = 1; i + 2 <= $#; i += 3)); do
				ab_bench "${!i}" "$v" "${@:i+1:1}" "${@:i+2:1}"
			done
		done
	done
}

ab_pipeline() {
	ab_rounds "$*" ntt 'NTT$/2\^(20|24)/resident' 20 \
		ntt 'Encode/2048x2\^19/rate2/resident$' 3 \
		vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
}

ab_sis() {
	ab_rounds "$*" sis 'SISColumns/vulkan/2048x1048576' 5
	ab_rounds "$*" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
}

ab_whole() {
	echo "=== $(date +%T) whole tests, $1-$2"
	(cd "$ab_root/$3" && timeout "$4" "$ab_bin/$1-$2.test" -test.count=1 -test.timeout 8m >"$ab_out/test-$1-$2.log" 2>&1
		echo "$1-$2 tests rc=$?")
	grep -E '^(ok|PASS|FAIL|--- FAIL)' "$ab_out/test-$1-$2.log" | head -5
}

ab_logs() {
	(cd "$ab_out" && for f in test-*.log; do
		[ -e "$f" ] || continue
		echo "##### $f"
		cat "$f"
	done >tests.txt && rm -f test-*.log)
}
