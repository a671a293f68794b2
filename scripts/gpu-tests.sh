#!/usr/bin/env bash
# The test suite on a GPU host without a Go toolchain: build every
# package's test binary here, carry the packs there, run them there.
#
#   scripts/gpu-tests.sh build [-o DIR] [-m MIB]
#       Build the test binary of every package with tests for linux/amd64
#       (stripped, scripts/testbins.sh), and pack them with the files the
#       tests read from the source tree (every testdata/ directory, the
#       WGSL files, the docs and example_test.go files) and this script into DIR/gpu-tests-N.tar.xz (default
#       DIR bin/gpu-tests), as many packs as keep each under MIB MiB
#       (default 50). Needs Go, a C compiler and xz.
#
#   gpu-tests.sh run [-l LOGDIR] [-t TIMEOUT] [-p REGEX] PACK... [-- FLAG...]
#       Unpack the packs into a temporary directory and run each test
#       binary in its package's directory (-test.count=1 -test.v
#       -test.timeout TIMEOUT, default 30m, then the FLAGs), the packages
#       whose import path matches REGEX (default all) one after another.
#       Prints a line per package, "ok PKG 12.3s" or "FAIL PKG 12.3s:
#       TestA TestB/sub ...", then the adapters the tests left out, and
#       exits 1 if any package failed. Every package's whole output is
#       kept in LOGDIR (default $OUT if set, else ./gpu-tests-logs) as
#       NAME.log. Needs bash, tar and xz, and the GPU driver with the
#       loaders wgpu-native opens: libvulkan.so.1 (Debian and Ubuntu:
#       libvulkan1) for Vulkan, libEGL.so.1 (libegl1) for GL.
#
# The GPU tests cover every backend whose adapter can run compute there,
# and print those they leave out (wgpu/gputest); the environment
# (WGCOMPUTE_BACKEND, WGCOMPUTE_REQUIRE_BACKENDS, ...) passes through.
set -euo pipefail

usage() {
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
	exit 2
}

