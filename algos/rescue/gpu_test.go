package rescue

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) {
	checkGuards = true
	os.Exit(gputest.Main(m))
}

// randElement draws canonical elements with the edges over-represented:
// p-1 and values just below p, small values, a high word of 2^32-2.
func randElement(rng *rand.Rand) uint64 {
	switch rng.IntN(8) {
	case 0:
		return P - 1 - rng.Uint64N(64)
	case 1:
		return rng.Uint64N(64)
	case 2:
		return P - 1
	case 3:
		return uint64(rng.Uint32()) | 0xFFFF_FFFE_0000_0000
	}
	return rng.Uint64N(P)
}

func newRand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x5e5c))
}

// parallel runs fn(i) for i in [0, n) on all cores.
func parallel(n int, fn func(i int)) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += w {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

func TestMergeManyGPU(t *testing.T) {
	// At least 100k merges, odd, on every backend; the reference is computed
	// once for both.
	const n = 100_001
	rng := newRand(t)
	pairs := make([][8]uint64, n)
	for i := range pairs {
		for j := range pairs[i] {
			pairs[i][j] = randElement(rng)
		}
	}
	pairs[0] = [8]uint64{P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1}
	pairs[n-1] = [8]uint64{}
	want := make([][4]uint64, n)
	parallel(n, func(i int) { want[i] = Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) })
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		got := make([][4]uint64, n)
		var st Stats
		start := time.Now()
		// Pieces of 25k keep every submission near a second on lavapipe:
		// wgpu 0.17 stops waiting for a submission after 5 s, and lavapipe
		// was seen to crash (executing a freed command list) after such a
		// wait on a loaded machine.
		require.NoError(t, MergeManyWith(ctx, got, pairs, Options{Stats: &st, MaxPiece: 25_000}))
		require.Equal(t, 5, st.Pieces)
		t.Logf("%d merges in %v (kernel %v, measured %v)", n, time.Since(start), st.Kernel, st.Measured)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], want[i])
			}
		}
	})
}

func TestSplitIntoPieces(t *testing.T) {
	rng := newRand(t)
	const n = 1001
	pairs := make([][8]uint64, n)
	states := make([][12]uint64, 37)
	for i := range pairs {
		for j := range pairs[i] {
			pairs[i][j] = randElement(rng)
		}
	}
	for i := range states {
		for j := range states[i] {
			states[i][j] = randElement(rng)
		}
	}
	wantStates := make([][12]uint64, len(states))
	for i := range states {
		wantStates[i] = states[i]
		Permute(&wantStates[i])
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		got := make([][4]uint64, n)
		var st Stats
		require.NoError(t, MergeManyWith(ctx, got, pairs, Options{MaxPiece: 333, Stats: &st}))
		require.Equal(t, 4, st.Pieces)
		for i := range got {
			require.Equal(t, Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])), got[i], "pair %d", i)
		}
		s := append([][12]uint64(nil), states...)
		require.NoError(t, PermuteManyWith(ctx, s, Options{MaxPiece: 10, Stats: &st}))
		require.Equal(t, 4, st.Pieces)
		require.Equal(t, wantStates, s)
	})
}

func TestVectorsGPU(t *testing.T) {
	s := loadSpec(t)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for i, v := range s.Vectors {
			in, want := nums(t, v.Input), nums(t, v.Output)
			switch v.Fn {
			case "permutation":
				st := [][12]uint64{[12]uint64(in)}
				require.NoError(t, PermuteMany(ctx, st))
				require.Equal(t, want, st[0][:], "vector %d", i)
			case "hash_elements":
				dst := make([][4]uint64, 1)
				dst[0] = [4]uint64{1, 2, 3, 4}
				require.NoError(t, HashElementsMany(ctx, dst, in, len(in)))
				require.Equal(t, want, dst[0][:], "vector %d", i)
			case "merge":
				dst := make([][4]uint64, 1)
				require.NoError(t, MergeMany(ctx, dst, [][8]uint64{[8]uint64(in)}))
				require.Equal(t, want, dst[0][:], "vector %d", i)
			case "merklize":
				// The last level of the tree: leaves merged pairwise.
				n := len(in) / 8
				pairs := make([][8]uint64, n)
				for k := range pairs {
					pairs[k] = [8]uint64(in[8*k:])
				}
				dst := make([][4]uint64, n)
				require.NoError(t, MergeMany(ctx, dst, pairs))
				for k := range dst {
					require.Equal(t, want[4*(n+k):4*(n+k)+4], dst[k][:], "vector %d node %d", i, n+k)
				}
			}
		}
	})
}

func TestHashElementsManyGPU(t *testing.T) {
	rng := newRand(t)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, m := range []int{1, 3, 7, 8, 9, 16, 17, 25} {
			k := 99 + 2*m
			inputs := make([]uint64, k*m)
			for i := range inputs {
				inputs[i] = randElement(rng)
			}
			dst := make([][4]uint64, k)
			require.NoError(t, HashElementsMany(ctx, dst, inputs, m))
			for i := range dst {
				require.Equal(t, HashElements(inputs[i*m:(i+1)*m]), dst[i], "m=%d input %d", m, i)
			}
		}
		// Zero-length inputs hash to the zero digest without a permutation.
		dst := [][4]uint64{{1, 2, 3, 4}, {5, 6, 7, 8}}
		require.NoError(t, HashElementsMany(ctx, dst, nil, 0))
		require.Equal(t, [][4]uint64{{}, {}}, dst)
	})
}

