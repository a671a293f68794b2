package vortex

import (
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/sis"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// BenchmarkHashesOverlap measures what running SIS and the leaves' sponge
// side by side could give: at Vortex's shape (2^20 columns of 2^11 rows,
// SIS(9,16), gnark-crypto's sponge over each 512-element digest), SIS over
// every tile alone (sis), the sponge over every tile's digests alone
// (leaves), and both in one run on buffers that share nothing written, so
// that no barrier orders them (both: SIS's dispatches, then the sponge's;
// interleaved: a tile of each in turn). Kernel times from timestamps; the
// words are zeros (the kernels' time does not depend on them).
func BenchmarkHashesOverlap(b *testing.B) {
	if len(gputest.Backends()) == 0 {
		b.Skip("no GPU backend")
	}
	const rows, degree = 1 << 11, 512
	cols := 1 << 20
	if testing.Short() {
		cols = 1 << 10
	}
	ctx := gputest.Context(b, gputest.Backends()[0])
	key, err := sis.New(0, 9, 16, rows)
	if err != nil {
		b.Fatal(err)
	}
	r, err := key.NewResident(ctx, rows)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Release()
	w := cols
	for w > 1 && (uint64(w)*rows*4 > ctx.Limits().Binding() || w > cols/4) {
		w /= 2
	}
	tiles := cols / w
	newBuf := func(label string, size uint64) *wgpu.Buffer {
		buf, err := ctx.NewBuffer(label, size)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(buf.Release)
		return buf
	}
	in := newBuf("overlap columns", uint64(w)*rows*4)
	leafIn := newBuf("overlap leaves' digests", uint64(w)*degree*4)
	var sisDs, leafDs []wgpu.Dispatch
	for range tiles {
		dg := newBuf("overlap digests", uint64(w)*degree*4)
		d, err := r.Dispatch(wgpu.Bind(in), wgpu.Bind(dg), w, w, 1)
		if err != nil {
			b.Fatal(err)
		}
		sisDs = append(sisDs, d)
		out := newBuf("overlap leaves", uint64(w)*32)
		l, err := poseidon2.GnarkKoalaBear.SpongeMontgomeryDispatch(ctx, wgpu.Bind(leafIn), wgpu.Bind(out), w, degree)
		if err != nil {
			b.Fatal(err)
		}
		leafDs = append(leafDs, l)
	}
	var interleaved []wgpu.Dispatch
	for i := range tiles {
		interleaved = append(interleaved, sisDs[i], leafDs[i])
	}
	for _, c := range []struct {
		name string
		ds   []wgpu.Dispatch
	}{{"sis", sisDs}, {"leaves", leafDs}, {"both", append(append([]wgpu.Dispatch(nil), sisDs...), leafDs...)}, {"interleaved", interleaved}} {
		b.Run(c.name, func(b *testing.B) {
			run := func() time.Duration {
				t, err := ctx.Run(c.ds...)
				if err != nil {
					b.Fatal(err)
				}
				return t.Elapsed()
			}
			gputest.Warm(b, ctx, 300*time.Millisecond)
			run()
			var kernel time.Duration
			b.ResetTimer()
			for range b.N {
				kernel += run()
			}
			b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
		})
	}
}
