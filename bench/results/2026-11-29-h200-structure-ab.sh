#!/usr/bin/env bash
# Issue 41's "no kernel slower": the structural step's head against the
# commit before it, in one device call, old and new interleaved twice.
#   old = 4a16f98 (the parent of 664f887, the step's first commit)
#   new = the head named in BENCHMARKS.md
# Binaries (stripped, linux/amd64), packed as .bin/abx/ab.tar.xz:
#   e2e-{old,new}:          go build ./bench/e2e
#   ntt-{old,new}.test:     go test -c ./algos/ntt
#   vortex-{old,new}.test:  go test -c ./algos/vortex
# Run on the GPU machine from the project root:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-structure-ab.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/abx/ab.tar.xz -C "$dir"
cd "$dir/ab"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for round in 1 2; do
	for v in old new; do
		echo "=== $(date +%T) round $round $v ntt"
		./ntt-$v.test -test.run X -test.bench 'NTT$/2\^(20|24)/resident' -test.benchtime 20x
		echo "=== $(date +%T) round $round $v vortex"
		./vortex-$v.test -test.run X -test.bench '^BenchmarkVortex$/2\^11x2\^19/(resident|e2e)$' -test.benchtime 5x
		./vortex-$v.test -test.run X -test.bench '^BenchmarkLinea$/2\^9x2\^16/rate2/e2e$' -test.benchtime 50x
		echo "=== $(date +%T) round $round $v e2e scaling"
		./e2e-$v -what scaling -counts 1 -pairs 4194304 -leaves 1048576
	done
done
echo "=== $(date +%T) done"
