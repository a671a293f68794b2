#!/usr/bin/env bash
# Windows cross-build: wgbench.exe and every package's test binary for
# windows/amd64, with MinGW-w64 (the WebGPU binding links its windows/amd64 static
# wgpu-native library), into bin/windows-amd64/.
#
#   .ci/windows.sh              build only
#   .ci/windows.sh --run        build, then run 'wgbench.exe selftest' under
#                               Wine, on Vulkan over lavapipe (winevulkan),
#                               with the adapter's limits and with webgpu's
#   .ci/windows.sh --run-tests  also run the test binaries under Wine
#                               (Vulkan only, -test.short), each in its
#                               package's directory; reported, not fatal
#
# Missing Debian packages are installed with apt-get: gcc-mingw-w64-x86-64,
# and for --run wine64, xvfb and xauth (winevulkan needs Wine's X11 driver,
# so Wine runs under Xvfb). Go 1.22+ programs need bcryptprimitives.dll
# (ProcessPrng), which Wine 8.0 lacks: --run builds a one-function stand-in
# with MinGW and puts it in the Wine prefix's system32.
set -euo pipefail
cd "$(dirname "$0")/.."

run=0 tests=0
for arg in "$@"; do
	case $arg in
	--run) run=1 ;;
	--run-tests) run=1 tests=1 ;;
	*) echo "usage: $0 [--run | --run-tests]" >&2; exit 2 ;;
	esac
done

out=bin/windows-amd64
cc=x86_64-w64-mingw32-gcc

need() { # need COMMAND PACKAGE...: install the packages unless COMMAND exists
	local cmd=$1
	shift
	command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ] && return 0
	echo "installing $*"
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y --no-install-recommends "$@" >/dev/null ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "$@" >/dev/null; }
}

need $cc gcc-mingw-w64-x86-64

export CGO_ENABLED=1 CC=$cc GOOS=windows GOARCH=amd64
rm -rf "$out"
mkdir -p "$out"
start=$SECONDS
go build -o "$out/wgbench.exe" ./cmd/wgbench
# Test binaries, one per package with tests (scripts/testbins.sh). A
# package that does not build fails the script, at the end, after the rest
# is built and run.
. scripts/testbins.sh
status=0
build_test_binaries "$out" .exe || status=1
echo "windows/amd64 build: $((SECONDS - start)) s, $(ls "$out" | wc -l) binaries in $out"
unset CGO_ENABLED CC GOOS GOARCH
finish() {
	[ $status = 0 ] || echo "windows/amd64: some test binaries do not build (see above)" >&2
	exit $status
}
[ $run = 1 ] || finish

wine=/usr/lib/wine/wine64
need $wine wine64
need xvfb-run xvfb xauth
export WINEPREFIX=${WINEPREFIX:-$PWD/bin/wineprefix} WINEDEBUG=${WINEDEBUG:--all}
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -f "$sys32/bcryptprimitives.dll" ] && [ ! -f "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/bcryptprimitives.dll" ]; then
	xvfb-run -a $wine cmd /c exit >/dev/null 2>&1 || true # create the prefix
	shim=$(mktemp -d)
	cat >"$shim/bcryptprimitives.c" <<'EOF'
/* ProcessPrng, the one bcryptprimitives.dll export Go's runtime needs. */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n) {
	while (n > 0) {
		ULONG k = n > 0x10000000 ? 0x10000000 : (ULONG)n;
		if (!RtlGenRandom(data, k)) return FALSE;
		data += k;
		n -= k;
	}
	return TRUE;
}
EOF
	printf 'LIBRARY bcryptprimitives\nEXPORTS\n  ProcessPrng\n' >"$shim/bcryptprimitives.def"
	$cc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$shim/bcryptprimitives.c" "$shim/bcryptprimitives.def" -ladvapi32
	rm -rf "$shim"
fi

winrun() { xvfb-run -a $wine "$@"; }

# Wine also offers a D3D12 adapter, whose shader compiler (d3dcompiler_47)
# does not implement compute shaders, and no DXC can be had
# (docs/PORTABILITY.md): the self-test runs on Vulkan.
winrun "$out/wgbench.exe" --backend vulkan devices
winrun "$out/wgbench.exe" --backend vulkan selftest
winrun "$out/wgbench.exe" --backend vulkan selftest --limits webgpu
# On D3D12 every family must fail as kernels that cannot compile, never as
# results that differ; reported, not fatal (the adapter is Wine's).
dx12=$out/selftest-dx12.txt
winrun "$out/wgbench.exe" --backend dx12 selftest >"$dx12" 2>&1 || true
if grep -q 'cannot compile or run kernels on this adapter' "$dx12" && ! grep -q 'differ' "$dx12"; then
	echo "dx12 under Wine: $(grep -c 'cannot compile or run kernels' "$dx12") lines say the kernels cannot compile, none that results differ (as expected without DXC)"
else
	echo "dx12 under Wine: unexpected self-test output (not fatal):"
	cat "$dx12"
fi
[ $tests = 1 ] || finish

failed=()
while read -r name dir _; do
	exe=$out/$name.test.exe
	[ -f "$exe" ] || continue
	echo "== $name ($dir)"
	(cd "$dir" && WGCOMPUTE_BACKEND=vulkan xvfb-run -a $wine "$OLDPWD/$exe" -test.short </dev/null) || failed+=("$name")
done <"$out/packages.txt"
echo "test binaries failing under Wine: ${failed[*]:-none}"
finish
