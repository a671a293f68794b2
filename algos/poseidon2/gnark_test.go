package poseidon2

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/babybear"
	bbp2 "github.com/consensys/gnark-crypto/field/babybear/poseidon2"
	"github.com/consensys/gnark-crypto/field/koalabear"
	kbp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
	"github.com/consensys/gnark-crypto/field/koalabear/vortex"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// gnarkOracle is gnark-crypto's side of one of our gnark instances, on
// canonical uint32 values (gnark-crypto's elements are Montgomery forms in
// memory: SetUint64 enters a value, Uint64 leaves it).
type gnarkOracle struct {
	ours   *Permutation31
	rounds [2]int // full, partial
	// permute is gnark-crypto's Permutation on canonical values.
	permute func(s []uint32)
	// keys are gnark-crypto's round keys, canonical.
	keys func() [][]uint64
	// bytes is gnark's Marshal of a canonical value (4 bytes, big-endian).
	bytes func(x uint32) []byte
}

func kbPermute(w, f, p int) func([]uint32) {
	perm := kbp2.NewPermutation(w, f, p)
	return func(s []uint32) {
		x := make([]koalabear.Element, len(s))
		for i, v := range s {
			x[i].SetUint64(uint64(v))
		}
		if err := perm.Permutation(x); err != nil {
			panic(err)
		}
		for i := range x {
			s[i] = uint32(x[i].Uint64())
		}
	}
}

func bbPermute(w, f, p int) func([]uint32) {
	perm := bbp2.NewPermutation(w, f, p)
	return func(s []uint32) {
		x := make([]babybear.Element, len(s))
		for i, v := range s {
			x[i].SetUint64(uint64(v))
		}
		if err := perm.Permutation(x); err != nil {
			panic(err)
		}
		for i := range x {
			s[i] = uint32(x[i].Uint64())
		}
	}
}

func canonicalKeys[E any, PE interface {
	*E
	Uint64() uint64
}](rk [][]E) [][]uint64 {
	out := make([][]uint64, len(rk))
	for i, row := range rk {
		for j := range row {
			out[i] = append(out[i], PE(&row[j]).Uint64())
		}
	}
	return out
}

func kbBytes(x uint32) []byte {
	var e koalabear.Element
	e.SetUint64(uint64(x))
	b := e.Marshal()
	return b
}

func bbBytes(x uint32) []byte {
	var e babybear.Element
	e.SetUint64(uint64(x))
	return e.Marshal()
}

var gnarkOracles = []gnarkOracle{
	{GnarkKoalaBear16, [2]int{6, 21}, kbPermute(16, 6, 21), func() [][]uint64 {
		return canonicalKeys(kbp2.NewParameters(16, 6, 21).RoundKeys)
	}, kbBytes},
	{GnarkKoalaBear24, [2]int{6, 21}, kbPermute(24, 6, 21), func() [][]uint64 {
		return canonicalKeys(kbp2.NewParameters(24, 6, 21).RoundKeys)
	}, kbBytes},
	{GnarkBabyBear16, [2]int{8, 13}, bbPermute(16, 8, 13), func() [][]uint64 {
		return canonicalKeys(bbp2.NewParameters(16, 8, 13).RoundKeys)
	}, bbBytes},
	{GnarkBabyBear24, [2]int{8, 21}, bbPermute(24, 8, 21), func() [][]uint64 {
		return canonicalKeys(bbp2.NewParameters(24, 8, 21).RoundKeys)
	}, bbBytes},
}

func oracleOf(p *Permutation31) gnarkOracle {
	for _, o := range gnarkOracles {
		if o.ours == p {
			return o
		}
	}
	panic("no oracle for " + p.Name())
}

// TestGnarkParamsFresh holds params31's gnark rows to gnark-crypto's
// Parameters: the round keys params31.Gnark takes from them, split into
// the initial full, partial and final full rounds.
func TestGnarkParamsFresh(t *testing.T) {
	require.Len(t, params31.GnarkSets, len(gnarkOracles))
	for _, o := range gnarkOracles {
		s := o.ours.set
		want := o.keys()
		half := o.rounds[0] / 2
		require.Len(t, want, o.rounds[0]+o.rounds[1], s.Name)
		var got [][]uint64
		for _, r := range s.ExternalInitial {
			got = append(got, widen(r))
		}
		for _, c := range s.Internal {
			got = append(got, []uint64{uint64(c)})
		}
		for _, r := range s.ExternalFinal {
			got = append(got, widen(r))
		}
		require.Equal(t, want, got, "%s: round keys", s.Name)
		require.Len(t, s.ExternalInitial, half, s.Name)
		require.Equal(t, o.rounds[1], o.ours.PartialRounds(), s.Name)
	}
}

