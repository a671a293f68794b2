#!/usr/bin/env bash
# The tiles' leaves written apart, and SIS's workgroup of 512. head =
# f128ef5; new = the SIS prefetch of the call before (pf) and each tile's
# leaves hashed into a buffer of its own, every tile's hash queued before
# the copies into the level (no barrier between the tiles' hashes); w512 =
# new with SIS's workgroup of 512 invocations (eight columns, each row's
# loads a 32-byte sector). SIS alone (row-major, as Vortex: head, pf,
# w512), Vortex resident and Linea's commitment resident (head, new,
# w512), twice round. Binaries (go test -c, stripped) packed as
# .bin/ab2.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-leaves-wg512.sh
. bench/results/ab.sh
ab_setup .bin/ab2.tar.xz
ab_rounds "head pf w512" sis 'SISColumns/vulkan/2048x1048576/row-major' 5
ab_rounds "head new w512" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5 \
	vortex '^BenchmarkLinea$/2\^11x2\^19/rate2/resident$' 5
echo "=== $(date +%T) done"
