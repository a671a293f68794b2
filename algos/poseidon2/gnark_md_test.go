package poseidon2

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/internal/hashtest"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// lineaMD is Linea's poseidon2_koalabear.MDHasher (WriteElements, then
// SumElement) written over gnark-crypto: from the zero state, each block of
// 8 elements compressed into it by vortex.CompressPoseidon2, a partial last
// block copied to the block's end after zeros.
func lineaMD(x []koalabear.Element) vortex.Hash {
	var st vortex.Hash
	for pos := 0; pos < len(x); {
		var blk vortex.Hash
		if rest := len(x) - pos; rest < 8 {
			copy(blk[8-rest:], x[pos:])
			pos = len(x)
		} else {
			copy(blk[:], x[pos:pos+8])
			pos += 8
		}
		st = vortex.CompressPoseidon2(st, blk)
	}
	return st
}

// canonicalHash returns h's elements canonical, as our digests hold them.
func canonicalHash(h vortex.Hash) [Digest31]uint32 {
	var d [Digest31]uint32
	for i := range h {
		d[i] = uint32(h[i].Uint64())
	}
	return d
}

func randKoala(rng *rand.Rand, n int) []koalabear.Element {
	x := make([]koalabear.Element, n)
	for i := range x {
		x[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
	}
	return x
}

func mdRand(t testing.TB) *rand.Rand {
	seed := [2]uint64{rand.Uint64(), rand.Uint64()}
	t.Logf("seed %x", seed)
	return rand.New(rand.NewPCG(seed[0], seed[1]))
}

// TestGnarkMDReferences holds the CPU references to Linea's hasher
// written over gnark-crypto, and to the reference permutation's
// MerkleDamgard: SIS-digest leaves, column leaves of every row count from
// 1 to 17 (padded and not) and nodes.
func TestGnarkMDReferences(t *testing.T) {
	rng := mdRand(t)
	g := GnarkKoalaBear
	for _, m := range []int{1, 5, 8, 13, 16, 256 + 3, 512} {
		const n = 19
		x := randKoala(rng, n*m)
		got := make([]uint32, Digest31*n)
		require.NoError(t, g.LeavesMD(got, flatElements(x), m))
		for k := range n {
			want := canonicalHash(lineaMD(x[k*m : (k+1)*m]))
			require.Equal(t, want[:], got[Digest31*k:Digest31*(k+1)], "m %d input %d", m, k)
		}
		canon := make([]uint32, m)
		for j := range canon {
			canon[j] = uint32(x[j].Uint64())
		}
		ref, err := g.MerkleDamgard(canon)
		require.NoError(t, err)
		require.Equal(t, ref[:], got[:Digest31], "m %d: the reference permutation's MerkleDamgard", m)
	}
	for rows := 1; rows <= 17; rows++ {
		const width = 21
		x := randKoala(rng, rows*width)
		got := make([]uint32, Digest31*width)
		require.NoError(t, g.ColumnLeavesMD(got, flatElements(x), rows, width))
		col := make([]koalabear.Element, rows)
		for c := range width {
			for r := range rows {
				col[r] = x[r*width+c]
			}
			want := canonicalHash(lineaMD(col))
			require.Equal(t, want[:], got[Digest31*c:Digest31*(c+1)], "rows %d column %d", rows, c)
		}
	}
	for range 20 {
		x := randKoala(rng, 16)
		var l, r [32]byte
		copy(l[:], wgpu.Bytes(canonicalSlice(x[:8])))
		copy(r[:], wgpu.Bytes(canonicalSlice(x[8:])))
		want := canonicalHash(lineaMD(x))
		require.Equal(t, Digest31Bytes(want), g.MergeMD(l, r))
	}
}

func canonicalSlice(x []koalabear.Element) []uint32 {
	out := make([]uint32, len(x))
	for i := range x {
		out[i] = uint32(x[i].Uint64())
	}
	return out
}

// TestGnarkMDReferencesReject gives the references bad shapes and words
// that are not Montgomery forms.
func TestGnarkMDReferencesReject(t *testing.T) {
	g := GnarkKoalaBear
	p := g.Modulus()
	require.ErrorContains(t, g.LeavesMD(make([]uint32, 8), make([]uint32, 5), 4), "give m >= 1")
	require.ErrorContains(t, g.LeavesMD(make([]uint32, 8), make([]uint32, 4), 0), "give m >= 1")
	require.ErrorContains(t, g.LeavesMD(make([]uint32, 8), []uint32{1, 2, p, 3}, 4), "input 0 element 2")
	require.ErrorContains(t, g.ColumnLeavesMD(make([]uint32, 16), make([]uint32, 5), 3, 2), "give rows and width")
	require.ErrorContains(t, g.ColumnLeavesMD(make([]uint32, 16), make([]uint32, 6), 0, 2), "give rows and width")
	require.ErrorContains(t, g.ColumnLeavesMD(make([]uint32, 16), []uint32{0, 0, 0, p + 1, 0, 0}, 3, 2), "row 1 column 1")
}

// TestGnarkLeavesMDDispatch hashes SIS-digest-shaped inputs already on
// the device (Montgomery forms, as gnark-crypto holds them) into leaves.
func TestGnarkLeavesMDDispatch(t *testing.T) {
	rng := mdRand(t)
	g := GnarkKoalaBear
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, c := range []struct{ n, m int }{{37, 512}, {101, 256}, {5, 1}, {9, 7}, {33, 13}, {3, 520}} {
			x := randKoala(rng, c.n*c.m)
			want := make([]uint32, Digest31*c.n)
			require.NoError(t, g.LeavesMD(want, flatElements(x), c.m))
			in, err := ctx.NewBuffer("inputs", uint64(4*len(x)))
			require.NoError(t, err)
			defer in.Release()
			// The digests start past a binding's alignment, as a tile's do.
			out, err := ctx.NewBuffer("digests", 256+32*uint64(c.n))
			require.NoError(t, err)
			defer out.Release()
			require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(x)))
			d, err := g.LeavesMDDispatch(ctx, wgpu.Bind(in), wgpu.Binding{Buffer: out, Offset: 256, Size: 32 * uint64(c.n)}, c.n, c.m)
			require.NoError(t, err)
			_, err = ctx.Run(d)
			require.NoError(t, err)
			got := make([]uint32, Digest31*c.n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 256))
			require.Equal(t, want, got, "%d inputs of %d", c.n, c.m)
		}
		_, err := g.LeavesMDDispatch(ctx, wgpu.Binding{}, wgpu.Binding{}, 0, 512)
		require.Error(t, err)
		_, err = g.LeavesMDDispatch(ctx, wgpu.Binding{}, wgpu.Binding{}, 1<<24, 512)
		require.Error(t, err)
	})
}

