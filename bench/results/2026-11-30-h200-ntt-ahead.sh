#!/usr/bin/env bash
# A pass's workgroups take 2^aheadLog tiles in turn and read each next
# tile's first round while running this one's stages (NT_AHEAD). new =
# aheadLog 2 (the working tree on 6af0819), a1 / a3 = aheadLog 1 / 3,
# head = 6af0819, base = cc6b975 (before 3071d21's nt_block_stage, which
# the encoding's fused pass runs). The encoding (base too), the NTTs of
# 2^20 and 2^24, then Vortex's and Linea's commitments resident and
# Vortex's end to end, each interleaved twice round; then new's whole
# tests of algos/ntt. Binaries (go test -c, stripped) packed as
# .bin/ab6.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-ntt-ahead.sh
. bench/results/ab.sh
ab_setup .bin/ab6.tar.xz
ab_rounds "base head new a1 a3" ntt 'Encode/2048x2\^19/rate2/resident$' 3
ab_rounds "head new a1 a3" ntt 'NTT$/2\^(20|24)/resident' 20
ab_rounds "head new" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5 \
	vortex '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5
ab_rounds "head new" vortex '^BenchmarkVortex$/2\^11x2\^19/e2e$' 5
ab_whole ntt new algos/ntt 200
echo "=== $(date +%T) done"
ab_logs