func widen(r []uint32) []uint64 {
	out := make([]uint64, len(r))
	for i, x := range r {
		out[i] = uint64(x)
	}
	return out
}

// TestGnarkPermutation holds each gnark instance, the reference and the
// Montgomery twin the CPU path runs, to gnark-crypto's Permutation (its
// AVX-512 path where the CPU has it) on random states.
func TestGnarkPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, o := range gnarkOracles {
		p := o.ours
		for range 200 {
			s := randStates31(p, rng, 1)
			want := append([]uint32(nil), s...)
			o.permute(want)
			got := append([]uint32(nil), s...)
			require.NoError(t, p.Permute(got))
			require.Equal(t, want, got, "%s reference", p.Name())
			got = append(got[:0], s...)
			require.NoError(t, reducing31{p}.Permute(got))
			require.Equal(t, want, got, "%s Montgomery", p.Name())
		}
	}
}

func gnarkHashes() []GnarkHash { return []GnarkHash{GnarkKoalaBear, GnarkBabyBear} }

// gnarkCompressOracle is gnark-crypto's Permutation.Compress on the
// digests' bytes, read back as canonical values.
func gnarkCompressOracle(t testing.TB, g GnarkHash, a, b [8]uint32) [8]uint32 {
	o := oracleOf(g.Permutation())
	var l, r []byte
	for i := range 8 {
		l = append(l, o.bytes(a[i])...)
		r = append(r, o.bytes(b[i])...)
	}
	var out []byte
	var err error
	if g.Permutation().Field() == GnarkKoalaBear16.Field() {
		out, err = kbp2.NewPermutation(16, 6, 21).Compress(l, r)
	} else {
		out, err = bbp2.NewPermutation(16, 8, 13).Compress(l, r)
	}
	require.NoError(t, err)
	return digestOfBytes(out)
}

func digestOfBytes(b []byte) [8]uint32 {
	var d [8]uint32
	for i := range d {
		d[i] = uint32(b[4*i])<<24 | uint32(b[4*i+1])<<16 | uint32(b[4*i+2])<<8 | uint32(b[4*i+3])
	}
	return d
}

// gnarkMDOracle is gnark-crypto's NewMerkleDamgardHasher fed the
// elements' bytes in one Write.
func gnarkMDOracle(t testing.TB, g GnarkHash, els []uint32) [8]uint32 {
	o := oracleOf(g.Permutation())
	var in []byte
	for _, x := range els {
		in = append(in, o.bytes(x)...)
	}
	h := kbp2.NewMerkleDamgardHasher()
	if g.Permutation().Field() != GnarkKoalaBear16.Field() {
		h = bbp2.NewMerkleDamgardHasher()
	}
	_, err := h.Write(in)
	require.NoError(t, err)
	return digestOfBytes(h.Sum(nil))
}

// gnarkSpongeOracle is vortex.HashPoseidon2 over KoalaBear; over BabyBear
// (which has no Vortex in gnark-crypto) the same loop over gnark-crypto's
// width-24 permutation.
func gnarkSpongeOracle(g GnarkHash, els []uint32) [8]uint32 {
	if g.Permutation().Field() == GnarkKoalaBear16.Field() {
		x := make([]koalabear.Element, len(els))
		for i, v := range els {
			x[i].SetUint64(uint64(v))
		}
		h := vortex.HashPoseidon2(x)
		var d [8]uint32
		for i := range d {
			d[i] = uint32(h[i].Uint64())
		}
		return d
	}
	perm := oracleOf(g.SpongePermutation()).permute
	var state [24]uint32
	for i := 0; i < len(els); i += 16 {
		copy(state[8:], els[i:])
		perm(state[:])
	}
	return [8]uint32(state[:8])
}

