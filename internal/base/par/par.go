// Package par runs loops on all cores: the CPU backend's one way of
// spreading work, used by every algorithm's reference path.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn on consecutive ranges [lo, hi) covering [0, n), at least
// grain items each, on up to GOMAXPROCS goroutines, and returns when all
// are done. Small loops (under two grains, or one core) run inline.
func For(n, grain int, fn func(lo, hi int)) {
	_ = ForErr(n, grain, func(lo, hi int) error { fn(lo, hi); return nil })
}

// ForErr is For with a function that can fail: it returns the error of the
// lowest failing range, and ranges not yet started when one fails are
// skipped.
func ForErr(n, grain int, fn func(lo, hi int) error) error {
	return ForErrWorkers(n, grain, runtime.GOMAXPROCS(0), fn)
}

// ForErrWorkers is ForErr on up to workers goroutines instead of
// GOMAXPROCS (for work that waits on reads, or a count the caller tunes).
func ForErrWorkers(n, grain, workers int, fn func(lo, hi int) error) error {
	if n <= 0 {
		return nil
	}
	grain = max(grain, 1)
	workers = max(workers, 1)
	pieces := (n + grain - 1) / grain
	if pieces < 2 || workers == 1 {
		return fn(0, n)
	}
	// More pieces than workers balances uneven pieces; each piece is still
	// at least a grain.
	pieces = min(pieces, 4*workers)
	step := (n + pieces - 1) / pieces
	errs := make([]error, pieces)
	var next atomic.Int64
	var failed atomic.Bool
	Workers(min(workers, pieces), func(int) {
		for {
			p := int(next.Add(1) - 1)
			if p >= pieces || failed.Load() {
				return
			}
			lo, hi := p*step, min((p+1)*step, n)
			if lo >= hi {
				continue
			}
			if err := fn(lo, hi); err != nil {
				errs[p] = err
				failed.Store(true)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Workers calls work(w) for each w in [0, n) (at least work(0)), work(0)
// on the calling goroutine and the others on goroutines of their own, and
// returns when all have returned: w names the worker, so that each may own
// a buffer. ForErrWorkers runs its ranges on it; callers that hand out
// their own work (in order, or from a queue) use it directly.
func Workers(n int, work func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
}

// First returns the lowest i in [0, n) for which bad(i) holds, or -1,
// scanning on all cores.
func First(n, grain int, bad func(i int) bool) int {
	var found atomic.Int64
	found.Store(int64(n))
	For(n, grain, func(lo, hi int) {
		for i := lo; i < hi && int64(i) < found.Load(); i++ {
			if bad(i) {
				for {
					cur := found.Load()
					if int64(i) >= cur || found.CompareAndSwap(cur, int64(i)) {
						break
					}
				}
				return
			}
		}
	})
	if f := int(found.Load()); f < n {
		return f
	}
	return -1
}

// Transpose returns the cols × rows transpose of src (rows × cols, row by
// row), on all cores in square blocks, so that neither side is walked
// with a stride of a whole row for long.
func Transpose[E any](src []E, rows, cols int) []E {
	dst := make([]E, len(src))
	const b = 64
	For((rows+b-1)/b, 1, func(lo, hi int) {
		for r0 := lo * b; r0 < min(rows, hi*b); r0 += b {
			for c0 := 0; c0 < cols; c0 += b {
				for r := r0; r < min(rows, r0+b); r++ {
					for c := c0; c < min(cols, c0+b); c++ {
						dst[c*rows+r] = src[r*cols+c]
					}
				}
			}
		}
	})
	return dst
}
