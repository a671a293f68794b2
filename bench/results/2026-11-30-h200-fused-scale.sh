#!/usr/bin/env bash
# The fused pass's scales, against the rows' check by a branch (chk: the
# head, f41839e, with ntt_check.wgsl's branch), in one run: sc3, the
# inverse's 1/n and the coset's g^i as one table of g^i/n, one product
# where there were two; lone, sc3 and the fused pass's inverse's last
# stage, the scales and its own first stage run together on each pair
# of an odd m (no trip through workgroup memory, and no barrier,
# between them). The pipeline's benchmarks, the batched coset NTT,
# Linea's commitment and Plonky3's LDE and commitment, interleaved
# twice; then the whole tests of algos/vortex and algos/lde with lone.
# Binaries (go test -c, stripped) packed as .bin/ab2.tar.xz. From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-fused-scale.sh
. bench/results/ab.sh
ab_setup .bin/ab2.tar.xz
ab_pipeline chk sc3 lone
ab_rounds "chk sc3 lone" ntt 'NTTBatch' 20 \
	vortex '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5 \
	lde 'Commit/babybear/2\^20x128/rate=2/commit$' 5
ab_whole vortex lone algos/vortex 100
ab_whole lde lone algos/lde 60
echo "=== $(date +%T) done"
ab_logs
