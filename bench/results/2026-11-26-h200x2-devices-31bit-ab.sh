#!/usr/bin/env bash
set -u
cd .bin/g && for f in *.xz; do xz -dk "$f"; done; chmod +x *; cd ../..
B=.bin/g
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; date -u
tm() { local s=$(date +%s%N); "$@" >/dev/null 2>/tmp/err || { echo "FAILED: $*"; tail -3 /tmp/err; }; local e=$(date +%s%N); printf '%d ' $(( (e - s) / 1000000 )); }
runs() { local l=$1; shift; "$@" >/dev/null 2>&1; printf '%-40s' "$l"; for i in 1 2 3 4 5; do tm "$@"; done; echo; }
S=/dev/shm
$B/gen 64 16777216 > $S/leaves22; $B/gen 64 67108864 > $S/leaves24; $B/gen 64 268435456 > $S/leaves26; $B/gen 31 134217728 > $S/mat31
echo "=== one-shot, ms, new binary"
for n in 22 24 26; do for d in 1 all; do runs "merkle rescue 2^$n --devices $d" $B/wgbench --devices $d merkle --hash rescue --in $S/leaves$n; done; done
runs "commit babybear 1Mx128" $B/wgbench commit --field babybear --hash poseidon2 --matrix 1048576x128 --in $S/mat31
runs "commit koalabear 1Mx128" $B/wgbench commit --field koalabear --hash poseidon2 --matrix 1048576x128 --in $S/mat31
runs "commit babybear 1Mx128 --devices all" $B/wgbench --devices all commit --field babybear --hash poseidon2 --matrix 1048576x128 --in $S/mat31
$B/wgbench --devices all --trace merkle --hash rescue --in $S/leaves26 2>&1 | grep -E "request device|wait for kernels|upload  |wall since|^[0-9a-f]{64}"
$B/wgbench --devices 1 --trace merkle --hash rescue --in $S/leaves26 2>&1 | grep -E "request device|wait for kernels|upload  |wall since|^[0-9a-f]{64}"
rm -f $S/leaves* $S/mat31
cd $B
echo "=== A/B: 31-bit permutations, before (loops switching on the round) then after (straight-line), twice"
for i in 1 2; do for v in poseidon2-before poseidon2; do echo "-- $v"; timeout 60 ./$v.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 10x 2>&1 | grep "^Benchmark"; done; done
for v in merkle-before merkle; do echo "-- $v"; timeout 100 ./$v.test -test.run '^$' -test.bench 'CommitMatrix31/poseidon2-babybear/2\^2[04]x128/vulkan' -test.benchtime 5x 2>&1 | grep "^Benchmark"; done
echo "=== the new kernels' tests on this GPU"
timeout 90 ./poseidon2.test -test.run '31|Monty|Sponge|Batch' 2>&1 | tail -2
