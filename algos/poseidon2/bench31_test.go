package poseidon2

import (
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/internal/gputest"
)

// BenchmarkPermute31 permutes 2^20 states (2^14 with -short) of each
// 31-bit permutation on the first GPU backend, reporting the kernels' time
// and permutations per second of it (the upload and read-back are apart,
// in ns/op); and the reference on one core.
func BenchmarkPermute31(b *testing.B) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 14
	}
	for _, p := range Permutations31 {
		b.Run(p.Name()+"/cpu", func(b *testing.B) {
			s := randStates31(p, newRand(b), 1)
			b.SetBytes(int64(4 * p.Width()))
			for i := 0; i < b.N; i++ {
				p.permute(s)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
		})
		if len(gputest.Backends()) == 0 {
			continue
		}
		b.Run(fmt.Sprintf("%s/%s/2^%d", p.Name(), gputest.Backends()[0], bits.Len(uint(n))-1), func(b *testing.B) {
			ctx := gputest.Context(b, gputest.Backends()[0])
			states := randStates31(p, newRand(b), n)
			if _, err := p.permuteMany31(ctx, states); err != nil { // compiles the kernel
				b.Fatal(err)
			}
			b.SetBytes(int64(4 * len(states)))
			var kernel time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t, err := p.permuteMany31(ctx, states)
				if err != nil {
					b.Fatal(err)
				}
				kernel += t.Elapsed()
			}
			b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
			b.ReportMetric(float64(n)*float64(b.N)/kernel.Seconds(), "perms/s")
		})
	}
}
