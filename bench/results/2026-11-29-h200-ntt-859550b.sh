#!/usr/bin/env bash
# algos/ntt's whole tests at 859550b (the bare passes' lowest round
# mended) on the GPU machine, no settings. Binary (go test -c, stripped)
# packed as .bin/ab12.tar.xz. From the project root:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-ntt-859550b.sh
. bench/results/ab.sh
ab_setup .bin/ab12.tar.xz
echo "=== $(date +%T) tests, ntt-head"
(cd "$ab_root/algos/ntt" && "$ab_bin/ntt-head.test" -test.count=1 -test.v -test.timeout 9m >"$ab_out/test-ntt-head.log" 2>&1
	echo "ntt-head tests rc=$?")
grep -E '^(--- FAIL|FAIL|ok|PASS)|^--- (PASS|SKIP): TestBareSchedule' "$ab_out/test-ntt-head.log"
grep -c '^--- PASS' "$ab_out/test-ntt-head.log"
echo "=== $(date +%T) done"
