# wgcompute: `make demo` runs the benchmark suite on the default adapter,
# `make test` runs every test. Both set up what is missing first.
GO ?= go
export XDG_RUNTIME_DIR ?= /tmp

.PHONY: setup build demo test check bench-gpu setup-web web web-test

setup:
	@bash scripts/setup.sh

# The commit goes into the binary for bench --json and --version where the
# build records no VCS stamp (-buildvcs=false, a tree without .git).
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null)

build: setup
	$(GO) build -ldflags "-X github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli.commit=$(COMMIT)" -o bin/wgbench ./cmd/wgbench
	$(GO) build -o bin/wgbench-plot ./cmd/wgbench-plot

demo: build
	bin/wgbench devices
	bin/wgbench bench all --quick

# Formatting, vet, and the tests: GPU tests run on every backend whose
# adapter can run compute (on CPU-only machines: Vulkan via lavapipe and GL
# via llvmpipe; go test -v shows the adapters each package leaves out), then
# once more on Vulkan with the limits WebGPU guarantees on every adapter
# (the smallest conformant GPU). WGCOMPUTE_REQUIRE_BACKENDS=vulkan,gl
# fails the tests where one of those backends cannot run them (.ci/run).
test: setup check
	$(GO) test -count=1 -timeout 30m ./...
	WGCOMPUTE_LIMITS=webgpu WGCOMPUTE_BACKEND=vulkan $(GO) test -count=1 -timeout 30m ./...

check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The browser build (GOOS=js GOARCH=wasm): cmd/wgweb with the page
# (index.html) and the self-test page (selftest.html), web/digests and its
# page, and Go's wasm_exec.js, in bin/web. Serve that folder over http and
# open it in a browser with WebGPU.
web:
	@mkdir -p bin/web
	GOOS=js GOARCH=wasm $(GO) build -o bin/web/wgweb.wasm ./cmd/wgweb
	GOOS=js GOARCH=wasm $(GO) build -o bin/web/digests.wasm ./web/digests
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" web/index.html web/app.js web/style.css web/selftest.html web/digests.html web/wgcompute.js bin/web/

setup-web:
	@bash scripts/setup-web.sh

# The browser tests, in headless Chromium (Dawn): web/digests in the page
# must print what the native build prints on the CPU reference, and the
# self-test runs every family under WebGPU's default limits, each in a
# browser of its own. WEB_SKIP lists families to leave out (none: since
# the Goldilocks library has no && or ||, SwiftShader compiles the Rescue
# and RPO kernels too; docs/PORTABILITY.md, "WGSL in browsers"). A GPU
# process past 2 GB fails its family (the ntt family's peak: BENCHMARKS.md,
# "The browser self-test").
WEB_SKIP ?=
# Before them, under Node (no WebGPU): wgpu's js tests, every self-test
# family's CPU backend against the golden digests, and web/digests on the
# CPU backend, which must print the same; and in Chromium, cmd/wgweb's
# JavaScript API (web/test/api.mjs). After them, the page (web/index.html)
# as a user would use it (web/test/page.test.mjs; its screenshots go to
# bin/web-shots). Every step runs; the target fails if any did.
WASM_EXEC = $$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec
web-test: setup-web web build
	WGCOMPUTE_BACKEND=cpu $(GO) run ./web/digests >bin/web/digests-native.txt
	@fail=0; \
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" -run 'TestJS|TestOpenWithoutWebGPU' ./wgpu/ || fail=1; \
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" -run 'TestCPU$$|TestGoldenReproduced' ./cmd/internal/selftest/ || fail=1; \
	GOOS=js GOARCH=wasm WGCOMPUTE_BACKEND=cpu $(GO) run -exec="$(WASM_EXEC)" ./web/digests | diff -u bin/web/digests-native.txt - \
		&& echo "PASS  web/digests on the CPU backend under Node equals the native build" || fail=1; \
	node web/test/digests.mjs bin/web bin/web/digests-native.txt || fail=1; \
	node web/test/api.mjs bin/web testdata/blake3_test_vectors.json || fail=1; \
	node web/test/selftest.mjs bin/web bin/web/selftest-browser.json --limits webgpu --gpu-memory 2 --skip '$(WEB_SKIP)' || fail=1; \
	WEB_SKIP='$(WEB_SKIP)' node --test web/test/page.test.mjs || fail=1; \
	exit $$fail
