#!/usr/bin/env bash
# The encoding writes Vortex's column tiles itself (tiles: the last pass
# stores through ntt_tiles.wgsl, no scratch buffer and no copy) against
# the head before it (old, 8332557), in one run: the tests that run the
# tiles first, then the benchmarks interleaved twice. Binaries (go test
# -c, stripped) packed as .bin/ab20.tar.xz. From the project root on the
# GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-tiles.sh
. bench/results/ab.sh
ab_setup .bin/ab20.tar.xz
ab_test ntt tiles 'Extend|Encode'
ab_test vortex tiles 'Commit|Linea|Committer|Layout|Copy|Bad|Split'
for round in 1 2; do
	for v in old tiles; do
		ab_bench ntt $v 'NTT$/2\^(20|24)/resident' 20
		ab_bench ntt $v 'Encode/2048x2\^19/rate2/resident$' 3
		ab_bench vortex $v '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
	done
done
echo "=== $(date +%T) done"
