#!/usr/bin/env bash
# Vortex's check of the rows in the encoding's first pass, second form
# (chk2: each invocation keeps the smallest index it found in a register
# and makes one atomic at the pass's end; the first form's atomic beside
# each load cost 3 ms, 2026-11-30-h200-fused-check.sh), against the head
# before it (old, 8332557), in one run: the benchmarks interleaved twice,
# then the whole tests of algos/ntt and algos/vortex (no -short, as the
# suite runs them). Binaries (go test -c, stripped) packed as
# .bin/ab23.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-fused-check-2.sh
. bench/results/ab.sh
ab_setup .bin/ab23.tar.xz
ab_pipeline old chk2
for p in vortex ntt; do
	echo "=== $(date +%T) whole tests, $p-chk2"
	(cd "algos/$p" && "$ab_bin/$p-chk2.test" -test.count=1 -test.timeout 8m >"$ab_out/test-$p-chk2.log" 2>&1
		echo "$p-chk2 tests rc=$?")
done
echo "=== $(date +%T) done"
