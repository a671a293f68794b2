# Sourced by .ci/windows.sh and scripts/gpu-tests.sh: the test binaries of
# every package with tests, built with go test -c for the GOOS and GOARCH
# in the environment.
#
#   build_test_binaries DIR SUFFIX [FLAG...]
#
# writes DIR/NAME.test SUFFIX for each package, NAME being the package's
# path in the module with / as - (algos-rescue-internal-params: several
# packages share a last element; root for the module's own), and
# DIR/packages.txt, a line "NAME DIR IMPORTPATH" per package, DIR relative
# to the module root, where the binary is to run. FLAGs go to go test -c.
# A package that does not build is reported and the rest are built; the
# function then returns 1. Run it from the module root.
build_test_binaries() {
	local out=$1 suffix=$2
	shift 2
	local mod pkg rel name status=0
	mkdir -p "$out"
	mod=$(go list -m)
	: >"$out/packages.txt"
	for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
		rel=${pkg#"$mod"}
		rel=${rel#/}
		name=${rel//\//-}
		go test -c "$@" -o "$out/${name:-root}.test$suffix" "$pkg" || status=1
		echo "${name:-root} ${rel:-.} $pkg" >>"$out/packages.txt"
	done
	return $status
}
