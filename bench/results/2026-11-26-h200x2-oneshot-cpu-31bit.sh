#!/usr/bin/env bash
# One GPU run: benchmarks and one-shot timings. Binaries in .bin/g (xz), base wgbench for A/B.
set -u
cd .bin/g && for f in *.xz; do xz -dk "$f" 2>/dev/null || true; done; chmod +x * 2>/dev/null; cd ../..
B=.bin/g
export PATH=$PWD/$B:$PATH
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
nproc; date -u
sec() { echo; echo "=== $*"; }
tm() { local s=$(date +%s%N); "$@" >/dev/null 2>/tmp/err || { echo "FAILED: $*"; tail -3 /tmp/err; }; local e=$(date +%s%N); printf '%d ' $(( (e - s) / 1000000 )); }
runs() { # label, command...
  local l=$1; shift; "$@" >/dev/null 2>&1; printf '%-34s' "$l"; for i in 1 2 3 4 5; do tm "$@"; done; echo; }
sec gen
S=/dev/shm; [ "$(df --output=avail -B1G /dev/shm | tail -1)" -ge 3 ] || S=/tmp; echo "files in $S"
$B/gen 64 134217728 > $S/leaves1g   # 2^25 leaves of 32 bytes / 2^27 u64
$B/gen 64 16777216 > $S/leaves22   # 2^22 leaves (128 MiB)
$B/gen 64 67108864 > $S/leaves24   # 2^24 leaves (512 MiB)
$B/gen 31 134217728 > $S/mat31     # 2^20 x 128 u32
head -c 4096 /dev/urandom > $S/4k
ls -la $S
sec one-shot wall times, ms, 5 runs after a warm-up, base then new, alternating per command
for bin in wgbench-base wgbench; do runs "$bin merkle blake3 2^25" $B/$bin merkle --hash blake3 --in $S/leaves1g; done
for bin in wgbench-base wgbench; do runs "$bin commit p2 1Mx128" $B/$bin commit --hash poseidon2 --matrix 1048576x128 --in $S/leaves1g; done
for bin in wgbench-base wgbench; do runs "$bin devices" $B/$bin devices; done
for bin in wgbench-base wgbench; do runs "$bin b3sum 4KiB" $B/$bin b3sum $S/4k; done
runs "b3sum 4KiB" $B/b3sum $S/4k
runs "wgbench commit babybear 1Mx128" $B/wgbench commit --field babybear --hash poseidon2 --matrix 1048576x128 --in $S/mat31
runs "wgbench commit koalabear 1Mx128" $B/wgbench commit --field koalabear --hash poseidon2 --matrix 1048576x128 --in $S/mat31
for d in 1 all; do runs "wgbench merkle rescue 2^22 dev=$d" $B/wgbench --devices $d merkle --hash rescue --in $S/leaves22; done
for d in 1 all; do runs "wgbench merkle rescue 2^24 dev=$d" $B/wgbench --devices $d merkle --hash rescue --in $S/leaves24; done
sec traces
$B/wgbench --trace merkle --hash blake3 --in $S/leaves1g 2>&1 | tail -30
$B/wgbench --trace commit --hash poseidon2 --matrix 1048576x128 --in $S/leaves1g 2>&1 | tail -30
$B/wgbench --trace commit --field babybear --hash poseidon2 --matrix 1048576x128 --in $S/mat31 2>&1 | tail -30
for d in 1 all; do $B/wgbench --devices $d --trace merkle --hash rescue --in $S/leaves24 2>&1 | tail -25; done
rm -f $S/leaves1g $S/leaves22 $S/leaves24 $S/mat31
sec kernels: commitments 2^20 x 128
cd $B
timeout 150 ./merkle.test -test.run '^$' -test.bench 'CommitMatrix31/.*2.20x128/vulkan|CommitMatrix1M' -test.benchtime 5x 2>&1 | grep -v "^goos\|^goarch\|^pkg\|^cpu"
timeout 60 ./poseidon2.test -test.run '^$' -test.bench 'Permute31' -test.benchtime 5x 2>&1 | grep -v "^goos\|^goarch\|^pkg"
sec CPU merges per core
timeout 60 ./rescue.test -test.run '^$' -test.bench 'PermuteOldNew' -test.cpu 1 2>&1 | grep Bench
for p in rescue rpo poseidon2; do timeout 60 ./$p.test -test.run '^$' -test.bench 'MergeCPU' -test.benchtime 20x -test.cpu 1,$(nproc) 2>&1 | grep Bench; done
sec correctness of the 31-bit kernels on this GPU
timeout 120 ./poseidon2.test -test.run '31|Monty|Sponge' 2>&1 | tail -3
timeout 120 ./merkle.test -test.run 'Matri|32|Commit' 2>&1 | tail -3