// TestGnarkConstructions holds Compress, Sponge and MerkleDamgard, and
// their Montgomery twins, to gnark-crypto on random inputs of every length
// up to 70 elements.
func TestGnarkConstructions(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, g := range gnarkHashes() {
		c := g.Permutation()
		for range 100 {
			s := randStates31(c, rng, 1)
			a, b := [8]uint32(s[:8]), [8]uint32(s[8:])
			want := gnarkCompressOracle(t, g, a, b)
			got, err := g.Compress(a, b)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s compress", g.Name())
			require.Equal(t, want, g.merge8(a, b), "%s compress (Montgomery)", g.Name())
			if c == GnarkKoalaBear16 {
				var ka, kb vortex.Hash
				for i := range 8 {
					ka[i].SetUint64(uint64(a[i]))
					kb[i].SetUint64(uint64(b[i]))
				}
				h := vortex.CompressPoseidon2(ka, kb)
				for i := range 8 {
					require.Equal(t, uint64(want[i]), h[i].Uint64(), "CompressPoseidon2")
				}
			}
		}
		for n := range 71 {
			els := randStates31(c, rng, 5)[:n]
			want := gnarkSpongeOracle(g, els)
			got, err := g.Sponge(els)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s sponge of %d", g.Name(), n)
			require.Equal(t, want, g.hash8(els), "%s sponge of %d (Montgomery)", g.Name(), n)
			want = gnarkMDOracle(t, g, els)
			got, err = g.MerkleDamgard(els)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s Merkle-Damgard of %d", g.Name(), n)
			require.Equal(t, want, g.md8(els), "%s Merkle-Damgard of %d (Montgomery)", g.Name(), n)
		}
	}
}

// checkGnarkBatch holds each gnark batch family, on ctx (nil: the CPU
// path), to gnark-crypto on random inputs of odd counts and lengths.
func checkGnarkBatch(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, g := range gnarkHashes() {
		c := g.Permutation()
		o := oracleOf(c)
		for _, n := range []int{1, 3, 67, 1001} {
			flat := randStates31(c, rng, n)
			pairs := make([][16]uint32, n)
			for i := range pairs {
				pairs[i] = [16]uint32(flat[16*i:])
			}
			dst := make([][8]uint32, n)
			require.NoError(t, g.Batch().MergeMany(ctx, dst, pairs, batch.Options{}))
			for i, pr := range pairs {
				require.Equal(t, gnarkCompressOracle(t, g, [8]uint32(pr[:8]), [8]uint32(pr[8:])), dst[i], "%s merge, %d pairs, pair %d", g.Name(), n, i)
			}
			states := append([][16]uint32(nil), pairs...)
			require.NoError(t, g.Batch().PermuteMany(ctx, states, batch.Options{}))
			for i, s := range pairs {
				o.permute(s[:])
				require.Equal(t, s, states[i], "%s permute, %d states, state %d", g.Name(), n, i)
			}
		}
		for _, m := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 100} {
			for _, n := range []int{1, 67} {
				in := randStates31(c, rng, n*m/16+1)[:n*m]
				for _, md := range []bool{false, true} {
					f := g.Batch()
					if md {
						f = g.MDBatch()
					}
					dst := make([][8]uint32, n)
					require.NoError(t, f.HashElementsMany(ctx, dst, in, m, batch.Options{}))
					for i := range dst {
						els := in[i*m : (i+1)*m]
						want := gnarkSpongeOracle(g, els)
						if md {
							want = gnarkMDOracle(t, g, els)
						}
						require.Equal(t, want, dst[i], "%s hash, %d inputs of %d, input %d", f.Name(), n, m, i)
					}
				}
			}
		}
	}
}

func TestGnarkBatchCPU(t *testing.T) { checkGnarkBatch(t, nil) }

func TestGnarkBatchGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) { checkGnarkBatch(t, ctx) })
}

// TestGnarkPermute24GPU holds the width-24 permutations' kernel to
// gnark-crypto.
func TestGnarkPermute24GPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, p := range GnarkPermutations31 {
			st := randStates31(p, rng, 77)
			got := append([]uint32(nil), st...)
			_, err := p.permuteMany31(ctx, got)
			require.NoError(t, err)
			o := oracleOf(p)
			for i := 0; i < len(st); i += p.Width() {
				o.permute(st[i : i+p.Width()])
			}
			require.Equal(t, st, got, p.Name())
		}
	})
}

