#!/usr/bin/env bash
# Run 3: eigen folded rounds (bits and time); Merkle one range per alike GPU; the several-GPU ladder.
set -u
B=$PWD/.bin/r3
cd $B && for f in *.xz; do xz -d "$f"; done; chmod +x *
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; date -u
echo; echo "=== eigen: folded against unfolded, bit for bit, on this GPU"
timeout 200 ./eigen.test -test.run 'TestFoldedSameBits|TestVectorUnderflow|Hilbert' -test.count 1 2>&1 | tail -4
echo; echo "=== eigen: kernel time, folded (v2) and unfolded side by side, twice"
for i in 1 2; do timeout 100 ./eigen.test -test.run '^$' -test.bench 'BenchmarkMaxEigenHilbert/(v2|v2-unfolded)/n=8192$' -test.benchtime 20x 2>&1 | grep Bench; done
echo; echo "=== e2e scaling 2^24"
timeout 200 ./e2e -what scaling -reps 5 -resident 1073741824 -pairs 16777216 -leaves 16777216 2>&1 | grep -v '^device'
echo; echo "=== e2e ladder"
timeout 250 ./e2e -what ladder -reps 3 2>&1
