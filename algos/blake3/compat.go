package blake3

// This file keeps the one name cmd/wgbench uses in its old shape; delete it
// when the CLI moves to the Engine:
//
//	out, t, err := SumBuffer(ctx, buf, n, opts)  ->  opts.Timing = &t
//	                                                 e, err := NewEngine(ctx, opts); defer e.Release()
//	                                                 out, err := e.SumBuffer(buf, n)

import "github.com/wgcompute/wgcompute/wgpu"

// SumBuffer hashes the first n bytes of buf, already on the device, and
// returns opts.Length bytes of output and the GPU time of the hash.
//
// Deprecated: use an Engine's SumBuffer, which reports the time through
// Options.Timing and keeps its buffers between calls.
func SumBuffer(ctx *wgpu.Context, buf *wgpu.Buffer, n uint64, opts Options) ([]byte, wgpu.Timing, error) {
	var t wgpu.Timing
	opts.Timing = &t
	e, err := NewEngine(ctx, opts)
	if err != nil {
		return nil, t, err
	}
	defer e.Release()
	out, err := e.SumBuffer(buf, n)
	return out, t, err
}
