# wgcompute: `make demo` runs the benchmark suite on the default adapter,
# `make test` runs every test. Both set up what is missing first.
GO ?= go
export XDG_RUNTIME_DIR ?= /tmp

.PHONY: setup build demo test check bench-gpu

setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -o bin/wgbench ./cmd/wgbench

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
