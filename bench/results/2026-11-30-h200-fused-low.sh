#!/usr/bin/env bash
# The fused pass's low stages, against its lone stage (lone: the rows'
# check by a branch, the scales as one table and the lone stage run with
# them, 2026-11-30-h200-fused-scale.sh): low runs all the inverse's
# stages below its rounds (m mod 4 of them: a pair and a stage alone for
# the encoding's rows of 2^19), the scales and its own stages there on
# each block of 2^(m mod 4) elements in registers. The pipeline's
# benchmarks and Linea's commitment, interleaved twice; then low's whole
# tests: algos/vortex, algos/lde, algos/ntt, cmd/internal/selftest and
# wgbench's nttcmd and bench. Binaries (go test -c, stripped) packed as
# .bin/ab3.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-fused-low.sh
. bench/results/ab.sh
ab_setup .bin/ab3.tar.xz
ab_pipeline lone low
ab_rounds "lone low" vortex '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5
ab_whole vortex low algos/vortex 60
ab_whole lde low algos/lde 50
for p in cmd/internal/selftest cmd/wgbench/internal/nttcmd cmd/wgbench/internal/bench; do
	ab_whole "$(basename "$p")" low "$p" 40
done
ab_whole ntt low algos/ntt 260
echo "=== $(date +%T) done"
ab_logs
