#!/usr/bin/env bash
# SIS without its first trip (new, 2026-11-30-h200-sis-direct.sh) holds
# eight loaded elements instead of four: whether registers now bound it.
# v1 = new with the twists (psi^k) read where used instead of held; v2 =
# v1 with pass 1's twiddles read for each polynomial too. head = 8cf42fb.
# SIS alone column-major and row-major, then row-major again; Vortex
# resident, twice round; then v1's whole tests of algos/sis and
# algos/vortex. Binaries (go test -c, stripped) packed as .bin/ab5.tar.xz.
# From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-sis-registers-2.sh
. bench/results/ab.sh
ab_setup .bin/ab5.tar.xz
for v in head new v1 v2; do ab_bench sis $v 'SISColumns/vulkan/2048x1048576' 5; done
for v in head new v1 v2; do ab_bench sis $v 'SISColumns/vulkan/2048x1048576/row-major' 5; done
ab_rounds "head new v1 v2" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
ab_whole sis v1 algos/sis 60
ab_whole vortex v1 algos/vortex 90
echo "=== $(date +%T) done"
ab_logs
