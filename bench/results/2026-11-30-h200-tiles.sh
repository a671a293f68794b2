#!/usr/bin/env bash
# The encoding writes Vortex's column tiles itself (tiles: the last pass
# stores through ntt_tiles.wgsl, no scratch buffer and no copy) against
# the head before it (old, 8332557), in one run: the tests that run the
# tiles first, then the benchmarks interleaved twice. Binaries (go test
# -c, stripped) packed as .bin/ab20.tar.xz. From the project root on the
# GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-tiles.sh
. bench/results/ab.sh
ab_setup .bin/ab20.tar.xz
ab_test ntt tiles 'Extend|Encode'
ab_test vortex tiles 'Commit|Linea|Committer|Layout|Copy|Bad|Split'
ab_pipeline old tiles
echo "=== $(date +%T) done"
