#!/usr/bin/env bash
# What SIS's trips through workgroup memory cost, and two small changes.
# head = b8e32f0 (the prefetch, 8f06042); pfk = head with the key's eight
# evaluations loaded before the passes too; acr = head with the loads'
# layout fixed to row-major (a constant instead of the strides' test);
# not1 and not3 are ablations, wrong results, timing only: not1 without
# the trip before pass 0 (each invocation twists limbs of its own loads),
# not3 without the swap before the last pass. SIS alone (row-major),
# twice round; Vortex resident (head, pfk), twice round. Then the head's
# whole tests of algos/sis, algos/vortex and algos/ntt. Binaries (go test
# -c, stripped) packed as .bin/ab3.tar.xz. From the project root on the
# GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-sis-trips.sh
. bench/results/ab.sh
ab_setup .bin/ab3.tar.xz
ab_rounds "head pfk acr not1 not3" sis 'SISColumns/vulkan/2048x1048576/row-major' 5
ab_rounds "head pfk" vortex '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
ab_whole sis head algos/sis 60
ab_whole vortex head algos/vortex 90
ab_whole ntt head algos/ntt 260
echo "=== $(date +%T) done"
ab_logs
