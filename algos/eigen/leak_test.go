package eigen

import (
	"testing"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestNoLeaks(t *testing.T) {
	forEach(t, func(t *testing.T, ctx *wgpu.Context) {
		// Every kernel once (n = 137 is 3 row blocks under the small limits).
		for _, opts := range []Options{{Variant: V0}, {Variant: V1, Explicit: true}, {Variant: V2, Explicit: true, Unfused: true}} {
			gputest.NoLeaks(t, ctx, func() error {
				_, err := MaxEigen(ctx, Hilbert(137), 137, opts)
				return err
			})
		}
		gputest.NoLeaks(t, ctx, func() error { // a zero entry is rejected after the allocation
			m := Hilbert(5)
			m[7] = 0
			_, err := MaxEigen(ctx, m, 5, Options{Explicit: true})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error { // so is an overflowing row
			m := Hilbert(5)
			m[7] = 3e38
			_, err := MaxEigen(ctx, m, 5, Options{})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error { // too large for the device
			_, err := NewSolver(ctx, 1<<20, Options{})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error {
			s, err := NewSolver(ctx, 9, Options{Explicit: true})
			if err != nil {
				return err
			}
			defer s.Release()
			if err := s.Load(Hilbert(9)); err != nil {
				return err
			}
			_, err = s.Solve()
			return err
		})
		gputest.NoLeaks(t, ctx, func() error {
			k, err := NewKernels(ctx, Options{})
			if err != nil {
				return err
			}
			defer k.Release()
			m, err := ctx.NewBuffer("m", 64*64*4)
			if err != nil {
				return err
			}
			defer m.Release()
			sums, err := ctx.NewBuffer("sums", 64*4)
			if err != nil {
				return err
			}
			defer sums.Release()
			if err := k.RowSums(sums, m, 64); err != nil {
				return err
			}
			if _, err := k.Max(m, 4096); err != nil { // the partials grow
				return err
			}
			_, err = k.Max(sums, 65) // too short: an error
			return err
		})
	})
}
