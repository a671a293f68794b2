package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// batches31 are the 31-bit batch families with their hashes.
var batches31 = []struct {
	m MerkleMerge31
	f *batch.Monty31
}{{BabyBearMerkle, BabyBearBatch}, {KoalaBearMerkle, KoalaBearBatch}}

// refMerge31 and refHash31 are the reference's compression and sponge
// over p (its canonical Permute, not the Montgomery twin the batches run).
func refMerge31(t testing.TB, p *Permutation31, a, b [Digest31]uint32) [Digest31]uint32 {
	out, err := p.Compression().Compress(a[:], b[:])
	require.NoError(t, err)
	return [Digest31]uint32(out)
}

func refHash31(t testing.TB, p *Permutation31, els []uint32) [Digest31]uint32 {
	out, err := p.Sponge().Hash(els)
	require.NoError(t, err)
	return [Digest31]uint32(out)
}

// batchRun are the batch functions on one Context or on a Group.
type batchRun struct {
	merge   func(f *batch.Monty31, dst [][8]uint32, pairs [][16]uint32) error
	hash    func(f *batch.Monty31, dst [][8]uint32, in []uint32, m int) error
	permute func(f *batch.Monty31, states [][16]uint32) error
}

func onContext(ctx *wgpu.Context) batchRun {
	return batchRun{
		merge: func(f *batch.Monty31, dst [][8]uint32, pairs [][16]uint32) error {
			return f.MergeMany(ctx, dst, pairs, batch.Options{})
		},
		hash: func(f *batch.Monty31, dst [][8]uint32, in []uint32, m int) error {
			return f.HashElementsMany(ctx, dst, in, m, batch.Options{})
		},
		permute: func(f *batch.Monty31, states [][16]uint32) error { return f.PermuteMany(ctx, states, batch.Options{}) },
	}
}

// checkBatch31 holds each 31-bit batch function, run by r, to the
// reference on fresh random inputs of odd counts and lengths.
func checkBatch31(t *testing.T, r batchRun) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, b := range batches31 {
		p := b.m.Permutation()
		for _, n := range []int{1, 3, 67, 1001} {
			pairs := make([][16]uint32, n)
			flatPairs := randStates31(p, rng, n)
			for i := range pairs {
				pairs[i] = [16]uint32(flatPairs[16*i:])
			}
			dst := make([][8]uint32, n)
			require.NoError(t, r.merge(b.f, dst, pairs))
			for i, pr := range pairs {
				require.Equal(t, refMerge31(t, p, [8]uint32(pr[:8]), [8]uint32(pr[8:])), dst[i], "%s merge, %d pairs, pair %d", b.f.Name(), n, i)
			}

			states := append([][16]uint32(nil), pairs...)
			require.NoError(t, r.permute(b.f, states))
			for i, s := range pairs {
				require.NoError(t, p.Permute(s[:]))
				require.Equal(t, s, states[i], "%s permute, %d states, state %d", b.f.Name(), n, i)
			}
		}
		for _, m := range []int{0, 1, 7, 8, 9, 16, 17, 25} {
			for _, n := range []int{1, 67} {
				in := randStates31(p, rng, n*m/16+1)[:n*m]
				dst := make([][8]uint32, n)
				require.NoError(t, r.hash(b.f, dst, in, m))
				for i := range n {
					require.Equal(t, refHash31(t, p, in[i*m:(i+1)*m]), dst[i], "%s hash, %d inputs of %d, input %d", b.f.Name(), n, m, i)
				}
			}
		}
	}
}

func TestBatch31CPU(t *testing.T) { checkBatch31(t, onContext(nil)) }

func TestBatch31GPU(t *testing.T) {
	check := func(t *testing.T, ctx *wgpu.Context) { checkBatch31(t, onContext(ctx)) }
	gputest.ForEach(t, check)
	gputest.ForEachSmall(t, check)
}

func TestBatch31Group(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		checkBatch31(t, batchRun{
			merge: func(f *batch.Monty31, dst [][8]uint32, pairs [][16]uint32) error {
				return f.MergeMany(g, dst, pairs, batch.Options{})
			},
			hash: func(f *batch.Monty31, dst [][8]uint32, in []uint32, m int) error {
				return f.HashElementsMany(g, dst, in, m, batch.Options{})
			},
			permute: func(f *batch.Monty31, states [][16]uint32) error {
				return f.PermuteMany(g, states, batch.Options{})
			},
		})
	})
}