// TestGnarkColumnLeavesMDDispatches hashes the columns of row-major tiles
// of every row count from 1 to 17 and a few larger, odd widths; on small
// limits the digests go in several pieces.
func TestGnarkColumnLeavesMDDispatches(t *testing.T) {
	rng := mdRand(t)
	g := GnarkKoalaBear
	check := func(t *testing.T, ctx *wgpu.Context, rows, width int) {
		x := randKoala(rng, rows*width)
		want := make([]uint32, Digest31*width)
		require.NoError(t, g.ColumnLeavesMD(want, flatElements(x), rows, width))
		// A pool's tile buffer may be larger than its rows.
		in, err := ctx.NewBuffer("tile", uint64(4*len(x))+1024)
		require.NoError(t, err)
		defer in.Release()
		out, err := ctx.NewBuffer("leaves", 256+32*uint64(width))
		require.NoError(t, err)
		defer out.Release()
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(x)))
		ds, err := g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(in), wgpu.Binding{Buffer: out, Offset: 256}, rows, width)
		require.NoError(t, err)
		if 32*uint64(width) > ctx.Limits().Binding() {
			require.Greater(t, len(ds), 1, "the digests exceed a binding")
		}
		_, err = ctx.Run(ds...)
		require.NoError(t, err)
		got := make([]uint32, Digest31*width)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 256))
		require.Equal(t, want, got, "%d rows × %d", rows, width)
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for rows := 1; rows <= 17; rows++ {
			check(t, ctx, rows, 77)
		}
		for _, rows := range []int{31, 64, 255} {
			check(t, ctx, rows, 333)
		}
		in, err := ctx.NewBuffer("tile", 64)
		require.NoError(t, err)
		defer in.Release()
		_, err = g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(in), wgpu.Bind(in), 0, 4)
		require.ErrorContains(t, err, "give at least one")
		_, err = g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(in), wgpu.Bind(in), 5, 4) // 80 bytes of a buffer of 64
		require.ErrorContains(t, err, "must hold the 80 bytes")
		_, err = g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(in), wgpu.Bind(in), 4, 4)
		require.ErrorContains(t, err, "must hold 128 bytes")
		// An offset near 2^64 does not wrap the sum round to a fit.
		_, err = g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(in), wgpu.Binding{Buffer: in, Offset: ^uint64(0) - 64}, 1, 4)
		require.ErrorContains(t, err, "must hold 128 bytes")
		_, err = g.ColumnLeavesMDDispatches(ctx, wgpu.Binding{Buffer: in, Offset: ^uint64(0) - 8, Size: 16}, wgpu.Bind(in), 1, 4)
		require.ErrorContains(t, err, "must hold the 16 bytes")
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		// 3 × 4096 words fit a small binding, their 4096 digests do not.
		check(t, ctx, 3, 4096)
		check(t, ctx, 1, 3000)
	})
}

