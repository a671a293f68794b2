package ntt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// namedConfig is a tuning policy with the name a benchmark reports.
type namedConfig struct {
	name string
	c    config
}

// BenchmarkNTTConfig times KoalaBear transforms (one row of 2^24, 256
// rows of 2^19, the encoding's rows, and rows of 2^17 and 2^11, 2^27
// elements each) resident, bit-reversed out, under
// tuning policies beside the one configFor and forSize choose (default):
// other workgroup sizes, tiles and column runs, where the device's
// limits allow them. Each policy's output is checked against the
// default's, bit for bit, before it is timed. With -test.short the
// shapes are small (2^14, 16 × 2^11), to check the policies on a
// software adapter.
func BenchmarkNTTConfig(b *testing.B) {
	f := field.KoalaBear
	fi := over[uint32]{f}
	shapes := []struct{ rows, k int }{{1, 24}, {256, 19}, {512, 17}, {2048, 11}}
	if testing.Short() {
		shapes = []struct{ rows, k int }{{1, 14}, {16, 11}}
	}
	ctx := gputest.Context(b, gputest.Backends()[0])
	lim := ctx.Limits()
	for _, s := range shapes {
		data := randRows(f, rand.New(rand.NewPCG(3, uint64(s.k))), s.rows, s.k)
		var want []uint32
		def := policy(ctx, fi, s.k)
		cfgs := []namedConfig{{"default", def}}
		add := func(name string, wg uint32, tileLog, colLog int) {
			c := config{wg: wg, tileLog: tileLog, colLog: colLog, tl: def.tl}
			if c == def || wg > lim.MaxInvocationsPerWorkgroup || wg > lim.MaxWorkgroupSizeX || uint32(4)<<tileLog > lim.MaxWorkgroupStorage || colLog >= tileLog {
				return
			}
			cfgs = append(cfgs, namedConfig{name, c})
		}
		for _, c := range []int{3, 4, 5, 6} {
			add(fmt.Sprintf("wg256/tile12/col%d", c), 256, 12, c)
			add(fmt.Sprintf("wg128/tile12/col%d", c), 128, 12, c)
			add(fmt.Sprintf("wg128/tile11/col%d", c), 128, 11, c)
			add(fmt.Sprintf("wg256/tile11/col%d", c), 256, 11, c)
			add(fmt.Sprintf("wg512/tile13/col%d", c), 512, 13, c)
			add(fmt.Sprintf("wg256/tile13/col%d", c), 256, 13, c)
		}
		// The default again last: a policy's place in the run must not
		// decide its time.
		cfgs = append(cfgs, namedConfig{"default-again", def})
		for _, cf := range cfgs {
			b.Run(fmt.Sprintf("%dx2^%d/%s/passes=%d", s.rows, s.k, cf.name, len(planPasses(s.k, cf.c))), func(b *testing.B) {
				p, err := planOf(ctx, fi, s.k, cf.c)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Release()
				ds, buf := residentRows(b, ctx, p, data, s.rows, Options{Out: BitReversed})
				if _, err := ctx.Run(ds...); err != nil {
					b.Fatal(err)
				}
				got := make([]uint32, len(data))
				if err := ctx.Download(wgpu.Bytes(got), buf, 0); err != nil {
					b.Fatal(err)
				}
				if want == nil {
					want = got
				} else if !slices.Equal(got, want) {
					b.Fatalf("%s: the output differs from the default policy's", cf.name)
				}
				reportKernel(b, timeRuns(b, ctx, ds))
			})
		}
	}
}
