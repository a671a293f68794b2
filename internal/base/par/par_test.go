package par

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 100003} {
		for _, grain := range []int{0, 1, 64, 1 << 20} {
			seen := make([]atomic.Int32, n)
			For(n, grain, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Fatalf("n=%d grain=%d: index %d visited %d times", n, grain, i, seen[i].Load())
				}
			}
		}
	}
}

func TestForErrReportsLowestFailure(t *testing.T) {
	err := ForErr(1000, 10, func(lo, hi int) error {
		if lo >= 500 {
			return fmt.Errorf("range at %d", lo)
		}
		return nil
	})
	if err == nil {
		t.Fatal("no error")
	}
	if err := ForErr(10, 1, func(lo, hi int) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want := errors.New("x")
	if err := ForErr(1, 1, func(lo, hi int) error { return want }); err != want {
		t.Fatalf("got %v", err)
	}
}

func TestFirst(t *testing.T) {
	for _, n := range []int{0, 1, 5000, 1 << 18} {
		for _, at := range []int{-1, 0, n / 3, n - 1} {
			got := First(n, 100, func(i int) bool { return at >= 0 && i >= at })
			want := at
			if n == 0 {
				want = -1
			}
			if got != want {
				t.Fatalf("n=%d at=%d: got %d", n, at, got)
			}
		}
	}
}

func TestForErrWorkersBoundsGoroutines(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 16} {
		var running, most atomic.Int32
		seen := make([]atomic.Int32, 1000)
		err := ForErrWorkers(len(seen), 10, workers, func(lo, hi int) error {
			r := running.Add(1)
			for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			running.Add(-1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if m := int(most.Load()); m > max(workers, 1) {
			t.Fatalf("workers=%d: %d ranges ran at once", workers, m)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("workers=%d: index %d visited %d times", workers, i, seen[i].Load())
			}
		}
	}
}

func TestWorkers(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		seen := make([]atomic.Int32, max(n, 1))
		Workers(n, func(w int) { seen[w].Add(1) })
		for w := range seen {
			if seen[w].Load() != 1 {
				t.Fatalf("n=%d: worker %d ran %d times", n, w, seen[w].Load())
			}
		}
	}
}

// TestTranspose checks every element's place at odd shapes, blocks cut
// short on both sides.
func TestTranspose(t *testing.T) {
	for _, s := range [][2]int{{1, 1}, {1, 70}, {70, 1}, {3, 5}, {129, 67}, {64, 200}} {
		rows, cols := s[0], s[1]
		src := make([]int, rows*cols)
		for i := range src {
			src[i] = i
		}
		dst := Transpose(src, rows, cols)
		for r := range rows {
			for c := range cols {
				if dst[c*rows+r] != r*cols+c {
					t.Fatalf("%d × %d: (%d, %d) holds %d", rows, cols, c, r, dst[c*rows+r])
				}
			}
		}
	}
}