build() {
	local dir=bin/gpu-tests mib=50 opt
	while getopts o:m: opt; do
		case $opt in
		o) dir=$OPTARG ;;
		m) mib=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# = 0 ] || usage
	cd "$(dirname "$0")/.."
	dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
	# The stage is outside the module: Go sources copied under it would be
	# packages of the module to go build ./... while it exists.
	local stage
	stage=$(mktemp -d)
	rm -f "$dir"/gpu-tests-*.tar.xz
	mkdir -p "$stage/gpu-tests/src"
	local start=$SECONDS status=0
	. scripts/testbins.sh
	GOOS=linux GOARCH=amd64 CGO_ENABLED=1 build_test_binaries "$stage/gpu-tests/bin" "" -ldflags="-s -w" || status=1
	echo "built $(grep -c . "$stage/gpu-tests/bin/packages.txt") test binaries in $((SECONDS - start)) s"
	mv "$stage/gpu-tests/bin/packages.txt" "$stage/gpu-tests/"
	cp scripts/gpu-tests.sh "$stage/gpu-tests/"
	# Tests read from the tree: their testdata/, the module's testdata/,
	# the WGSL files (every package's, which wgsl's tests find in the tree;
	# generated ones are checked against those beside their package), the
	# docs with the examples their snippets must match, the sbatch scripts
	# the Slurm section shows, the plots with the results they are drawn
	# from, every raw result the docs link to (TestDoc*), and the Go
	# sources, which doccheck reads (the layers, the examples README
	# quotes, the links' targets).
	git ls-files -z -- ':(glob)**/testdata/**' ':(glob)**/*.wgsl' ':(glob)*.md' ':(glob)docs/*.md' 'docs/slurm/*.sbatch' 'docs/plots/*' 'docs/*.png' 'bench/results/*' ':(glob)**/*.go' | tar --null -T - -cf - | tar -xf - -C "$stage/gpu-tests/src"
	# Pack 1 holds the tree and this script, and each pack a share of the
	# binaries. xz -9 (a 64 MiB dictionary, blocks of 192 MiB) finds the
	# wgpu-native code every binary links again in the binaries before it,
	# so a pack costs little more than one binary plus each one's own
	# code: 17 binaries, 217 MiB, packed into 20 MiB (2026-11-25). If a
	# pack passes the bound, the binaries are dealt out, largest first, to
	# one pack more, and packed again.
	export XZ_OPT='-9 -T0'
	local limit=$((mib << 20)) k=0 over=1 bins size pack i
	bins=$(cd "$stage" && ls -S gpu-tests/bin/*.test)
	while [ $over = 1 ] && [ $k -lt "$(echo "$bins" | wc -l)" ]; do
		k=$((k + 1))
		rm -f "$dir"/gpu-tests-*.tar.xz
		over=0
		for i in $(seq 1 $k); do
			pack=$dir/gpu-tests-$i.tar.xz
			# shellcheck disable=SC2046
			tar -C "$stage" -cJf "$pack" $([ "$i" = 1 ] && echo gpu-tests/gpu-tests.sh gpu-tests/packages.txt gpu-tests/src) \
				$(echo "$bins" | awk -v k=$k -v i=$i '(NR - 1) % k == i - 1')
			[ "$(stat -c %s "$pack")" -le $limit ] || over=1
		done
	done
	rm -rf "$stage"
	for pack in "$dir"/gpu-tests-*.tar.xz; do
		size=$(stat -c %s "$pack")
		echo "$pack: $(tar -tJf "$pack" | grep -c '\.test$') binaries, $((size >> 10)) KiB"
		if [ "$size" -gt $limit ]; then
			echo "$pack: over $mib MiB: one binary alone is larger" >&2
			status=1
		fi
	done
	echo "packed in $((SECONDS - start)) s; on the GPU host: bash gpu-tests.sh run gpu-tests-*.tar.xz (after unpacking pack 1's gpu-tests/gpu-tests.sh, or from a checkout)"
	[ $status = 0 ] || echo "some test binaries do not build (see above)" >&2
	return $status
}

run() {
	local logs=${OUT:-gpu-tests-logs} timeout=30m only=. opt
	while getopts l:t:p: opt; do
		case $opt in
		l) logs=$OPTARG ;;
		t) timeout=$OPTARG ;;
		p) only=$OPTARG ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	local packs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		packs+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
		shift
	done
	[ $# = 0 ] || shift
	[ ${#packs[@]} -gt 0 ] || usage
	mkdir -p "$logs"
	logs=$(cd "$logs" && pwd)
	local root
	root=$(mktemp -d)
	# shellcheck disable=SC2064 # root is local: expand it now
	trap "rm -rf '$root'" EXIT
	local pack
	for pack in "${packs[@]}"; do
		tar -C "$root" -xJf "$pack"
	done
	local top=$root/gpu-tests failed=0 name dir pkg exe start rc secs tests
	[ -f "$top/packages.txt" ] || { echo "no packages.txt in ${packs[*]}: pack 1 is missing" >&2; exit 2; }
	while read -r name dir pkg; do
		[[ $pkg =~ $only ]] || continue
		exe=$top/bin/$name.test
		if [ ! -f "$exe" ]; then
			echo "FAIL $pkg: no test binary (not built, or its pack is missing)"
			failed=1
			continue
		fi
		mkdir -p "$top/src/$dir"
		start=$(date +%s.%N)
		rc=0
		(cd "$top/src/$dir" && "$exe" -test.count=1 -test.v -test.timeout "$timeout" "$@" </dev/null) >"$logs/$name.log" 2>&1 || rc=$?
		secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
		if [ $rc = 0 ]; then
			echo "ok   $pkg ${secs}s"
			continue
		fi
		failed=1
		tests=$(sed -n 's/^ *--- FAIL: \([^ ]*\).*/\1/p' "$logs/$name.log" | head -20 | xargs)
		echo "FAIL $pkg ${secs}s: ${tests:-exit status $rc, no test failed} (log: $logs/$name.log)"
	done <"$top/packages.txt"
	# gputest prints the adapters it leaves out once per binary: the same
	# lines from every package, so once here.
	cat "$logs"/*.log 2>/dev/null | grep -a '^gputest: ' | sort -u || true
	return $failed
}

case ${1:-} in
build | run)
	mode=$1
	shift
	$mode "$@"
	;;
*) usage ;;
esac
