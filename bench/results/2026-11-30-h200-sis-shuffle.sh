#!/usr/bin/env bash
# SIS's swap next to its last pass through subgroup shuffles (sub: three
# rounds of subgroupShuffleXor within groups of eight invocations, where
# the adapter has subgroups of eight or more) against the head before it
# (old, fc8b87a), in one run: SIS's and Vortex's benchmarks interleaved
# twice, then the whole tests (no -short, as the suite runs them) of
# algos/sis and algos/vortex with the change, and of wgpu, algos/lde and
# algos/ntt at the head. Binaries (go test -c, stripped) packed as
# .bin/ab30.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-sis-shuffle.sh
. bench/results/ab.sh
ab_setup .bin/ab30.tar.xz
ab_sis old sub
ab_whole sis sub algos/sis 120
ab_whole vortex sub algos/vortex 120
ab_whole wgpu old wgpu 90
ab_whole lde old algos/lde 90
ab_whole ntt old algos/ntt 330
echo "=== $(date +%T) done"
