package trace

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCover: the union of spans kept as disjoint intervals equals the
// union counted instant by instant, for spans that nest, overlap, touch
// and stand apart, added in any order.
func TestCover(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		var in []interval
		var marked [200]bool
		for range rng.IntN(12) {
			from := rng.IntN(190)
			to := from + rng.IntN(10)
			in = cover(in, interval{time.Duration(from), time.Duration(to)})
			for i := from; i < to; i++ {
				marked[i] = true
			}
		}
		want := 0
		for _, m := range marked {
			if m {
				want++
			}
		}
		if got := covered(in); got != time.Duration(want) {
			t.Fatalf("trial %d: covered %d, want %d: %v", trial, got, want, in)
		}
		for i := 1; i < len(in); i++ {
			if in[i-1].to >= in[i].from {
				t.Fatalf("trial %d: intervals %v and %v touch or are out of order", trial, in[i-1], in[i])
			}
		}
	}
}
