#!/usr/bin/env bash
# Vortex's check of the rows in the encoding's first pass (chk: the pass
# reads every element once and records the first that is not reduced,
# ntt_check.wgsl; the check kernel goes) against the head before it
# (old, 8332557), in one run: the tests that run the check first, then
# the benchmarks interleaved twice. Binaries (go test -c, stripped)
# packed as .bin/ab22.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-fused-check.sh
. bench/results/ab.sh
ab_setup .bin/ab22.tar.xz
ab_test ntt chk 'Extend|Encode|Fixed'
ab_test vortex chk 'Commit|Linea|Committer|Layout|Copy|Bad|Split'
ab_pipeline old chk
echo "=== $(date +%T) done"
