#!/usr/bin/env bash
# Vortex's check of the rows in the encoding's first pass (chk: the pass
# reads every element once and records the first that is not reduced,
# ntt_check.wgsl; the check kernel goes) against the head before it
# (old, 8332557), in one run: the tests that run the check first, then
# the benchmarks interleaved twice. Binaries (go test -c, stripped)
# packed as .bin/ab22.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-fused-check.sh
. bench/results/ab.sh
ab_setup .bin/ab22.tar.xz
ab_test ntt chk 'Extend|Encode|Fixed'
ab_test vortex chk 'Commit|Linea|Committer|Layout|Copy|Bad|Split'
for round in 1 2; do
	for v in old chk; do
		ab_bench ntt $v 'NTT$/2\^(20|24)/resident' 20
		ab_bench ntt $v 'Encode/2048x2\^19/rate2/resident$' 3
		ab_bench vortex $v '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
	done
done
echo "=== $(date +%T) done"
