#!/usr/bin/env bash
# SIS without its first trip through workgroup memory: each invocation
# loads the elements of its own pass-0 points (two invocations an element,
# one limb each), neighbouring invocations of neighbouring columns, and
# the columns' places mixed anew so that the swaps stay free of bank
# conflicts (new), against the head (8cf42fb: the limbs stored into
# workgroup memory and read back in pass 0's order). SIS alone
# (row-major, as Vortex), Vortex and Linea's commitment resident, twice
# round; then new's whole tests of algos/sis and algos/vortex. Binaries
# (go test -c, stripped) packed as .bin/ab4.tar.xz. From the project root
# on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-sis-direct.sh
. bench/results/ab.sh
ab_setup .bin/ab4.tar.xz
ab_rounds "head new" sis 'SISColumns/vulkan/2048x1048576' 5
ab_rounds "head new" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5 \
	vortex '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5
ab_whole sis new algos/sis 60
ab_whole vortex new algos/vortex 90
echo "=== $(date +%T) done"
ab_logs