// BenchmarkGnarkCryptoPermute runs gnark-crypto's own permutations (its
// AVX-512 or NEON path where the CPU has one) on one core, beside
// BenchmarkPermute31's.
func BenchmarkGnarkCryptoPermute(b *testing.B) {
	for _, o := range gnarkOracles {
		b.Run(o.ours.Name(), func(b *testing.B) {
			s := randStates31(o.ours, newRand(b), 1)
			var run func()
			if o.ours.Field() == GnarkKoalaBear16.Field() {
				perm := kbp2.NewPermutation(o.ours.Width(), o.rounds[0], o.rounds[1])
				x := make([]koalabear.Element, len(s))
				for i, v := range s {
					x[i].SetUint64(uint64(v))
				}
				run = func() { _ = perm.Permutation(x) }
			} else {
				perm := bbp2.NewPermutation(o.ours.Width(), o.rounds[0], o.rounds[1])
				x := make([]babybear.Element, len(s))
				for i, v := range s {
					x[i].SetUint64(uint64(v))
				}
				run = func() { _ = perm.Permutation(x) }
			}
			b.ResetTimer()
			for range b.N {
				run()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "perms/s")
		})
	}
}

// checkSpongeMontgomery holds SpongeMontgomeryMany on ctx (nil: the CPU
// path) to vortex.HashPoseidon2x16 (16 inputs of a multiple of 16
// elements, as Vortex hashes its SIS digests) and vortex.HashPoseidon2 (any
// length), on gnark-crypto's elements as they are in memory.
func checkSpongeMontgomery(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	g := GnarkKoalaBear
	for _, m := range []int{16, 64, 512} {
		x := make([]koalabear.Element, 16*m)
		for i := range x {
			x[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
		}
		want := make([]vortex.Hash, 16)
		vortex.HashPoseidon2x16(x, want, m)
		got := make([]vortex.Hash, 16)
		require.NoError(t, g.SpongeMontgomeryMany(ctx, flatHashes(got), flatElements(x), m, batch.Options{}))
		require.Equal(t, want, got, "HashPoseidon2x16, %d elements", m)
	}
	for _, m := range []int{1, 7, 15, 17, 33} {
		for _, n := range []int{1, 67} {
			x := make([]koalabear.Element, n*m)
			for i := range x {
				x[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
			}
			got := make([]vortex.Hash, n)
			require.NoError(t, g.SpongeMontgomeryMany(ctx, flatHashes(got), flatElements(x), m, batch.Options{}))
			for i := range got {
				require.Equal(t, vortex.HashPoseidon2(x[i*m:(i+1)*m]), got[i], "HashPoseidon2, %d inputs of %d, input %d", n, m, i)
			}
		}
	}
	bad := make([]uint32, 32)
	bad[20] = 0x7f000001
	require.ErrorContains(t, g.SpongeMontgomeryMany(ctx, make([]uint32, 16), bad, 16, batch.Options{}), "input 1 element 4 is 2130706433")
	require.ErrorContains(t, g.SpongeMontgomeryMany(ctx, make([]uint32, 16), bad[:31], 16, batch.Options{}), "give m >= 1")
	if ctx == nil {
		return
	}
	// A Group of one is its member; a Group of several is refused, dst
	// left as it was.
	one, err := sched.NewGroup(ctx)
	require.NoError(t, err)
	x := make([]koalabear.Element, 3*16)
	for i := range x {
		x[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
	}
	got := make([]vortex.Hash, 3)
	require.NoError(t, g.SpongeMontgomeryMany(one, flatHashes(got), flatElements(x), 16, batch.Options{}))
	require.Equal(t, vortex.HashPoseidon2(x[16:32]), got[1])
	two, err := sched.NewGroup(ctx, ctx)
	require.NoError(t, err)
	dst := make([]uint32, 16)
	require.EqualError(t, g.SpongeMontgomeryMany(two, dst, make([]uint32, 32), 16, batch.Options{}),
		"poseidon2: poseidon2-gnark-koalabear sponge runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
	require.Equal(t, make([]uint32, 16), dst)
}

func flatHashes(h []vortex.Hash) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(&h[0])), 8*len(h))
}

func flatElements(x []koalabear.Element) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(&x[0])), len(x))
}

func TestGnarkSpongeMontgomeryCPU(t *testing.T) { checkSpongeMontgomery(t, nil) }

func TestGnarkSpongeMontgomeryGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) { checkSpongeMontgomery(t, ctx) })
}

