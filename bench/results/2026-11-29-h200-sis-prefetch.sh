#!/usr/bin/env bash
# SIS's columns with the next polynomial's elements loaded before this
# one's passes (pre) against the head before it (old, 47481bf), alone and
# inside Vortex's commitment, in one run: the tests of the changed
# kernel first, then the benchmarks interleaved twice. Binaries (go test
# -c, stripped) packed as .bin/ab9.tar.xz. From the project root on the
# GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-sis-prefetch.sh
. bench/results/ab.sh
ab_setup .bin/ab9.tar.xz
ab_test sis pre '.'
ab_sis old pre
echo "=== $(date +%T) done"
