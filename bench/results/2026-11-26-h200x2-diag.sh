#!/usr/bin/env bash
# Diagnostics at 301ab13: where one-shot and two-GPU work loses time (traces, ratios).
# Binaries (xz) in .bin/d: wgbench, e2e, eigen.test and gen (a generator of
# pseudo-random inputs: "raw N" bytes, "64 N" uint64 below 2^63).
set -u
B=$PWD/.bin/d
cd $B && for f in *.xz; do xz -d "$f"; done; chmod +x *; cd - >/dev/null
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; date -u; df -h /dev/shm | tail -1
sec() { echo; echo "=== $*"; }
tm() { local s=$(date +%s%N); "$@" >/dev/null 2>/tmp/err || { echo "FAILED: $*"; tail -3 /tmp/err; }; local e=$(date +%s%N); printf '%d ' $(( (e - s) / 1000000 )); }
runs() { local l=$1; shift; "$@" >/dev/null 2>&1; printf '%-40s' "$l"; for i in 1 2 3 4 5; do tm "$@"; done; echo; }
S=/dev/shm
$B/gen raw 1073741824 > $S/g1
$B/gen 64 67108864 > $S/leaves24
$B/gen 64 134217728 > $S/pairs   # 2^24 P2 pairs = 1 GiB of u64
sec devices
runs "devices" $B/wgbench devices
$B/wgbench devices 2>&1 | head -20
sec b3sum gpu 4 GiB and 16 GiB
cat $S/g1 $S/g1 $S/g1 $S/g1 > $S/g4
for d in 1 all; do runs "b3sum gpu 4G dev=$d" $B/wgbench --devices $d b3sum --device gpu $S/g4; done
runs "b3sum cpu 4G" $B/wgbench b3sum --device cpu $S/g4
for d in 1 all; do $B/wgbench --devices $d --trace b3sum --device gpu $S/g4 2>&1 | tail -28; done
cat $S/g4 $S/g4 $S/g4 $S/g4 > $S/g16; rm $S/g4
for d in 1 all; do runs "b3sum gpu 16G dev=$d" $B/wgbench --devices $d b3sum --device gpu $S/g16; done
runs "b3sum cpu 16G" $B/wgbench b3sum --device cpu $S/g16
for d in 1 all; do $B/wgbench --devices $d --trace b3sum --device gpu $S/g16 2>&1 | tail -28; done
rm $S/g16
sec e2e transfer and scaling 2^24 rescue merkle
timeout 200 $B/e2e -what scaling -reps 3 -resident 1073741824 -pairs 16777216 -leaves 16777216 2>&1 | tail -30
sec merkle rescue 2^24 traces
for d in 1 all; do runs "merkle rescue 2^24 dev=$d" $B/wgbench --devices $d merkle --hash rescue --in $S/leaves24; done
for d in 1 all; do $B/wgbench --devices $d --trace merkle --hash rescue --in $S/leaves24 2>&1 | tail -30; done
sec poseidon2 merge 2^24 pairs from a file, trace
runs "poseidon2 merge 2^24" $B/wgbench poseidon2 merge --in $S/pairs --out /dev/null
$B/wgbench --trace poseidon2 merge --in $S/pairs --out /dev/null 2>&1 | tail -30
sec bench poseidon2 default staging and 4x64MiB
timeout 120 $B/wgbench bench poseidon2 --no-progress --repeats 3 2>&1 | tail -30
timeout 120 $B/wgbench bench poseidon2 --no-progress --repeats 3 --staging-mib 64 --staging-slots 4 2>&1 | tail -14
sec eigen
cd $B && timeout 60 ./eigen.test -test.run '^$' -test.bench 'BenchmarkMaxEigenHilbert/v2/n=8192$|BenchmarkRowSums/v2/n=8192$' -test.benchtime 20x 2>&1 | grep Bench
