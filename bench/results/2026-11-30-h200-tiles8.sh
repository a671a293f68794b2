#!/usr/bin/env bash
# The encoding writes Vortex's eight column tiles itself (tiles8: the
# last pass stores through ntt_tiles.wgsl, eleven storage bindings; no
# scratch buffer and no copy) against the head before it (old, 8332557),
# in one run: the tests that run the tiles first, then the benchmarks
# interleaved twice. The first form (2026-11-30-h200-tiles.sh) took at
# most four tiles, and wgpu's Vulkan binding (2 GiB less a byte) cuts
# this commitment into eight: it ran the old path. Binaries (go test -c,
# stripped) packed as .bin/ab21.tar.xz. From the project root on the GPU
# machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-tiles8.sh
. bench/results/ab.sh
ab_setup .bin/ab21.tar.xz
ab_test ntt tiles8 'Extend|Encode'
ab_test vortex tiles8 'Commit|Linea|Committer|Layout|Copy|Bad|Split'
ab_pipeline old tiles8
echo "=== $(date +%T) done"