// TestGnarkMergeMDDispatch builds Linea's trees on the device level by
// level, a level's pairs cut into pieces within the device's bindings as
// Vortex cuts them, and holds every node to Linea's hasher over
// gnark-crypto (smt_koalabear's hashLR).
func TestGnarkMergeMDDispatch(t *testing.T) {
	rng := mdRand(t)
	g := GnarkKoalaBear
	build := func(t *testing.T, ctx *wgpu.Context, depth int) {
		leaves := randKoala(rng, 8<<depth)
		want := [][]vortex.Hash{make([]vortex.Hash, 1<<depth)}
		for i := range want[0] {
			copy(want[0][i][:], leaves[8*i:8*i+8])
		}
		for lv := 1; lv <= depth; lv++ {
			below := want[lv-1]
			next := make([]vortex.Hash, len(below)/2)
			for i := range next {
				next[i] = lineaMD(append(below[2*i][:], below[2*i+1][:]...))
			}
			want = append(want, next)
		}
		levels := make([]*wgpu.Buffer, depth+1)
		for lv := range levels {
			b, err := ctx.NewBuffer("level", 32<<(depth-lv))
			require.NoError(t, err)
			defer b.Release()
			levels[lv] = b
		}
		require.NoError(t, ctx.Upload(levels[0], 0, wgpu.Bytes(canonicalSlice(leaves))))
		limit := ctx.Limits().Binding()
		var ds []wgpu.Dispatch
		for lv := 1; lv <= depth; lv++ {
			size := uint64(32) << (depth - lv + 1)
			step := size
			for step > limit {
				step /= 2
			}
			for off := uint64(0); off < size; off += step {
				d, err := g.MergeMDDispatch(ctx, wgpu.Binding{Buffer: levels[lv-1], Offset: off, Size: step}, wgpu.Binding{Buffer: levels[lv], Offset: off / 2, Size: step / 2}, int(step/64))
				require.NoError(t, err)
				ds = append(ds, d)
			}
		}
		_, err := ctx.Run(ds...)
		require.NoError(t, err)
		for lv := 1; lv <= depth; lv++ {
			got := make([]uint32, 8<<(depth-lv))
			require.NoError(t, ctx.Download(wgpu.Bytes(got), levels[lv], 0))
			for i, h := range want[lv] {
				w := canonicalHash(h)
				require.Equal(t, w[:], got[8*i:8*i+8], "depth %d level %d node %d", depth, lv, i)
			}
		}
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, depth := range []int{1, 2, 7} {
			build(t, ctx, depth)
		}
		// An odd count of pairs, against the reference.
		const n = 45
		x := randKoala(rng, 16*n)
		in, err := ctx.NewBuffer("pairs", 64*n)
		require.NoError(t, err)
		defer in.Release()
		out, err := ctx.NewBuffer("nodes", 32*n)
		require.NoError(t, err)
		defer out.Release()
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(canonicalSlice(x))))
		d, err := g.MergeMDDispatch(ctx, wgpu.Bind(in), wgpu.Bind(out), n)
		require.NoError(t, err)
		_, err = ctx.Run(d)
		require.NoError(t, err)
		got := make([]uint32, 8*n)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 0))
		for i := range n {
			var l, r [32]byte
			copy(l[:], wgpu.Bytes(canonicalSlice(x[16*i:16*i+8])))
			copy(r[:], wgpu.Bytes(canonicalSlice(x[16*i+8:16*i+16])))
			w := g.MergeMD(l, r)
			require.Equal(t, w[:], wgpu.Bytes(got[8*i:8*i+8]), "pair %d", i)
		}
		_, err = g.MergeMDDispatch(ctx, wgpu.Bind(in), wgpu.Bind(out), 0)
		require.Error(t, err)
	})
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		build(t, ctx, 12) // the first levels exceed a small binding
	})
}

