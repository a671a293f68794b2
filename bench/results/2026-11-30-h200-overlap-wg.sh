#!/usr/bin/env bash
# Three questions about Vortex's hashes, and the head's tests. (1) SIS and
# the leaves' sponge side by side: BenchmarkHashesOverlap (SIS alone, the
# sponge alone, both in one run with no barrier between them). (2) SIS's
# workgroup: 256 invocations (four columns; the head), 128 (w128) and 64
# (w64), and the next polynomial's loads ahead again (pf, with the loads
# kept raw until used: 2026-11-30-prepared-sis-prefetch.patch); SIS alone
# (row-major, as Vortex) and Vortex resident, twice round. (3) The
# encoding at the head (db67753: nt_fuse_low calling nt_one/nt_dif/nt_dit)
# against 7dba386 (old). Then the head's whole tests of algos/vortex.
# Binaries (go test -c, stripped) packed as .bin/ab1.tar.xz. From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-overlap-wg.sh
. bench/results/ab.sh
ab_setup .bin/ab1.tar.xz
ab_bench vortex head HashesOverlap 5
ab_rounds "head w128 w64 pf" sis 'SISColumns/vulkan/2048x1048576/row-major' 5
ab_rounds "head w128 w64 pf" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
ab_bench vortex head HashesOverlap 5
ab_rounds "old head" ntt 'Encode/2048x2\^19/rate2/resident$' 3
ab_whole vortex head algos/vortex 90
echo "=== $(date +%T) done"
ab_logs
