// Package gputest runs GPU tests on every backend the machine should have.
//
// On a machine with Mesa's software drivers (CI) that is Vulkan through
// lavapipe and GL through llvmpipe, so each GPU test runs twice. A backend
// that cannot be opened fails the test: GPU tests never skip. Set
// WGCOMPUTE_BACKEND to test one backend only (for example on a machine
// whose GL stack is absent).
package gputest

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
)

type key struct {
	backend string
	limits  wgpu.Limits
}

var (
	mu       sync.Mutex
	contexts = map[key]*wgpu.Context{}
)

// Backends returns the backends tests must cover: WGCOMPUTE_BACKEND if set,
// else vulkan and gl.
func Backends() []string {
	if b := os.Getenv("WGCOMPUTE_BACKEND"); b != "" {
		return []string{b}
	}
	return []string{"vulkan", "gl"}
}

// Context returns a shared Context for backend, opened on first use and kept
// for the test binary's life (opening a device costs tens of milliseconds
// on lavapipe, and tests outnumber backends).
func Context(tb testing.TB, backend string) *wgpu.Context {
	tb.Helper()
	return Limited(tb, backend, wgpu.Limits{})
}

// SmallLimits are limits small enough that modest test inputs are split
// into several pieces, subtrees and row blocks: the one knob every
// package's tests use to exercise their splitting.
var SmallLimits = wgpu.Limits{MaxStorageBindingSize: 64 << 10, MaxBufferSize: 256 << 10}

// Limited returns a shared Context for backend opened with limits capped
// to lim (see wgpu.Options.Limits), kept like Context's.
func Limited(tb testing.TB, backend string, lim wgpu.Limits) *wgpu.Context {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	k := key{backend, lim}
	if c := contexts[k]; c != nil {
		return c
	}
	c, err := wgpu.Open(wgpu.Options{Backend: backend, Adapter: os.Getenv("WGCOMPUTE_ADAPTER"), Limits: lim})
	if err != nil {
		tb.Fatalf("open %s with limits %+v: %v", backend, lim, err)
	}
	contexts[k] = c
	return c
}

// ForEachSmall runs fn as a subtest on every backend with SmallLimits.
func ForEachSmall(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b+"/small", func(t *testing.T) { fn(t, Limited(t, b, SmallLimits)) })
	}
}

// ForEach runs fn as a subtest on every backend of Backends.
func ForEach(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b, func(t *testing.T) { fn(t, Context(t, b)) })
	}
}

// Main is TestMain's body for packages with GPU tests: it runs the tests
// and closes the shared contexts.
func Main(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	for k, c := range contexts {
		c.Close()
		delete(contexts, k)
	}
	mu.Unlock()
	return code
}

// NoLeaks runs fn three times and fails if the calls left GPU buffers
// alive (errors included: a failing call must release what it made too).
func NoLeaks(t *testing.T, ctx *wgpu.Context, fn func() error) {
	t.Helper()
	before := ctx.LiveBuffers()
	for i := 0; i < 3; i++ {
		fn()
	}
	if after := ctx.LiveBuffers(); after != before {
		t.Fatalf("leak: %d buffers alive before, %d after three calls", before, after)
	}
}

// GroupSizes are the forced splits ForEachGroup runs: 2, 3 and 7 members,
// so that pieces come out uneven.
var GroupSizes = []int{2, 3, 7}

// ForEachGroup runs fn as a subtest on every backend with Groups of each
// of GroupSizes members, several devices on one adapter: the members
// alternate between the backend's shared Context and its SmallLimits one,
// so that a split also meets members of different limits, as GPUs of
// different kinds would be.
func ForEachGroup(t *testing.T, fn func(t *testing.T, g *wgpu.Group)) {
	t.Helper()
	for _, b := range Backends() {
		for _, n := range GroupSizes {
			t.Run(fmt.Sprintf("%s/%d", b, n), func(t *testing.T) {
				members := make([]*wgpu.Context, n)
				for i := range members {
					members[i] = Context(t, b)
					if i%2 == 1 {
						members[i] = Limited(t, b, SmallLimits)
					}
				}
				g, err := wgpu.NewGroup(members...)
				if err != nil {
					t.Fatal(err)
				}
				fn(t, g)
			})
		}
	}
}