// BenchmarkGnarkMD times Linea's hashes on the first GPU backend, kernels
// alone (the inputs stay on the device; kernel-ms/op is the GPU's
// timestamps): the leaves of 2^20 columns' SIS(9,16) digests (512
// elements, 64 compressions a column; 2^12 with -short), in tiles of at
// most 2^18 columns that fit a binding, as Vortex binds them (one tile of
// inputs on the device, hashed into each tile's place of the leaves); the
// leaves of 2^20 codeword columns of 256 rows without SIS (32
// compressions a column); and a tree's levels from 2^20 leaves (MergeMD,
// two compressions a node).
func BenchmarkGnarkMD(b *testing.B) {
	if len(gputest.Backends()) == 0 {
		b.Skip("no GPU backend")
	}
	cols := 1 << 20
	if testing.Short() {
		cols = 1 << 12
	}
	ctx := gputest.Context(b, gputest.Backends()[0])
	g := GnarkKoalaBear
	rng := mdRand(b)
	timed := func(b *testing.B, perms float64, ds []wgpu.Dispatch) {
		for start := time.Now(); time.Since(start) < warmUp31; {
			if _, err := ctx.Run(ds...); err != nil {
				b.Fatal(err)
			}
		}
		var kernel time.Duration
		b.ResetTimer()
		for range b.N {
			t, err := ctx.Run(ds...)
			if err != nil {
				b.Fatal(err)
			}
			kernel += t.Elapsed()
		}
		b.StopTimer()
		b.ReportMetric(float64(kernel.Microseconds())/1e3/float64(b.N), "kernel-ms/op")
		b.ReportMetric(perms*float64(b.N)/kernel.Seconds(), "perms/s")
	}
	upload := func(b *testing.B, label string, words int) *wgpu.Buffer {
		buf, err := ctx.NewBuffer(label, 4*uint64(words))
		if err != nil {
			b.Fatal(err)
		}
		const chunk = 1 << 22
		for off := 0; off < words; off += chunk {
			x := randKoala(rng, min(chunk, words-off))
			if err := ctx.Upload(buf, 4*uint64(off), wgpu.Bytes(x)); err != nil {
				b.Fatal(err)
			}
		}
		return buf
	}
	leaves, err := ctx.NewBuffer("leaves", 32*uint64(cols))
	if err != nil {
		b.Fatal(err)
	}
	defer leaves.Release()
	b.Run(fmt.Sprintf("leaves-sis/%dx512", cols), func(b *testing.B) {
		tile := fitTile(cols, 512*4, ctx.Limits().Binding())
		dg := upload(b, "digests", tile*512)
		defer dg.Release()
		var ds []wgpu.Dispatch
		for t := 0; t < cols; t += tile {
			d, err := g.LeavesMDDispatch(ctx, wgpu.Bind(dg), wgpu.Binding{Buffer: leaves, Offset: 32 * uint64(t), Size: 32 * uint64(tile)}, tile, 512)
			if err != nil {
				b.Fatal(err)
			}
			ds = append(ds, d)
		}
		timed(b, float64(cols)*64, ds)
	})
	b.Run(fmt.Sprintf("leaves-nosis/256x%d", cols), func(b *testing.B) {
		const rows = 256
		w := fitTile(cols, rows*4, ctx.Limits().Binding())
		tile := upload(b, "codewords", rows*w)
		defer tile.Release()
		var ds []wgpu.Dispatch
		for t := 0; t < cols; t += w {
			d, err := g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(tile), wgpu.Binding{Buffer: leaves, Offset: 32 * uint64(t)}, rows, w)
			if err != nil {
				b.Fatal(err)
			}
			ds = append(ds, d...)
		}
		timed(b, float64(cols)*rows/8, ds)
	})
	b.Run(fmt.Sprintf("tree/%d", cols), func(b *testing.B) {
		var levels []*wgpu.Buffer
		defer func() {
			for _, l := range levels {
				l.Release()
			}
		}()
		levels = append(levels, leaves)
		for n := cols / 2; n >= 1; n /= 2 {
			l, err := ctx.NewBuffer("level", 32*uint64(n))
			if err != nil {
				b.Fatal(err)
			}
			levels = append(levels, l)
		}
		limit := ctx.Limits().Binding()
		var ds []wgpu.Dispatch
		for lv := 1; lv < len(levels); lv++ {
			size := uint64(32*cols) >> (lv - 1)
			step := size
			for step > limit {
				step /= 2
			}
			for off := uint64(0); off < size; off += step {
				d, err := g.MergeMDDispatch(ctx, wgpu.Binding{Buffer: levels[lv-1], Offset: off, Size: step}, wgpu.Binding{Buffer: levels[lv], Offset: off / 2, Size: step / 2}, int(step/64))
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, d)
			}
		}
		levels = levels[1:] // the leaves are released with the benchmark
		timed(b, float64(cols-1)*2, ds)
	})
}

