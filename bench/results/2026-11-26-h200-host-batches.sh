#!/usr/bin/env bash
# Batches in host memory read and written by the kernels in place (then the default, at
# the zerocopy merge) against staged in device memory. Binaries (xz) in .bin/r4.
set -u
B=$PWD/.bin/r4
cd $B && for f in *.xz; do xz -d "$f"; done; chmod +x *
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; date -u
echo; echo "=== correctness of both modes on this GPU"
timeout 120 ./wgpu.test -test.run 'TestBatch' 2>&1 | tail -2
timeout 120 ./poseidon2.test -test.run 'Family|Implementations' 2>&1 | tail -2
echo; echo "=== poseidon2 MergeManyBatches, twice"
for i in 1 2; do timeout 120 ./poseidon2.test -test.run '^$' -test.bench 'MergeManyBatches' -test.benchtime 10x 2>&1 | grep Bench; done
echo; echo "=== rescue MergeMany, host then device batches"
for m in host device; do WGCOMPUTE_BATCH_BUFFERS=$m timeout 120 ./rescue.test -test.run '^$' -test.bench 'BenchmarkMergeMany/fast/16777216$' -test.benchtime 5x 2>&1 | grep Bench; done
echo; echo "=== wgbench bench poseidon2: host, device, host with 128 MiB slots"
./wgbench bench poseidon2 --no-progress --repeats 3 2>&1 | grep '4096²\|^| inputs'
./wgbench bench poseidon2 --no-progress --repeats 3 --staging-device-batches 2>&1 | grep '4096²\|^| inputs'
./wgbench bench poseidon2 --no-progress --repeats 3 --staging-mib 128 2>&1 | grep '4096²\|^| inputs'
echo; echo "=== one-shot poseidon2 merge 2^24 pairs from /dev/shm"
./gen 64 134217728 > /dev/shm/pairs
for m in host device; do
  for i in 0 1 2 3 4 5; do s=$(date +%s%N); WGCOMPUTE_BATCH_BUFFERS=$m ./wgbench poseidon2 merge --in /dev/shm/pairs --out /dev/shm/out-$m; e=$(date +%s%N); printf '%d ' $(( (e-s)/1000000 )); done; echo " $m"
done
cmp /dev/shm/out-host /dev/shm/out-device && echo "outputs equal"
WGCOMPUTE_BATCH_BUFFERS=host ./wgbench --trace poseidon2 merge --in /dev/shm/pairs --out /dev/null 2>&1 | tail -22
rm -f /dev/shm/pairs /dev/shm/out-*
