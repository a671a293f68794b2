#!/usr/bin/env bash
# Twiddles of one again (NT_UNIT), its rounds written out as nt_radix16's
# listing is (unit), against the head before it (old); and Vortex's copy
# of the codewords into column tiles four words an invocation, one
# division a workgroup (copy, over unit). In one run, the tests
# of the changed kernels first, then the benchmarks interleaved twice.
# Binaries (go test -c, stripped) packed as .bin/ab8.tar.xz. From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-unit-copy.sh
. bench/results/ab.sh
ab_setup .bin/ab8.tar.xz
ab_test ntt unit 'TestGPU$|TestEncodeGPU|TestExtendFused|TestExtendGPU|TestGoldilocksGPU|TestEncodeMonty|TestExtendMonty|TestPlanPasses'
ab_test vortex copy 'Commit|Linea|Committer|Layout'
for round in 1 2; do
	for v in old unit; do
		ab_bench ntt $v 'NTT$/2\^(20|22|24)/resident' 20
		ab_bench ntt $v 'NTTBatch' 20
		ab_bench ntt $v 'Encode/2048x2\^19/rate2/resident$' 3
	done
	for v in old unit copy; do
		ab_bench vortex $v '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
	done
done
echo "=== $(date +%T) done"