// lineaCommit is the part of a commit vector of Linea's code
// (testdata/linea, written by tools/lineagen) that its hashes make: the
// leaves (column_hashes), the levels above them up to the root (tree,
// leaf side first), and where the file holds them the SIS digests of the
// columns or the encoded matrix (rows of codewords). Every value
// canonical.
type lineaCommit struct {
	SIS          bool          `json:"sis"`
	Root         [8]uint32     `json:"root"`
	ColumnHashes [][8]uint32   `json:"column_hashes"`
	Tree         [][][8]uint32 `json:"tree"`
	SISDigests   [][]uint32    `json:"sis_digests"`
	Encoded      [][]uint32    `json:"encoded"`
}

// TestGnarkMDLineaVectors holds the leaves and trees the dispatches make
// to those of Linea's own code: the leaves of its SIS digests, of its
// encoded columns where a round has no SIS, and every node of its trees.
func TestGnarkMDLineaVectors(t *testing.T) {
	files, err := filepath.Glob("../../testdata/linea/commit_*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	g := GnarkKoalaBear
	f := g.Permutation().Field()
	monty := func(x []uint32) []uint32 {
		out := make([]uint32, len(x))
		for i, v := range x {
			out[i] = f.ToMonty(v)
		}
		return out
	}
	var vs []lineaCommit
	var names []string
	var digests, columns int
	for _, name := range files {
		var v lineaCommit
		hashtest.LoadJSON(t, name, &v)
		require.NotEmpty(t, v.ColumnHashes, name)
		require.Equal(t, v.Root, v.Tree[len(v.Tree)-1][0], name)
		vs, names = append(vs, v), append(names, filepath.Base(name))
		if v.SISDigests != nil {
			digests++
		}
		if !v.SIS && v.Encoded != nil {
			columns++
		}
	}
	require.Positive(t, digests, "no vector holds SIS digests")
	require.Positive(t, columns, "no vector without SIS holds its encoded matrix")
	flat := func(h [][8]uint32) []uint32 {
		out := make([]uint32, 0, 8*len(h))
		for _, d := range h {
			out = append(out, d[:]...)
		}
		return out
	}
	// The CPU references first.
	for i, v := range vs {
		want := flat(v.ColumnHashes)
		got := make([]uint32, len(want))
		if v.SISDigests != nil {
			m := len(v.SISDigests[0])
			var in []uint32
			for _, d := range v.SISDigests {
				in = append(in, monty(d)...)
			}
			require.NoError(t, g.LeavesMD(got, in, m))
			require.Equal(t, want, got, "%s: leaves of the SIS digests", names[i])
		}
		if !v.SIS && v.Encoded != nil {
			var in []uint32
			for _, r := range v.Encoded {
				in = append(in, monty(r)...)
			}
			require.NoError(t, g.ColumnLeavesMD(got, in, len(v.Encoded), len(v.ColumnHashes)))
			require.Equal(t, want, got, "%s: leaves of the columns", names[i])
		}
		below := v.ColumnHashes
		for lv, level := range v.Tree {
			for k, node := range level {
				require.Equal(t, Digest31Bytes(node), g.MergeMD(Digest31Bytes(below[2*k]), Digest31Bytes(below[2*k+1])), "%s: level %d node %d", names[i], lv, k)
			}
			below = level
		}
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		upload := func(words []uint32) *wgpu.Buffer {
			b, err := ctx.NewBuffer("vector", 4*uint64(len(words)))
			require.NoError(t, err)
			require.NoError(t, ctx.Upload(b, 0, wgpu.Bytes(words)))
			return b
		}
		for i, v := range vs {
			n := len(v.ColumnHashes)
			var ds []wgpu.Dispatch
			var bufs []*wgpu.Buffer
			leaves, err := ctx.NewBuffer("leaves", 32*uint64(n))
			require.NoError(t, err)
			bufs = append(bufs, leaves)
			switch {
			case v.SISDigests != nil:
				var in []uint32
				for _, d := range v.SISDigests {
					in = append(in, monty(d)...)
				}
				b := upload(in)
				bufs = append(bufs, b)
				d, err := g.LeavesMDDispatch(ctx, wgpu.Bind(b), wgpu.Bind(leaves), n, len(v.SISDigests[0]))
				require.NoError(t, err)
				ds = append(ds, d)
			case !v.SIS && v.Encoded != nil:
				var in []uint32
				for _, r := range v.Encoded {
					in = append(in, monty(r)...)
				}
				b := upload(in)
				bufs = append(bufs, b)
				d, err := g.ColumnLeavesMDDispatches(ctx, wgpu.Bind(b), wgpu.Bind(leaves), len(v.Encoded), n)
				require.NoError(t, err)
				ds = append(ds, d...)
			default:
				require.NoError(t, ctx.Upload(leaves, 0, wgpu.Bytes(flat(v.ColumnHashes))))
			}
			levels := []*wgpu.Buffer{leaves}
			for m := n / 2; m >= 1; m /= 2 {
				b, err := ctx.NewBuffer("level", 32*uint64(m))
				require.NoError(t, err)
				bufs = append(bufs, b)
				d, err := g.MergeMDDispatch(ctx, wgpu.Bind(levels[len(levels)-1]), wgpu.Bind(b), m)
				require.NoError(t, err)
				ds, levels = append(ds, d), append(levels, b)
			}
			_, err = ctx.Run(ds...)
			require.NoError(t, err)
			got := make([]uint32, 8*n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got), leaves, 0))
			require.Equal(t, flat(v.ColumnHashes), got, "%s: leaves", names[i])
			for lv, level := range v.Tree {
				got := make([]uint32, 8*len(level))
				require.NoError(t, ctx.Download(wgpu.Bytes(got), levels[lv+1], 0))
				require.Equal(t, flat(level), got, "%s: tree level %d", names[i], lv)
			}
			for _, b := range bufs {
				b.Release()
			}
		}
	})
}

// fitTile returns the most columns, a power of two up to 2^18 and cols,
// whose bytes (perColumn each) fit a binding of limit bytes.
func fitTile(cols, perColumn int, limit uint64) int {
	w := min(cols, 1<<18)
	for w > 1 && uint64(w)*uint64(perColumn) > limit {
		w /= 2
	}
	return w
}
