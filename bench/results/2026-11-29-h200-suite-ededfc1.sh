#!/usr/bin/env bash
# The suite's packages that run the NTT's kernels (algos/ntt and every
# package that imports it), at ededfc1, on the GPU machine with no
# settings: the commits since 03fab41, whose whole suite passed there
# (2026-11-29-h200-suite-03fab41.txt), change algos/ntt and
# cmd/wgbench/internal/merklecmd only. The pack: scripts/gpu-tests.sh
# build's tree and these packages' binaries, as one .bin/gt-ntt.tar.xz
# (the whole suite's two packs are more than a call carries). From the
# project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-suite-ededfc1.sh
set -u
dir=$(mktemp -d)
out=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
tar xJf .bin/gt-ntt.tar.xz -C "$dir" gpu-tests/gpu-tests.sh
bash "$dir/gpu-tests/gpu-tests.sh" run -l "$out/logs" -t 8m \
	-p '^github\.com/wgcompute/wgcompute/(algos/(ntt|vortex|lde)|cmd/internal/selftest|cmd/wgbench|cmd/wgbench/internal/(bench|merklecmd|nttcmd|selftestcmd))$' \
	.bin/gt-ntt.tar.xz
