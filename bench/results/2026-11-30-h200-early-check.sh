#!/usr/bin/env bash
# Three changes against the head (old, f41839e), in one run: the
# encoding's input (NT_AUX) loaded at the last DIT pass's start instead
# of before its last round's butterflies (early), and the rows' check
# adding check_base once at the pass's end (chkb) and, besides, taking a
# branch where a word is not reduced instead of a select (chkif). The
# pipeline's benchmarks interleaved twice; then the tests at the head
# (the whole tests of algos/vortex and algos/lde, algos/ntt's encodings
# and tiles) and early's. Binaries (go test -c, stripped) packed as .bin/ab1.tar.xz.
# From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-early-check.sh
. bench/results/ab.sh
ab_setup .bin/ab1.tar.xz
ab_pipeline old early chkb chkif
ab_whole vortex old algos/vortex 100
ab_whole lde old algos/lde 60
ab_test ntt old 'Extend|Encode|Fixed|Bare'
ab_whole vortex early algos/vortex 100
ab_test ntt early 'Extend|Encode|Fixed|Bare'
echo "=== $(date +%T) done"
ab_logs
