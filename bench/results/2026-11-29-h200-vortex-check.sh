#!/usr/bin/env bash
# Vortex's check of the rows four words an invocation (chk), and with the
# check and the copy into column tiles eight words an invocation (chk8:
# copyRun and checkRun 8·256), against the head before them (old,
# 47481bf), in one run: chk's tests first, then the benchmarks
# interleaved twice. Binaries (go test -c, stripped) packed as
# .bin/ab10.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-vortex-check.sh
. bench/results/ab.sh
ab_setup .bin/ab10.tar.xz
ab_test vortex chk 'Commit|Linea|Committer|Layout|Copy|Bad'
for round in 1 2; do
	for v in old chk chk8; do
		ab_bench vortex $v '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
	done
done
echo "=== $(date +%T) done"
