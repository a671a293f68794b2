// Package gputest is test support for code that runs on GPUs, as
// net/http/httptest is for HTTP: it runs a test on every backend of the
// machine whose adapter can run compute kernels (ForEach, Context), with
// small limits that force the splits large inputs take (ForEachSmall,
// Limited), and on Groups of several devices over one adapter
// (ForEachGroup), and its Main says which adapters a test binary left out.
//
// On a machine with Mesa's software drivers (CI) that is Vulkan through
// lavapipe and GL through llvmpipe, so each GPU test runs twice; on a
// machine with NVIDIA's driver it is Vulkan alone, since the GL adapter
// wgpu-native opens there has no compute shaders. Each adapter left out is
// logged once per test binary, with the reason. The WGCOMPUTE_*
// variables (envopts.FromEnv, read through envopts.Load) set the Options every
// device is opened with (Options); WGCOMPUTE_BACKEND narrows the tests to
// one backend. WGCOMPUTE_REQUIRE_BACKENDS (a comma-separated
// list, for example vulkan,gl) names backends that must be covered where
// WGCOMPUTE_BACKEND does not leave them out: a required backend with no
// usable adapter fails the test binary, saying why, so that CI never
// passes with a backend quietly left out.
package gputest

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/envopts"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// choice is what a test binary covers, decided once from the adapters
// and the environment.
type choice struct {
	backends []string // with at least one usable adapter, in wgpu.Backends' order
	notes    []string // the adapters and backends left out, and why
	err      error    // a required backend left out, or no backend at all
}

var chosen = sync.OnceValue(func() choice {
	if runtime.GOOS == "js" {
		// Test binaries for GOOS=js run under Node, which has no WebGPU:
		// there the GPU tests have no backend to run on, and the browser
		// tests (make web-test) run the kernels instead.
		return choice{notes: []string{"GOOS=js: no GPU backend under Node; the kernels are tested in the browser (make web-test)"}}
	}
	env, err := envopts.Load()
	if err != nil {
		return choice{err: fmt.Errorf("gputest: %w", err)}
	}
	infos, err := wgpu.Adapters(env.Options)
	return decide(infos, err, env.Options.Backend, os.Getenv("WGCOMPUTE_REQUIRE_BACKENDS"))
})

// Options returns the Options tests open backend with: the WGCOMPUTE_*
// variables' settings (adapter, limits profile, features declined, shader
// checks, ...), read now, so that a test's t.Setenv counts, on backend
// (where it is empty, WGCOMPUTE_BACKEND's).
func Options(tb testing.TB, backend string) wgpu.Options {
	tb.Helper()
	env, err := envopts.Load()
	if err != nil {
		tb.Fatal(err)
	}
	o := env.Options
	if backend != "" {
		o.Backend = backend
	}
	return o
}

// decide chooses the backends from the adapters Adapters listed (or the
// error it returned), the backend WGCOMPUTE_BACKEND names (only) and the
// backends WGCOMPUTE_REQUIRE_BACKENDS names (require).
func decide(infos []wgpu.AdapterInfo, listErr error, only, require string) choice {
	var c choice
	usable := map[string]int{}
	why := map[string][]string{}
	for _, in := range infos {
		if in.Unusable == "" {
			usable[in.Backend]++
			continue
		}
		note := fmt.Sprintf("%s adapter %d, %s: %s", in.Backend, in.Index, in.Name, in.Unusable)
		c.notes = append(c.notes, note)
		why[in.Backend] = append(why[in.Backend], note)
	}
	for _, b := range wgpu.Backends {
		if usable[b] > 0 {
			c.backends = append(c.backends, b)
		}
		if usable[b] > 1 {
			c.notes = append(c.notes, fmt.Sprintf("%s: %d usable adapters; the tests open the first (WGCOMPUTE_ADAPTER picks another), the Group tests several", b, usable[b]))
		}
	}
	if only != "" && !strings.EqualFold(only, "cpu") {
		c.notes = append(c.notes, fmt.Sprintf("WGCOMPUTE_BACKEND=%s: every other backend is left out", only))
	}
	if listErr != nil {
		c.notes = append(c.notes, fmt.Sprintf("listing adapters: %v", listErr))
	}
	var missing []string
	for _, r := range strings.Split(require, ",") {
		r = strings.ToLower(strings.TrimSpace(r))
		switch {
		case r == "":
		case !slices.Contains(wgpu.Backends, r):
			c.err = fmt.Errorf("gputest: WGCOMPUTE_REQUIRE_BACKENDS=%q: unknown backend %q; accepted are %s, comma-separated", require, r, strings.Join(wgpu.Backends, ", "))
			return c
		case slices.Contains(c.backends, r):
		case only != "" && !strings.EqualFold(only, r):
			// Narrowed out on purpose (make test's pass under WebGPU's
			// limits): required where the tests run it.
		case len(why[r]) > 0:
			missing = append(missing, strings.Join(why[r], "; "))
		case listErr != nil:
			missing = append(missing, fmt.Sprintf("%s: %v", r, listErr))
		default:
			missing = append(missing, fmt.Sprintf("%s: no adapter found", r))
		}
	}
	switch {
	case len(missing) > 0:
		c.err = fmt.Errorf("gputest: a backend WGCOMPUTE_REQUIRE_BACKENDS=%s names cannot run the tests: %s", require, strings.Join(missing, "; "))
	case len(c.backends) == 0 && strings.EqualFold(only, "cpu"):
		c.err = fmt.Errorf("gputest: WGCOMPUTE_BACKEND=cpu: the GPU tests need a GPU backend (the CPU paths are tested beside them on every run)")
	case len(c.backends) == 0:
		c.err = fmt.Errorf("gputest: no adapter here can run compute kernels (%s); a GPU driver needs the Vulkan loader (Debian and Ubuntu: libvulkan1), and on a machine without a GPU scripts/setup.sh installs Mesa's lavapipe and llvmpipe",
			strings.Join(append(c.notes, fmt.Sprintf("%d adapters listed", len(infos))), "; "))
	}
	return c
}