// TestGnarkSpongeMontgomeryDispatch hashes inputs already on the device.
func TestGnarkSpongeMontgomeryDispatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const n, m = 37, 512
	x := make([]koalabear.Element, n*m)
	for i := range x {
		x[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		in, err := ctx.NewBuffer("inputs", uint64(4*len(x)))
		require.NoError(t, err)
		defer in.Release()
		out, err := ctx.NewBuffer("digests", 32*n)
		require.NoError(t, err)
		defer out.Release()
		require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(x)))
		d, err := GnarkKoalaBear.SpongeMontgomeryDispatch(ctx, wgpu.Bind(in), wgpu.Bind(out), n, m)
		require.NoError(t, err)
		_, err = ctx.Run(d)
		require.NoError(t, err)
		got := make([]vortex.Hash, n)
		require.NoError(t, ctx.Download(flatBytes(got), out, 0))
		for i := range got {
			require.Equal(t, vortex.HashPoseidon2(x[i*m:(i+1)*m]), got[i], "input %d", i)
		}
		_, err = GnarkKoalaBear.SpongeMontgomeryDispatch(ctx, wgpu.Bind(in), wgpu.Bind(out), 0, m)
		require.Error(t, err)
	})
}

func flatBytes(h []vortex.Hash) []byte { return wgpu.Bytes(flatHashes(h)) }

// TestGnarkMerkleVortex builds package merkle's trees and matrix
// commitments with GnarkKoalaBear and holds their roots to Vortex's:
// vortex.BuildMerkleTree of the leaves (CompressPoseidon2 nodes), and of
// HashPoseidon2 of each row (Vortex's leaves, a row being a column's SIS
// digest), on the CPU and the GPU.
func TestGnarkMerkleVortex(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	toVortex := func(d [8]uint32) vortex.Hash {
		var h vortex.Hash
		for i, x := range d {
			h[i].SetUint64(uint64(x))
		}
		return h
	}
	fromVortex := func(h vortex.Hash) [32]byte {
		var d [8]uint32
		for i := range h {
			d[i] = uint32(h[i].Uint64())
		}
		return Digest31Bytes(d)
	}
	for _, n := range []int{1, 2, 64, 1024} {
		leaves := make([][32]byte, n)
		vl := make([]vortex.Hash, n)
		for i := range leaves {
			d := [8]uint32(randStates31(GnarkKoalaBear16, rng, 1))
			leaves[i], vl[i] = Digest31Bytes(d), toVortex(d)
		}
		want := fromVortex(vortex.BuildMerkleTree(vl, nil).Levels[0][0])
		tr, err := merkle.Build(nil, leaves, GnarkKoalaBear, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want, tr.Root(), "%d leaves, CPU", n)
		gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
			root, err := merkle.Root(ctx, leaves, GnarkKoalaBear, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, want, root, "%d leaves", n)
		})
	}
	const rows, cols = 256, 512 // 256 columns' SIS digests of degree 512
	m := merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: randStates31(GnarkKoalaBear16, rng, rows*cols/16)}
	vl := make([]vortex.Hash, rows)
	for r := range vl {
		x := make([]koalabear.Element, cols)
		for i := range x {
			x[i].SetUint64(uint64(m.Data[r*cols+i]))
		}
		vl[r] = vortex.HashPoseidon2(x)
	}
	want := fromVortex(vortex.BuildMerkleTree(vl, nil).Levels[0][0])
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		tr, err := merkle.CommitMatrix(ctx, m, GnarkKoalaBear, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want, tr.Root(), "commitment")
	})
}

// TestGnarkMontyMatrixVortex commits a matrix of gnark-crypto's own
// koalabear.Element values (Montgomery form in memory), given to
// merkle.MontyMatrix as they are, and holds the root to gnark-crypto's:
// vortex.BuildMerkleTree over vortex.HashPoseidon2 of each row, at an odd
// row length (a partial last block), on the CPU and the GPU.
func TestGnarkMontyMatrixVortex(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const rows, cols = 64, 37
	els := make([]koalabear.Element, rows*cols)
	for i := range els {
		els[i].SetUint64(rng.Uint64N(uint64(field.KoalaBear.P())))
	}
	vl := make([]vortex.Hash, rows)
	for r := range vl {
		vl[r] = vortex.HashPoseidon2(els[r*cols : (r+1)*cols])
	}
	var want [Digest31]uint32
	for i, x := range vortex.BuildMerkleTree(vl, nil).Levels[0][0] {
		want[i] = uint32(x.Uint64())
	}
	m := merkle.MontyMatrix(rows, cols, els)
	tr, err := merkle.CommitMatrix(nil, m, GnarkKoalaBear, merkle.Options{})
	require.NoError(t, err)
	require.Equal(t, Digest31Bytes(want), tr.Root(), "CPU")
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		tr, err := merkle.CommitMatrix(ctx, m, GnarkKoalaBear, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, Digest31Bytes(want), tr.Root(), "GPU")
	})
}
