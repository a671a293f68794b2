#!/usr/bin/env bash
# The tiles' stores, second form (tiles2: a whole row's store index as
# before, less the tile's first column in ntt_tiles.wgsl, so that the
# passes that write whole rows compute what they did at the head; the
# first form, 2026-11-30-h200-static-tiles.sh, measured Reed-Solomon
# alone 0.5% slower), against the head before it (old, fc8b87a), in one
# run: the pipeline's benchmarks, the batched coset NTT, Linea's
# commitment and Plonky3's LDE and commitment interleaved twice, then
# the whole tests (no -short) of algos/vortex, algos/lde and algos/ntt
# with the change. Binaries (go test -c, stripped) packed as
# .bin/ab32.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-static-tiles-2.sh
. bench/results/ab.sh
ab_setup .bin/ab32.tar.xz
ab_pipeline old tiles2
for round in 1 2; do
	for v in old tiles2; do
		ab_bench ntt "$v" 'NTTBatch' 20
		ab_bench vortex "$v" '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5
		ab_bench lde "$v" 'Commit/babybear/2\^20x128/rate=2/commit$' 5
	done
done
ab_whole vortex tiles2 algos/vortex 100
ab_whole lde tiles2 algos/lde 60
ab_whole ntt tiles2 algos/ntt 280
echo "=== $(date +%T) done"
