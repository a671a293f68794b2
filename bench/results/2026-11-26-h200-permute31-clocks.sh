#!/usr/bin/env bash
# BenchmarkPermute31 before (poseidon2-old: 893f36f, states uploaded, checked
# and read back around each timed kernel) and after (poseidon2: device-resident
# states, 300 ms warm-up), in both orders, with nvidia-smi logging the SM clock;
# then the loops against the straight-line rounds (poseidon2-sl: b948d93 with
# the new benchmark). Binaries built with go test -c -ldflags='-s -w', xz'd.
# The last step ran an experiment harness kept out of the repository: the
# loops' kernel and one with the S-box degree swapped (dswap: times only),
# KoalaBear first.
set -u
. .gl/env.sh
cd .bin/koala && for f in *.xz; do xz -dkf "$f"; done; chmod +x *.test
export WGCOMPUTE_BACKEND=vulkan
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu,power.draw --format=csv,noheader -lms 100 > $OUT/clocks.csv &
CL=$!
mark() { echo "MARK $(date +%T.%3N) $*"; }
B() { "$@" 2>&1 | grep -E '^Bench|FAIL|panic'; }
mark old all; B ./poseidon2-old.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 5x
mark old koala first; B ./poseidon2-old.test -test.run '^$' -test.bench 'Permute31/koala.*/vulkan' -test.benchtime 5x
mark old baby after; B ./poseidon2-old.test -test.run '^$' -test.bench 'Permute31/baby.*/vulkan' -test.benchtime 5x
mark new all; B ./poseidon2.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 5x
mark new koala first; B ./poseidon2.test -test.run '^$' -test.bench 'Permute31/koala.*/vulkan' -test.benchtime 5x
mark new baby after; B ./poseidon2.test -test.run '^$' -test.bench 'Permute31/baby.*/vulkan' -test.benchtime 5x
mark new all 20x; B ./poseidon2.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 20x
mark new all int64 off; WGCOMPUTE_SHADER_INT64=off B ./poseidon2.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 5x
for i in 1 2; do for v in poseidon2 poseidon2-sl; do mark ab $v; B ./$v.test -test.run '^$' -test.bench 'Permute31/.*/vulkan' -test.benchtime 10x; done; done
mark zz rev; ZZEXP=1 ZZORDER=rev ZZVARIANTS=base,dswap ./poseidon2.test -test.run TestZZExp -test.v 2>&1 | grep -E 'SERIES|RESULT|FAIL|panic' > $OUT/zzrev.txt; grep RESULT $OUT/zzrev.txt
mark end
kill $CL
