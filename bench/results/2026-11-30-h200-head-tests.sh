#!/usr/bin/env bash
# The test binaries at the head (91c2a88) of algos/ntt (-short: its whole
# tests passed at 043a0d9, 2026-11-30-h200-fused-check-2.txt; 91c2a88
# changes only a bare pass's round) and of the packages that import it
# and run its kernels: algos/lde, cmd/internal/selftest and wgbench's
# nttcmd and bench, each from its package directory. Binaries (go test
# -c, stripped) packed as .bin/ab24.tar.xz. From the project root on the
# GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-head-tests.sh
set -u
dir=$(mktemp -d)
tar xJf .bin/ab24.tar.xz -C "$dir"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for p in algos/ntt algos/lde cmd/internal/selftest cmd/wgbench/internal/nttcmd cmd/wgbench/internal/bench; do
	n=$(basename "$p")
	flags=""
	[ "$n" = ntt ] && flags="-test.short"
	echo "=== $(date +%T) $p"
	(cd "$p" && timeout 150 "$dir/ab24/$n.test" -test.count=1 $flags >"${OUT:-.}/test-$n.log" 2>&1
		echo "$p rc=$?")
	grep -E '^(ok|PASS|FAIL|--- FAIL)' "${OUT:-.}/test-$n.log" | head -5
done
echo "=== $(date +%T) done"
