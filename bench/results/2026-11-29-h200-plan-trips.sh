#!/usr/bin/env bash
# The suite's first pack at 03fab41 (algos/ntt's binary left out: it runs
# at eafc732 below), then planPasses' split of the strided bits by trips
# through workgroup memory (new: eafc732) against d370e96 (old: 03fab41's
# kernels and plans, with BenchmarkNTTSchedule's passes one by one), in
# one device call: the new binary's tests, the transforms interleaved
# twice, the policies of 2^24 side by side, and each pass of 2^24 alone,
# bare and not. Binaries (go test -c, stripped, xz): .bin/ntt-plan.test.xz
# (new), .bin/ntt-sched.test.xz (old); the suite's packs from
# scripts/gpu-tests.sh build -o .bin/gt, with re1 the alternation of pack
# 1's import paths but algos/ntt's. From the project root on the GPU
# machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-plan-trips.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
out=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
tar xJf .bin/gt/gpu-tests-1.tar.xz -C "$dir" gpu-tests/gpu-tests.sh gpu-tests/src
echo "=== $(date +%T) suite, pack 1"
bash "$dir/gpu-tests/gpu-tests.sh" run -l "$dir/logs" -t 8m -p "$(cat .bin/gt/re1)" .bin/gt/gpu-tests-1.tar.xz
xz -dc .bin/ntt-plan.test.xz >"$dir/ntt-new.test"
xz -dc .bin/ntt-sched.test.xz >"$dir/ntt-old.test"
chmod +x "$dir"/ntt-*.test
src=$dir/gpu-tests/src/algos/ntt
echo "=== $(date +%T) ntt-new tests"
start=$(date +%s)
(cd "$src" && "$dir/ntt-new.test" -test.count=1 -test.v -test.timeout 280s >"$dir/logs/ntt-new.log" 2>&1)
echo "ntt-new.test rc=$? $(($(date +%s) - start)) s: $(grep -c -- '--- PASS' "$dir/logs/ntt-new.log") passed, $(grep -c -- '--- FAIL' "$dir/logs/ntt-new.log") failed"
for round in 1 2; do
	for v in old new; do
		echo "=== $(date +%T) round $round $v"
		(cd "$src" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTT$/2\^(20|22|24)/resident' -test.benchtime 20x 2>&1 | grep '^Benchmark')
	done
done
echo "=== $(date +%T) policies, new"
(cd "$src" && "$dir/ntt-new.test" -test.run X -test.bench 'NTTConfig/1x2\^24/(default|wg256/tile12)' -test.benchtime 100x 2>&1 | grep '^Benchmark\|differs')
for v in old new; do
	echo "=== $(date +%T) schedule $v"
	(cd "$src" && "$dir/ntt-$v.test" -test.run X -test.bench 'NTTSchedule/1x2\^24' -test.benchtime 20x 2>&1 | grep '^Benchmark')
done
echo "=== $(date +%T) done"
tar czf "$out/logs.tgz" -C "$dir" logs
