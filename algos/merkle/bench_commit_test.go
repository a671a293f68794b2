package merkle_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// benchCommit runs build b.N times on a Committer of s and opts, on the
// CPU (a nil Context) and on the first backend, reporting kernel-ms (GPU
// time from timestamps, or the wall time where there are none) and e2e-ms
// (upload, leaf hashing, levels and download of leaves and nodes).
func benchCommit(b *testing.B, name string, s merkle.Schedule, bytes int64, build func(c *merkle.Committer) error) {
	for _, backend := range []string{"cpu", gputest.Backends()[0]} {
		b.Run(name+"/"+backend, func(b *testing.B) {
			var ctx *wgpu.Context
			if backend != "cpu" {
				ctx = gputest.Context(b, backend)
			}
			var tm wgpu.Timing
			c, err := merkle.NewCommitter(ctx, s, merkle.Options{Timing: &tm})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Release()
			if err := build(c); err != nil { // compiles the kernels
				b.Fatal(err)
			}
			b.SetBytes(bytes)
			b.ReportAllocs()
			var kernel time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := build(c); err != nil {
					b.Fatal(err)
				}
				kernel += tm.Elapsed()
			}
			b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
		})
	}
}

// BenchmarkCommitMatrix commits Rescue matrices of 2^12 to 2^16 rows
// (-short: 2^12) of 8 and 16 columns (one and two permutations a row);
// the bytes are the matrix's.
func BenchmarkCommitMatrix(b *testing.B) {
	logs := []int{12, 14, 16}
	if testing.Short() {
		logs = logs[:1]
	}
	hash := rescue.MerkleMerge{}
	for _, lg := range logs {
		for _, cols := range []int{8, 16} {
			m := randomMatrix(1<<lg, cols, 1)
			benchCommit(b, fmt.Sprintf("rescue/2^%dx%d", lg, cols), merkle.Schedule{{Hash: hash}}, int64(len(m.Data))*8, func(c *merkle.Committer) error {
				_, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{Committer: c})
				return err
			})
		}
	}
}

// BenchmarkCommitRecords commits 2^14 records of 64 and 1024 bytes
// (2^12 with -short) with BLAKE3 leaves, in a BLAKE3 tree and in a mixed
// one (BLAKE3 for the lowest 8 levels, Rescue above).
func BenchmarkCommitRecords(b *testing.B) {
	n := 1 << 14
	if testing.Short() {
		n = 1 << 12
	}
	hash := blake3.MerkleMerge{}
	for _, size := range []int{64, 1024} {
		records := make([]byte, n*size)
		for i := range records {
			records[i] = byte(i * 131)
		}
		for _, s := range []merkle.Schedule{merkle.Schedule{{Hash: hash}}, {{Hash: hash, Count: 8}, {Hash: rescue.MerkleMerge{}}}} {
			benchCommit(b, fmt.Sprintf("%s/%dx%dB", s, n, size), s, int64(len(records)), func(c *merkle.Committer) error {
				_, err := merkle.CommitRecords(nil, records, size, hash, merkle.Options{Committer: c})
				return err
			})
		}
	}
}

// BenchmarkCommitMatrix1M commits a 2^20 x 128 matrix of Goldilocks
// elements (1 GiB: a trace or LDE commitment of the size provers publish
// figures for) with Rescue and Poseidon2 on the first backend's GPU,
// reporting the kernel time (rows hashed and tree built), the end-to-end
// time and, beside them, the upload of the matrix alone (upload-ms). Not
// run with -short (the CPU would take minutes); -test.bench CommitMatrix1M.
func BenchmarkCommitMatrix1M(b *testing.B) {
	if testing.Short() {
		b.Skip("2^20 x 128 matrix: not with -short")
	}
	ctx := gputest.Context(b, gputest.Backends()[0])
	m := randomMatrix(1<<20, 128, 7)
	bytes := int64(len(m.Data)) * 8
	buf, err := ctx.NewBuffer("matrix upload", uint64(bytes))
	if err != nil {
		b.Fatal(err)
	}
	upload := func() time.Duration {
		start := time.Now()
		if err := ctx.Upload(buf, 0, wgpu.Bytes(m.Data)); err != nil {
			b.Fatal(err)
		}
		if err := ctx.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	upload()
	up := upload()
	buf.Release()
	for _, hash := range []merkle.RowHash[uint64]{rescue.MerkleMerge{}, poseidon2.MerkleMerge{}} {
		b.Run(hash.(merkle.Hash).Name(), func(b *testing.B) {
			var tm wgpu.Timing
			c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: hash.(merkle.Hash)}}, merkle.Options{Timing: &tm})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Release()
			if _, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{Committer: c}); err != nil { // compiles the kernels
				b.Fatal(err)
			}
			b.SetBytes(bytes)
			var kernel time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{Committer: c}); err != nil {
					b.Fatal(err)
				}
				kernel += tm.Elapsed()
			}
			b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "e2e-ms/op")
			b.ReportMetric(float64(up.Microseconds())/1e3, "upload-ms")
			b.ReportMetric(float64(len(m.Data)/128)*float64(b.N)/kernel.Seconds(), "rows/s")
		})
	}
}

// BenchmarkCommitMatrix31 commits BabyBear matrices of 128 columns (16
// permutations a row), 2^12, 2^16, 2^20 and 2^24 rows (-short: 2^12), with
// Plonky3's MMCS hashes: the target is 2^20 × 128 on one H100 in
// at most 6 ms of kernels (2^24 rows: 80 ms). The bytes are the matrix's.
//
// The bound, counted from the generated layers: a BabyBear16 permutation
// is 564 Montgomery products (8·16 S-boxes of 4, 13 of 4) and 117 single
// reductions (the internal layer's 1/2^k), about 1,900 32-bit multiplies
// with shader-int64 (3 a product, 2 a reduction; about 3x more on u32
// alone), and about 1,300 modular additions. 2^20 × 128 is 2^24 sponge
// permutations and 2^20 - 1 merges, 17.8 M permutations: about 3.4e10
// multiplies (2 ms at an H100's 64 a clock per SM, 132 SMs, 1.98 GHz) and
// 1.3e11 instructions in all (4 ms at one warp instruction a clock per SM
// quarter), so the target needs the kernel near its issue rate.
func BenchmarkCommitMatrix31(b *testing.B) {
	logs := []int{12, 16, 20, 24}
	if testing.Short() {
		logs = logs[:1]
	}
	hash := poseidon2.BabyBearMerkle
	for _, lg := range logs {
		m := merkle.Matrix[uint32]{Rows: 1 << lg, Cols: 128, Data: make([]uint32, 128<<lg)}
		for i := range m.Data {
			m.Data[i] = uint32(i*2654435761) % hash.Modulus()
		}
		benchCommit(b, fmt.Sprintf("poseidon2-babybear/2^%dx128", lg), merkle.Schedule{{Hash: hash}}, int64(len(m.Data))*4, func(c *merkle.Committer) error {
			_, err := merkle.CommitMatrix(nil, m, hash, merkle.Options{Committer: c})
			return err
		})
	}
}
