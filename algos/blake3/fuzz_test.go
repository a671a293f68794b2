package blake3

import (
	"testing"

	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// maxFuzzInput bounds the inputs FuzzSumGPU hashes: 64 chunks, a tree of
// seven levels, still a few milliseconds on a CPU-emulated GPU.
const maxFuzzInput = 64 << 10

// FuzzSumGPU holds the GPU hash to the reference: Sum(ctx, in) ==
// Sum256(in). The input is the fuzzer's bytes repeated to extra more bytes,
// so that the fuzzer reaches multi-chunk trees and every length around the
// chunk and block boundaries without producing 64 KiB itself.
//
// Run it with -fuzzminimizetime 2s: minimizing each new input re-hashes
// it on the GPU for the default 60 s, and fuzzing stalls meanwhile.
func FuzzSumGPU(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	f.Add([]byte("abc"), uint16(0))
	f.Add([]byte{0xff}, uint16(ChunkSize-1))
	f.Add([]byte("0123456789abcdef"), uint16(ChunkSize-16))
	f.Add([]byte{1, 2, 3}, uint16(ChunkSize))
	f.Add([]byte("wgcompute"), uint16(2*ChunkSize+BlockSize))
	f.Add([]byte{0}, uint16(maxFuzzInput-1))
	f.Add(randomBytes(3, 5000), uint16(3*ChunkSize+17))
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, data []byte, extra uint16) {
		in := make([]byte, 0, len(data)+int(extra))
		in = append(in, data...)
		for i := 0; i < int(extra); i++ {
			if len(data) == 0 {
				in = append(in, byte(i))
			} else {
				in = append(in, data[i%len(data)]^byte(i>>10))
			}
		}
		in = in[:min(len(in), maxFuzzInput)]
		got, err := Sum(ctx, in)
		if err != nil {
			t.Fatalf("Sum of %d bytes: %v", len(in), err)
		}
		if want := Sum256(in); got != want {
			t.Fatalf("Sum of %d bytes is %x, Sum256 %x", len(in), got, want)
		}
	})
}