// Backends returns the backends tests must cover: those with an adapter
// that can run compute kernels, narrowed to WGCOMPUTE_BACKEND if set (see
// the package comment). Main fails the test binary before its tests run
// when this list is empty or leaves out a required backend.
func Backends() []string {
	return slices.Clone(chosen().backends)
}

// Feature returns the first backend of Backends whose adapter (the one
// Context opens) has the named optional feature (wgpu.AdapterInfo.Features),
// and skips the test, saying so, where none has.
func Feature(tb testing.TB, name string) string {
	tb.Helper()
	var seen []string
	for _, b := range Backends() {
		info := Context(tb, b).Info()
		if info.HasFeature(name) {
			return b
		}
		seen = append(seen, fmt.Sprintf("%s (%s)", info.Name, b))
	}
	tb.Skipf("no adapter tested here has %s: %s", name, strings.Join(seen, ", "))
	return ""
}

var (
	mu       sync.Mutex
	contexts = map[wgpu.Options]*wgpu.Context{} // by the Options opened with
)

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
	if err := chosen().err; err != nil {
		tb.Fatal(err)
	}
	o := Options(tb, backend)
	// The profile of WGCOMPUTE_LIMITS caps the small limits too, so a run
	// under it runs its small-limits cases within it.
	o.Limits = lim.Min(o.Limits)
	mu.Lock()
	defer mu.Unlock()
	if c := contexts[o]; c != nil {
		return c
	}
	c, err := wgpu.Open(o)
	if err != nil {
		tb.Fatalf("open %s with limits %+v: %v", backend, lim, err)
	}
	contexts[o] = c
	return c
}

// ForEachSmall runs fn as a subtest on every backend with SmallLimits.
func ForEachSmall(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b+"/small", func(t *testing.T) { run(t, Limited(t, b, SmallLimits), fn) })
	}
}

// ForEach runs fn as a subtest on every backend of Backends.
func ForEach(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b, func(t *testing.T) { run(t, Context(t, b), fn) })
	}
}

// skipped is what SkipAdapters set: the adapters ForEach and ForEachSmall
// leave out, and why; nil skips none.
var skipped struct {
	sync.Mutex
	skip func(wgpu.AdapterInfo) bool
	why  string
}

// SkipAdapters has ForEach and ForEachSmall skip, saying why, the
// subtests on an adapter that skip reports, until tb's test ends: a test
// that runs other tests again where only some adapters would run them
// differently leaves out the runs that would repeat them. Tests that
// call it must not run in parallel with others.
func SkipAdapters(tb testing.TB, skip func(wgpu.AdapterInfo) bool, why string) {
	skipped.Lock()
	before, beforeWhy := skipped.skip, skipped.why
	skipped.skip, skipped.why = skip, why
	skipped.Unlock()
	tb.Cleanup(func() {
		skipped.Lock()
		skipped.skip, skipped.why = before, beforeWhy
		skipped.Unlock()
	})
}

// run runs fn on ctx, or skips where SkipAdapters says.
func run(t *testing.T, ctx *wgpu.Context, fn func(t *testing.T, ctx *wgpu.Context)) {
	skipped.Lock()
	skip, why := skipped.skip, skipped.why
	skipped.Unlock()
	if skip != nil && skip(ctx.Info()) {
		t.Skip(why)
	}
	fn(t, ctx)
}

// Warm keeps ctx's GPU busy for d (sched.Group.Warm), so that a
// benchmark timed after it runs at the clocks a busy GPU has: an idle
// one's are low, and rise only once it has worked a while.
func Warm(tb testing.TB, ctx *wgpu.Context, d time.Duration) {
	tb.Helper()
	g, err := sched.NewGroup(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if err := g.Warm(d); err != nil {
		tb.Fatal(err)
	}
}

// Main is TestMain's body for packages with GPU tests: it decides the
// backends, logs the adapters left out, runs the tests and closes the
// shared contexts. A required backend left out, or no backend at all,
// fails the binary before any test runs, with the reason.
func Main(m *testing.M) int {
	c := chosen()
	for _, note := range c.notes {
		fmt.Println("gputest: left out:", note)
	}
	if c.err != nil {
		fmt.Fprintln(os.Stderr, c.err)
		return 1
	}
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
func ForEachGroup(t *testing.T, fn func(t *testing.T, g *sched.Group)) {
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
				g, err := sched.NewGroup(members...)
				if err != nil {
					t.Fatal(err)
				}
				// Split even the small inputs tests use, which a Group
				// would otherwise give to one member (Group.Fit).
				fn(t, g.SplitAll())
			})
		}
	}
}
