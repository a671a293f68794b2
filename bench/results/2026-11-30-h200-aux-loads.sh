#!/usr/bin/env bash
# The encoding's input copied beside its coset (NT_AUX): the last
# round's sixteen loads of the input issued before any of its stores
# (aux1: after the butterflies; aux2: before them), against the head
# before it (old, 286ad84), where each load sits between two stores. In
# one run: NTT 2^24 resident (20x), the encoding (3x) and Vortex resident
# (5x) of each variant, interleaved twice, then the encodings' tests of
# both variants. Binaries (go test -c, stripped) packed as
# .bin/ab33.tar.xz. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-aux-loads.sh
. bench/results/ab.sh
ab_setup .bin/ab33.tar.xz
for round in 1 2; do
	for v in old aux1 aux2; do
		ab_bench ntt "$v" 'NTT$/2\^24/resident' 20
		ab_bench ntt "$v" 'Encode/2048x2\^19/rate2/resident$' 3
		ab_bench vortex "$v" '^BenchmarkVortex$/2\^11x2\^19/resident$' 5
	done
done
for v in aux1 aux2; do
	ab_test ntt "$v" 'Extend|Encode'
done
echo "=== $(date +%T) done"
