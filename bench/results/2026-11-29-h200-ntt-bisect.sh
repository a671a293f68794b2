#!/usr/bin/env bash
# Which commit between 743cd80 and the head moved the 2^24 NTT's kernels
# (0.415 ms measured at 743cd80, 0.510 at f920258): ntt.test built at each
# commit that touched algos/ntt or the WGSL it includes, packed as
# .bin/bisx/bis.tar.xz (bis/ntt-COMMIT.test), run in turn twice in one
# device call. From the project root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-bisect.sh
set -u
export WGCOMPUTE_BACKEND=vulkan
dir=$(mktemp -d)
tar xJf .bin/bisx/bis.tar.xz -C "$dir"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
order="4a16f98 743cd80 e4d38d5 a26a47c bbe7271 9ae62ed 09369b3 495291b 16b5153 c5815ee 685fe90 6368b61 f920258"
"$dir/bis/ntt-f920258.test" -test.run X -test.bench 'NTT$/2\^24/resident' -test.benchtime 200x >/dev/null 2>&1 # warm the clocks
for round in 1 2; do
	for c in $order; do
		echo "=== round $round $c"
		"$dir/bis/ntt-$c.test" -test.run X -test.bench 'NTT$/2\^(20|24)/resident/out=bitreversed' -test.benchtime 20x 2>&1 | grep '^Benchmark'
	done
done
