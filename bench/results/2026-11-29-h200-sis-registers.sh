#!/usr/bin/env bash
# SIS's columns with the twiddles and twists read where used, for every
# polynomial, instead of held in registers across the loop (reg), against
# the head before it (old, ee8f194), alone and inside Vortex's
# commitment, in one run: the tests of the changed kernel first,
# then the benchmarks interleaved twice. Binaries (go test -c, stripped)
# packed as .bin/ab11.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-sis-registers.sh
. bench/results/ab.sh
ab_setup .bin/ab11.tar.xz
ab_test sis reg '.'
ab_sis old reg
echo "=== $(date +%T) done"
