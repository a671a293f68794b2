package webbench

import (
	"os"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// TestDispatchCost measures on every backend, as the page's measurement
// mode does in the browser, and logs the numbers (go test -v) for
// docs/PORTABILITY.md.
func TestDispatchCost(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		d, err := DispatchCost(ctx, 1000, 3)
		if err != nil {
			t.Fatal(err)
		}
		if d.Submission <= 0 || d.PerDispatch <= 0 || d.N != 1000 {
			t.Fatalf("DispatchCost = %+v: want positive times of 1000 dispatches", d)
		}
		t.Logf("%s: a submission of one dispatch %v, each further dispatch %v", ctx.Info().Name, d.Submission, d.PerDispatch)
	})
}

func TestDispatchCostBadInput(t *testing.T) {
	if _, err := DispatchCost(nil, 1000, 3); err == nil {
		t.Error("DispatchCost on the CPU backend: no error")
	}
	ctx := gputest.Context(t, gputest.Backends()[0])
	for _, c := range []struct{ n, reps int }{{1, 3}, {1000, 0}} {
		if _, err := DispatchCost(ctx, c.n, c.reps); err == nil {
			t.Errorf("DispatchCost(n = %d, reps = %d): no error", c.n, c.reps)
		}
	}
}
