#!/usr/bin/env bash
# Start-up of 'wgbench b3sum' on a 4 KiB file against b3sum, and what a
# process of each kind costs before it does anything, on this machine.
#
#   bench/results/2026-11-26-ci-startup.sh OLD NEW [RUNS]
#
# builds wgbench at the commits OLD and NEW, and beside them the floor of
# each layer wgbench stands on: a Go program that prints a line (static),
# the same with cgo (libc), with libm and libgcc_s as well (what
# wgpu-native's link adds), with the webgpu binding linked (wgpu-native,
# statically), and one that hashes its file with algos/blake3 on the CPU
# (klauspost/cpuid's initializer). Each runs RUNS times (default 300),
# all kinds in turn, with posix_spawn and waitpid from a small C program,
# its output to /dev/null; printed: the median, quartiles and minimum, in
# ms, and the median over b3sum's. Then GODEBUG=inittrace=1's costliest
# initializers of each wgbench (medians of 30 runs). Needs Go, a C
# compiler, b3sum and python3.
set -euo pipefail
old=$1 new=$2 runs=${3:-300}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" ./startup-bench-tmp' EXIT
for c in "$old" "$new"; do
	mkdir -p "$tmp/src-$c"
	git archive "$c" | tar -x -C "$tmp/src-$c"
	(cd "$tmp/src-$c" && go build -o "$tmp/wgbench-$c" ./cmd/wgbench)
done
mkdir -p startup-bench-tmp/{hello,cgo,cgolibs,binding,blake3}
cat >startup-bench-tmp/hello/main.go <<'EOF'
package main

import "os"

func main() { os.Stdout.WriteString("hi\n") }
EOF
cat >startup-bench-tmp/cgo/main.go <<'EOF'
package main

// int one(void) { return 1; }
import "C"
import "os"

func main() { C.one(); os.Stdout.WriteString("hi\n") }
EOF
cat >startup-bench-tmp/cgolibs/main.go <<'EOF'
package main

// #cgo LDFLAGS: -lm -Wl,--no-as-needed -lgcc_s
// #include <math.h>
// double one(double x) { return sqrt(x); }
import "C"
import "os"

func main() { C.one(1); os.Stdout.WriteString("hi\n") }
EOF
cat >startup-bench-tmp/binding/main.go <<'EOF'
package main

import (
	"os"

	_ "github.com/oliverbestmann/webgpu/wgpu"
)

func main() { os.Stdout.WriteString("hi\n") }
EOF
cat >startup-bench-tmp/blake3/main.go <<'EOF'
package main

import (
	"fmt"
	"os"

	"github.com/wgcompute/wgcompute/algos/blake3"
)

func main() {
	b, _ := os.ReadFile(os.Args[1])
	s, _ := blake3.Sum(nil, b)
	fmt.Printf("%x  %s\n", s, os.Args[1])
}
EOF
for p in hello cgo cgolibs binding blake3; do go build -o "$tmp/$p" "./startup-bench-tmp/$p"; done
cat >"$tmp/spawnbench.c" <<'EOF'
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
	int n = atoi(argv[1]), nc = 0;
	char **cmds[32];
	cmds[nc++] = &argv[2];
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--")) { argv[i] = NULL; cmds[nc++] = &argv[i + 1]; }
	double *t = malloc(sizeof(double) * n * nc), base = 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (int r = -3; r < n; r++)
		for (int c = 0; c < nc; c++) {
			struct timespec a, b;
			pid_t p;
			int st;
			clock_gettime(CLOCK_MONOTONIC, &a);
			if (posix_spawnp(&p, cmds[c][0], &fa, NULL, cmds[c], environ)) { perror("spawn"); return 1; }
			waitpid(p, &st, 0);
			clock_gettime(CLOCK_MONOTONIC, &b);
			if (r >= 0) t[c * n + r] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
		}
	for (int c = 0; c < nc; c++) {
		double *x = &t[c * n];
		qsort(x, n, sizeof(double), cmp);
		if (!c) base = x[n / 2];
		printf("%6.2f ms (p25 %5.2f, p75 %5.2f, min %5.2f) x%.2f ", x[n / 2], x[n / 4], x[3 * n / 4], x[0], x[n / 2] / base);
		for (char **a = cmds[c]; *a; a++) printf(" %s", *a);
		printf("\n");
	}
	return 0;
}
EOF
cc -O2 -o "$tmp/spawnbench" "$tmp/spawnbench.c"
head -c 4096 /dev/urandom >"$tmp/4k"
echo "$(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wgbench $old: $(stat -c %s "$tmp/wgbench-$old") bytes; $new: $(stat -c %s "$tmp/wgbench-$new") bytes"
"$tmp/spawnbench" "$runs" b3sum "$tmp/4k" -- "$tmp/wgbench-$old" b3sum "$tmp/4k" -- "$tmp/wgbench-$new" b3sum "$tmp/4k" \
	-- "$tmp/hello" -- "$tmp/cgo" -- "$tmp/cgolibs" -- "$tmp/binding" -- "$tmp/blake3" "$tmp/4k" | sed "s|$tmp/||g"
for c in "$old" "$new"; do
	echo "initializers of wgbench $c (median ms of 30 runs; total, then the costliest):"
	python3 - "$tmp/wgbench-$c" "$tmp/4k" <<'EOF'
import collections, os, statistics, subprocess, sys
per, tot = collections.defaultdict(list), []
for _ in range(30):
    r = subprocess.run([sys.argv[1], "b3sum", sys.argv[2]], env=dict(os.environ, GODEBUG="inittrace=1"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ms = [(f[1], float(f[4])) for f in (l.split() for l in r.stderr.splitlines()) if f[:1] == ["init"]]
    for p, m in ms:
        per[p].append(m)
    tot.append(sum(m for _, m in ms))
print(f"  {statistics.median(tot):.2f} total, {len(per)} packages")
for p, v in sorted(per.items(), key=lambda kv: -statistics.median(kv[1]))[:8]:
    print(f"  {statistics.median(v):.3f} {p}")
EOF
done
