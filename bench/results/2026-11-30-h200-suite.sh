#!/usr/bin/env bash
# The whole suite on the GPU machine with no settings, at 35ddde4:
# scripts/gpu-tests.sh build -o .bin/gt made two packs of 47 test
# binaries (more than a call carries together), so two calls run them,
# each the packages of its pack: pack 1 (with the source tree), and
# pack 2 with gpu-tests-src.tar.xz (pack 1 without its binaries). re1 and
# re2 are the alternations of each pack's import paths. From the project
# root on the GPU machine:
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-suite.sh 1
#   . .gl/env.sh && bash bench/results/2026-11-30-h200-suite.sh 2
set -u
n=$1
dir=$(mktemp -d)
out=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
packs=(.bin/gt/gpu-tests-$n.tar.xz)
[ "$n" = 1 ] || packs=(.bin/gt/gpu-tests-src.tar.xz "${packs[@]}")
tar xJf "${packs[0]}" -C "$dir" gpu-tests/gpu-tests.sh
bash "$dir/gpu-tests/gpu-tests.sh" run -l "$out/logs" -t 8m -p "$(cat .bin/gt/re$n)" "${packs[@]}"
rc=$?
# The device returns few files: each package's log's last lines, in one.
for f in "$out"/logs/*.log; do echo "##### $(basename "$f")"; tail -n 15 "$f"; done >"$out/logs.txt"
rm -rf "$out/logs"
exit $rc