// TestVariantsGPU checks every variant against the reference: the spec's
// vectors, a few thousand merges, odd batches of permutations and of
// hash_elements over several blocks.
func TestVariantsGPU(t *testing.T) {
	rng := newRand(t)
	const n = 2049
	pairs := make([][8]uint64, n)
	for i := range pairs {
		for j := range pairs[i] {
			pairs[i][j] = randElement(rng)
		}
	}
	pairs[0] = [8]uint64{P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1, P - 1}
	want := make([][4]uint64, n)
	parallel(n, func(i int) { want[i] = Merge([4]uint64(pairs[i][:4]), [4]uint64(pairs[i][4:])) })
	states := make([][12]uint64, 33)
	for i := range states {
		for j := range states[i] {
			states[i][j] = randElement(rng)
		}
	}
	const m = 13
	inputs := make([]uint64, 21*m)
	for i := range inputs {
		inputs[i] = randElement(rng)
	}
	spec := loadSpec(t)
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, v := range Variants {
			t.Run(v.String(), func(t *testing.T) {
				opts := Options{Variant: v}
				for i, vec := range spec.Vectors {
					in, w := nums(t, vec.Input), nums(t, vec.Output)
					switch vec.Fn {
					case "permutation":
						st := [][12]uint64{[12]uint64(in)}
						require.NoError(t, PermuteManyWith(ctx, st, opts))
						require.Equal(t, w, st[0][:], "vector %d", i)
					case "hash_elements":
						dst := make([][4]uint64, 1)
						require.NoError(t, HashElementsManyWith(ctx, dst, in, len(in), opts))
						require.Equal(t, w, dst[0][:], "vector %d", i)
					case "merge":
						dst := make([][4]uint64, 1)
						require.NoError(t, MergeManyWith(ctx, dst, [][8]uint64{[8]uint64(in)}, opts))
						require.Equal(t, w, dst[0][:], "vector %d", i)
					}
				}
				got := make([][4]uint64, n)
				require.NoError(t, MergeManyWith(ctx, got, pairs, opts))
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("pair %d %v: got %v, want %v", i, pairs[i], got[i], want[i])
					}
				}
				s := append([][12]uint64(nil), states...)
				require.NoError(t, PermuteManyWith(ctx, s, opts))
				for i := range s {
					w := states[i]
					Permute(&w)
					require.Equal(t, w, s[i], "state %d", i)
				}
				dst := make([][4]uint64, 21)
				require.NoError(t, HashElementsManyWith(ctx, dst, inputs, m, opts))
				for i := range dst {
					require.Equal(t, HashElements(inputs[i*m:(i+1)*m]), dst[i], "input %d", i)
				}
			})
		}
	})
}

func TestBadInput(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		pairs := make([][8]uint64, 10)
		pairs[7][5] = P
		pairs[9][0] = ^uint64(0)
		dst := make([][4]uint64, 10)
		err := MergeMany(ctx, dst, pairs)
		require.ErrorContains(t, err, "pair 7 element 5")
		require.ErrorContains(t, err, "below p")
		require.Equal(t, make([][4]uint64, 10), dst, "nothing written on error")

		require.ErrorContains(t, MergeMany(ctx, dst[:3], pairs), "3 destination digests for 10 pairs")

		in := make([]uint64, 30)
		in[17] = P + 5
		err = HashElementsMany(ctx, make([][4]uint64, 3), in, 10)
		require.ErrorContains(t, err, "input 1 element 7")
		require.ErrorContains(t, HashElementsMany(ctx, make([][4]uint64, 3), in, 9), "need exactly 27")
		require.ErrorContains(t, HashElementsMany(ctx, make([][4]uint64, 3), in, -1), "zero or more")

		states := make([][12]uint64, 4)
		states[3][11] = P
		require.ErrorContains(t, PermuteMany(ctx, states), "state 3 element 11")

		err = MergeManyWith(ctx, make([][4]uint64, 1), make([][8]uint64, 1), Options{Variant: Variant(42)})
		require.ErrorContains(t, err, "unknown variant")

		// Empty batches touch nothing.
		require.NoError(t, MergeMany(ctx, nil, nil))
		require.NoError(t, PermuteMany(ctx, nil))
		require.NoError(t, HashElementsMany(ctx, nil, nil, 5))
	})
	require.ErrorContains(t, MergeMany(nil, make([][4]uint64, 1), make([][8]uint64, 1)), "no GPU context")
}

func TestPieceItems(t *testing.T) {
	lim := wgpu.Limits{MaxStorageBindingSize: 128 << 20, MaxBufferSize: 1 << 31}
	require.Equal(t, (128<<20)/64, pieceItems(lim, 8, 4))
	require.Equal(t, (128<<20)/(13*8), pieceItems(lim, 12, 12))
	lim.MaxBufferSize = 1 << 20
	require.Equal(t, (1<<20)/64, pieceItems(lim, 8, 4))
	require.Equal(t, 0, pieceItems(lim, 1<<20, 4))
	lim = wgpu.Limits{MaxStorageBindingSize: 1 << 40, MaxBufferSize: 1 << 40}
	require.Equal(t, 1<<28, pieceItems(lim, 8, 4))
}

func TestParseVariant(t *testing.T) {
	for _, v := range Variants {
		got, err := ParseVariant(v.String())
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
	_, err := ParseVariant("nope")
	require.ErrorContains(t, err, "fast")
	require.True(t, strings.HasPrefix(Variant(9).String(), "Variant("))
}

func TestFirstNonCanonical(t *testing.T) {
	for _, n := range []int{0, 1, 5, 3<<20 + 7} {
		els := make([]uint64, n)
		require.Equal(t, -1, firstNonCanonical(els))
		if n == 0 {
			continue
		}
		for _, at := range []int{n - 1, n / 2, 0} {
			els[at] = P
			require.Equal(t, at, firstNonCanonical(els), "n=%d", n)
		}
	}
}
