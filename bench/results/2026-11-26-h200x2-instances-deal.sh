#!/usr/bin/env bash
# Group.Deal for Merkle on two GPUs (7b5bf45); one instance for one-shot
# commands (e6437f8); staging workers for b3sum --device gpu (129929f).
# wgbench-base is 301ab13. Binaries (xz) in .bin/r2.
set -u
B=$PWD/.bin/r2
cd $B && for f in *.xz; do xz -d "$f"; done; chmod +x *; cd - >/dev/null
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; date -u
sec() { echo; echo "=== $*"; }
tm() { local s=$(date +%s%N); "$@" >/dev/null 2>/tmp/err || { echo "FAILED: $*"; tail -3 /tmp/err; }; local e=$(date +%s%N); printf '%d ' $(( (e - s) / 1000000 )); }
runs() { local l=$1; shift; "$@" >/dev/null 2>&1; printf '%-44s' "$l"; for i in 1 2 3 4 5; do tm "$@"; done; echo; }
S=/dev/shm
$B/gen raw 1073741824 > $S/g1
$B/gen 64 67108864 > $S/leaves24
$B/gen 64 16777216 > $S/leaves22
$B/gen 64 134217728 > $S/leaves25
sec e2e scaling, Rescue Merkle 2^24 and 2^22 with Group.Deal
timeout 200 $B/e2e -what scaling -reps 5 -resident 1073741824 -pairs 16777216 -leaves 16777216 2>&1 | grep -v '^device'
timeout 100 $B/e2e -what scaling -reps 5 -resident 1073741824 -pairs 4194304 -leaves 4194304 2>&1 | grep -i merkle -A1
sec one-shot, base 301ab13 then new, alternating per command
for c in "devices" "merkle --hash blake3 --in $S/leaves25" "commit --hash poseidon2 --matrix 1048576x128 --in $S/leaves25" "--devices 1 merkle --hash rescue --in $S/leaves24" "--devices all merkle --hash rescue --in $S/leaves24" "--devices all merkle --hash rescue --in $S/leaves22"; do
  for bin in wgbench-base wgbench; do runs "$bin $(echo $c | cut -c1-34)" $B/$bin $c; done
done
sec traces, new
$B/wgbench --trace devices 2>&1 | tail -8
$B/wgbench --trace merkle --hash blake3 --in $S/leaves25 2>&1 | tail -24
$B/wgbench --devices all --trace merkle --hash rescue --in $S/leaves24 2>&1 | tail -24
sec b3sum --device gpu 16 GiB: staging workers and slots
cat $S/g1 $S/g1 $S/g1 $S/g1 > $S/g4; cat $S/g4 $S/g4 $S/g4 $S/g4 > $S/g16; rm $S/g4
for d in 1 all; do
  for w in 16 32; do runs "b3sum gpu 16G dev=$d workers=$w" env WGCOMPUTE_COPY_WORKERS=$w $B/wgbench --devices $d b3sum --device gpu $S/g16; done
  runs "b3sum gpu 16G dev=$d w=32 4x64MiB" env WGCOMPUTE_COPY_WORKERS=32 WGCOMPUTE_STAGING_MIB=64 WGCOMPUTE_STAGING_SLOTS=4 $B/wgbench --devices $d b3sum --device gpu $S/g16
done
runs "b3sum cpu 16G" $B/wgbench b3sum --device cpu $S/g16
WGCOMPUTE_COPY_WORKERS=32 $B/wgbench --devices 1 --trace b3sum --device gpu $S/g16 2>&1 | tail -22
timeout 60 $B/e2e -what read -file $S/g16 2>&1 | tail -3
rm -f $S/g16 $S/g1 $S/leaves*
