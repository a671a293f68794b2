#!/usr/bin/env bash
# cmd/internal/selftest's whole tests with the fused pass's low stages
# (2026-11-30-h200-fused-low.sh stopped them at 40 s, under the 70 s they
# take). Binary (go test -c, stripped) packed as .bin/ab4.tar.xz. From
# the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-selftest.sh
. bench/results/ab.sh
ab_setup .bin/ab4.tar.xz
ab_whole selftest low cmd/internal/selftest 170
echo "=== $(date +%T) done"
ab_logs
