#!/usr/bin/env bash
# The whole test suite at ee8f194 on the GPU machine, with no settings,
# in two runs (what travels is capped): run a takes the packages
# of scripts/gpu-tests.sh's pack 2 (algos/ntt beside the others, two
# runners at once), run b those of pack 1. meta.tar.xz is pack 1's
# packages.txt, script and source files, which pack 2 lacks. From the
# project root:
#   . .gl/env.sh && bash bench/results/2026-11-29-h200-suite-ee8f194.sh a|b
set -u
d=.bin/gt-final
out=${OUT:-.}
run() { # NAME REGEX PACK...
	local name=$1 re=$2
	shift 2
	bash scripts/gpu-tests.sh run -l "$out/logs-$name" -t 9m -p "$re" "$@" >"$out/$name.txt" 2>&1
	echo "$name rc=$?"
}
nvidia-smi --query-gpu=name,driver_version --format=csv
case ${1:-a} in
a)
	run ntt '/algos/ntt$' $d/meta.tar.xz $d/gpu-tests-2.tar.xz &
	run rest '/(cmd/wgbench|cmd/wgbench/internal/merklecmd|cmd/wgbench/internal/b3sum|cmd/wgbench/internal/hashcmd|cmd/internal/selftest|algos/poseidon2|algos/blake3|algos/eigen|algos/rescue|cmd/wgbench/internal/cli|bench/e2e|wgpu/sched|algos/internal/rescueprime|wgpu/envopts|internal/doccheck|wgpu/gputest|cmd/internal/results|cmd/internal/fileout|internal/base/rlimit|internal/base/impl|internal/base/trace|internal/base/par)$' $d/meta.tar.xz $d/gpu-tests-2.tar.xz &
	wait
	cat "$out/ntt.txt" "$out/rest.txt"
	;;
b)
	run pack1 '/(cmd/wgbench/internal/bench|cmd/wgbench/internal/selftestcmd|cmd/wgbench/internal/nttcmd|cmd/wgbench/internal/eigencmd|cmd/wgbench/internal/devices|algos/merkle|algos/vortex|algos/lde|algos/rpo|algos/field/u64emu|algos/sis|algos/registry|wgpu|algos/batch|algos/internal/goldilocks|wgsl|cmd/internal/webbench|cmd/internal/plotdraw|algos/field|algos/poseidon2/internal/params31|algos/symmetric|internal/base/split|internal/base/checked|cmd/internal/bytesize)$' $d/gpu-tests-1.tar.xz
	cat "$out/pack1.txt"
	;;
esac
