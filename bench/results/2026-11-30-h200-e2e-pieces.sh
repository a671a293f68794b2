#!/usr/bin/env bash
# Vortex end to end (2^11 x 2^19, a Committer's steady state) with a
# shorter first upload: ramp = the first pieces 1/16, 1/16, 1/8, 1/4 and
# 1/2 of a piece (head: 1/4, 1/4, 1/2), ramp16 = ramp with pieces of 128
# rows (overlapPieces 16) instead of 256, head = 6af0819. Interleaved
# twice round; then one traced run (3 commitments) of head and ramp16;
# then the head's whole tests of algos/ntt (3071d21's nt_block_stage on
# the H200). Binaries (go test -c, stripped) packed as .bin/ab7.tar.xz.
# From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-e2e-pieces.sh
. bench/results/ab.sh
ab_setup .bin/ab7.tar.xz
ab_rounds "head ramp ramp16" vortex '^BenchmarkVortex$/2\^11x2\^19/e2e$' 5
for v in head ramp16; do
	echo "=== $(date +%T) trace vortex-$v"
	(cd algos/vortex && WGCOMPUTE_BACKEND=vulkan VORTEX_BENCH_TRACE=$ab_out/trace-$v.txt "$ab_bin/vortex-$v.test" -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/trace$' -test.benchtime 3x 2>&1 | grep '^Benchmark')
done
ab_whole ntt head algos/ntt 330
echo "=== $(date +%T) done"
ab_logs