// TestBatch31Input checks that an element at or above p is refused, named
// by item and element, before anything runs, and that no call leaves a
// buffer alive.
func TestBatch31Input(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, b := range batches31 {
			p := b.m.Modulus()
			pairs := make([][16]uint32, 3)
			pairs[2][9] = p
			err := b.f.MergeMany(ctx, make([][8]uint32, 3), pairs, batch.Options{})
			require.ErrorContains(t, err, b.f.Name()+": merge: pair 2 element 9 is")
			require.ErrorContains(t, err, "must be below p")
			in := make([]uint32, 10)
			in[7] = p + 1
			err = b.f.HashElementsMany(ctx, make([][8]uint32, 2), in, 5, batch.Options{})
			require.ErrorContains(t, err, "hash: input 1 element 2 is")
			states := make([][16]uint32, 2)
			states[0][15] = ^uint32(0)
			require.ErrorContains(t, b.f.PermuteMany(ctx, states, batch.Options{}), "permute: state 0 element 15 is")

			gputest.NoLeaks(t, ctx, func() error {
				if err := b.f.MergeMany(ctx, make([][8]uint32, 5), make([][16]uint32, 5), batch.Options{}); err != nil {
					return err
				}
				if err := b.f.HashElementsMany(ctx, make([][8]uint32, 3), make([]uint32, 30), 10, batch.Options{}); err != nil {
					return err
				}
				return b.f.PermuteMany(ctx, states, batch.Options{}) // refused: state 0 element 15
			})
		}
	})
}

// TestBatchOfMerkle checks that each 31-bit Merkle hash names its batch
// functions and that their merge is its Merge.
func TestBatchOfMerkle(t *testing.T) {
	for _, b := range batches31 {
		require.Same(t, b.f, b.m.Batch())
		require.Equal(t, b.m.Name(), b.f.Name())
		var l, r [8]uint32
		l[0], r[7] = 5, 9
		dst := make([][8]uint32, 1)
		require.NoError(t, b.f.MergeMany(nil, dst, [][16]uint32{[16]uint32(append(l[:], r[:]...))}, batch.Options{}))
		require.Equal(t, b.m.Merge(Digest31Bytes(l), Digest31Bytes(r)), Digest31Bytes(dst[0]))
	}
}

// TestBatch31Pieces runs each operation over more items than one piece
// holds under small limits, with a sentinel item after each piece's
// output (Batcher.Guard), and holds every result to the reference.
func TestBatch31Pieces(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(rand.Uint64(), 3))
		for _, b := range batches31 {
			p := b.m.Permutation()
			bt, err := b.f.NewBatcher(ctx, batch.Options{})
			require.NoError(t, err)
			bt.Guard = true
			const n, m = 3001, 9 // about three pieces of merges at 64 KiB
			els := randStates31(p, rng, n)
			pairs := make([][16]uint32, n)
			for i := range pairs {
				pairs[i] = [16]uint32(els[16*i:])
			}
			dst := make([][8]uint32, n)
			require.NoError(t, bt.MergeMany(dst, pairs))
			for i, pr := range pairs {
				require.Equal(t, refMerge31(t, p, [8]uint32(pr[:8]), [8]uint32(pr[8:])), dst[i], "%s merge %d", b.f.Name(), i)
			}
			k := len(els) / m
			hdst := make([][8]uint32, k)
			require.NoError(t, bt.HashElementsMany(hdst, els[:k*m], m))
			for i := range k {
				require.Equal(t, refHash31(t, p, els[i*m:(i+1)*m]), hdst[i], "%s hash %d", b.f.Name(), i)
			}
			states := append([][16]uint32(nil), pairs...)
			require.NoError(t, bt.PermuteMany(states))
			for i, s := range pairs {
				require.NoError(t, p.Permute(s[:]))
				require.Equal(t, s, states[i], "%s permute %d", b.f.Name(), i)
			}
			bt.Release()
		}
	})
}

// TestBatch31Open: Batch is the same Family on every call, BabyBearBatch
// and KoalaBearBatch for their hashes, and a hash over a permutation the
// package does not list gets its own, which computes as its permutation
// does.
func TestBatch31Open(t *testing.T) {
	require.Same(t, BabyBearBatch, BabyBearMerkle.Batch())
	require.Same(t, KoalaBearBatch, KoalaBearMerkle.Batch())
	require.Same(t, BabyBearBatch, MerkleMerge31{}.Batch(), "the zero value is BabyBearMerkle")
	p, err := newPermutation31(params31.KoalaBear16)
	require.NoError(t, err)
	other := MerkleMerge31{p}
	f := other.Batch()
	require.NotSame(t, KoalaBearBatch, f)
	require.Same(t, f, other.Batch())
	pairs := [][16]uint32{{1, 2, 3}, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}}
	got := make([][8]uint32, len(pairs))
	want := make([][8]uint32, len(pairs))
	require.NoError(t, f.MergeMany(nil, got, pairs, batch.Options{}))
	require.NoError(t, KoalaBearBatch.MergeMany(nil, want, pairs, batch.Options{}))
	require.Equal(t, want, got)
}
