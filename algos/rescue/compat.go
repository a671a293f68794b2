package rescue

// This file keeps the names cmd/wgbench uses until it moves to the API
// above; delete it then, together with Options.Stats, and drop the dots
// from MergeMany's and HashElementsMany's opts (one plain Options each).
//
//	MergeManyWith(ctx, dst, pairs, opts)           -> MergeMany(ctx, dst, pairs, opts)
//	HashElementsManyWith(ctx, dst, els, m, opts)   -> HashElementsMany(ctx, dst, els, m, opts)
//	MergeMany(ctx, dst, pairs) (no options)        -> MergeMany(ctx, dst, pairs, Options{})
//	Options{Stats: &st}, st.Kernel, st.Measured    -> Options{Timing: &t}, t.Kernel, t.Measured

import (
	"fmt"
	"time"

	"github.com/wgcompute/wgcompute/wgpu"
)

// Stats receives what a batch call measured.
//
// Deprecated: use Options.Timing.
type Stats struct {
	// Kernel is the GPU time of the kernels, summed over pieces, from
	// timestamp queries; zero when Measured is false.
	Kernel   time.Duration
	Measured bool
}

// reportStats fills o.Stats, when set, from a call's timing.
func (o Options) reportStats(t wgpu.Timing) {
	if o.Stats != nil {
		*o.Stats = Stats{Kernel: t.Kernel, Measured: t.Measured}
	}
}

// oneOptions returns the Options of a variadic opts: the zero value when
// none was given.
func oneOptions(opts []Options) (Options, error) {
	switch len(opts) {
	case 0:
		return Options{}, nil
	case 1:
		return opts[0], nil
	}
	return Options{}, fmt.Errorf("rescue: %d Options given: pass one at most", len(opts))
}

// MergeManyWith is MergeMany with options.
//
// Deprecated: use MergeMany(ctx, dst, pairs, opts).
func MergeManyWith(ctx *wgpu.Context, dst [][4]uint64, pairs [][8]uint64, opts Options) error {
	return MergeMany(ctx, dst, pairs, opts)
}

// HashElementsManyWith is HashElementsMany with options.
//
// Deprecated: use HashElementsMany(ctx, dst, inputs, m, opts).
func HashElementsManyWith(ctx *wgpu.Context, dst [][4]uint64, inputs []uint64, m int, opts Options) error {
	return HashElementsMany(ctx, dst, inputs, m, opts)
}
