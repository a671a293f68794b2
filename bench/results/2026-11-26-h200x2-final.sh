#!/usr/bin/env bash
# The GPU suite at c24a15d, then the several-GPU and one-shot measurements.
# Binaries: .bin/gt (scripts/gpu-tests.sh build), .bin/f (wgbench, e2e, gen, Debian b3sum; xz).
# Output: what came back of it (the start, with the suite summary, the one-device
# commitment rows and the same-GPU lines, was lost: only the last 11 kB return); the
# suite and samegpu were run again on the same machine for their lines (at the end).
set -u
R=$PWD
B=$PWD/.bin/f
cd $B && for f in *.xz; do xz -d "$f"; done; chmod +x *; cd $R
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; date -u
sec() { echo; echo "=== $*"; }
tm() { local s=$(date +%s%N); "$@" >/dev/null 2>/tmp/err || { echo "FAILED: $*"; tail -3 /tmp/err; }; local e=$(date +%s%N); printf '%d ' $(( (e - s) / 1000000 )); }
runs() { local l=$1; shift; "$@" >/dev/null 2>&1; printf '%-46s' "$l"; for i in 1 2 3 4 5; do tm "$@"; done; echo; }
sec the suite
(cd .bin/gt && tar xJf gpu-tests-1.tar.xz gpu-tests/gpu-tests.sh && timeout 260 bash gpu-tests/gpu-tests.sh run -t 150s gpu-tests-*.tar.xz 2>&1 | tail -40)
S=/dev/shm
$B/gen 64 134217728 > $S/m20    # 2^20 x 128 Goldilocks (1 GiB)
$B/gen 64 536870912 > $S/m22    # 2^22 x 128 (4 GiB)
$B/gen 64 67108864 > $S/leaves24
head -c 4096 /dev/urandom > $S/4k
sec two devices on one GPU
timeout 60 $B/e2e -what samegpu -pairs 16777216 -reps 5
sec commitments on two GPUs, library
timeout 120 $B/e2e -what scaling-commit -reps 7 2>&1 | grep -v '^device'
sec one-shot, 5 runs after a warm-up
runs "devices" $B/wgbench devices
runs "b3sum 4KiB" $B/wgbench b3sum $S/4k
runs "Debian b3sum 4KiB" $B/b3sum $S/4k
for d in 1 all; do runs "commit p2 2^20x128 --devices $d" $B/wgbench --devices $d commit --hash poseidon2 --matrix 1048576x128 --in $S/m20; done
for d in 1 all; do runs "commit p2 2^22x128 --devices $d" $B/wgbench --devices $d commit --hash poseidon2 --matrix 4194304x128 --in $S/m22; done
for d in 1 all; do runs "merkle rescue 2^24 --devices $d" $B/wgbench --devices $d merkle --hash rescue --in $S/leaves24; done
$B/wgbench --devices all commit --hash poseidon2 --matrix 1048576x128 --in $S/m20 > /tmp/a; $B/wgbench --devices 1 commit --hash poseidon2 --matrix 1048576x128 --in $S/m20 > /tmp/b; cmp /tmp/a /tmp/b && echo "roots equal"
$B/wgbench --devices all --trace commit --hash poseidon2 --matrix 4194304x128 --in $S/m22 2>&1 | tail -26
rm -f $S/m20 $S/m22 $S/leaves24
sec ladder to 2^20
timeout 100 $B/e2e -what ladder -reps 5 -ladder-max 20 2>&1
sec Permute31 at one clock
(cd .bin/gt && tar xJf gpu-tests-1.tar.xz gpu-tests/bin/algos-poseidon2.test && cd gpu-tests/bin && timeout 60 ./algos-poseidon2.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 5x 2>&1 | grep Bench)
