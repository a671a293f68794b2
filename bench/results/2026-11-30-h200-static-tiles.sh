#!/usr/bin/env bash
# Vortex's encoding writes its eight column tiles itself, each store's
# tile a constant (tiles: the last round of the last DIT pass, whose
# element x lies in tile x >> (4 - log2 tiles); ntt_tiles.wgsl), against
# the head before it (old, fc8b87a), in one run: the pipeline's
# benchmarks interleaved twice, then the whole tests (no -short, as the
# suite runs them) of algos/vortex, algos/lde and algos/ntt with the
# change. Binaries (go test -c, stripped) packed as .bin/ab31.tar.xz.
# From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-static-tiles.sh
. bench/results/ab.sh
ab_setup .bin/ab31.tar.xz
ab_pipeline old tiles
ab_whole vortex tiles algos/vortex 120
ab_whole lde tiles algos/lde 90
ab_whole ntt tiles algos/ntt 300
echo "=== $(date +%T) done"
