package poseidon2

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	kbp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// The worked example of ARCHITECTURE.md ("A new Poseidon2 instance"): an
// instance is a row of params31's table and nothing else. The rows here
// are in no table and in no file: KoalaBear at width 16 with 8 full and 20
// partial rounds, and at width 24 with 6 and 22, their round keys derived
// by gnark-crypto from a seed of this test's (NewParametersWithSeed), so
// that gnark-crypto's permutation of the same parameters is an
// independent computation of them.
const instanceSeed = "wgcompute-instance-test"

// instanceRows returns the test's two rows.
func instanceRows(t *testing.T) (p16, p24 params31.Set) {
	p16, err := params31.Gnark("test-koalabear16", "koalabear", 16, 8, 20, instanceSeed)
	require.NoError(t, err)
	p24, err = params31.Gnark("test-koalabear24", "koalabear", 24, 6, 22, instanceSeed)
	require.NoError(t, err)
	return p16, p24
}

// instancePerms returns the permutations of the test's rows, made from the
// rows alone, as the table's are.
func instancePerms(t *testing.T) (p16, p24 *Permutation31) {
	r16, r24 := instanceRows(t)
	p16, err := newPermutation31(r16)
	require.NoError(t, err)
	p24, err = newPermutation31(r24)
	require.NoError(t, err)
	return p16, p24
}

// TestInstanceRowMatchesGnark holds the rows' reference permutations (and
// their CPU paths: permuteMonty, and the blocks of states of the batch
// functions) to gnark-crypto's permutations of the same widths, rounds and
// seed, on random states.
func TestInstanceRowMatchesGnark(t *testing.T) {
	p16, p24 := instancePerms(t)
	rng := rand.New(rand.NewPCG(41, 3))
	for _, c := range []struct {
		p             *Permutation31
		full, partial int
	}{{p16, 8, 20}, {p24, 6, 22}} {
		require.Equal(t, c.partial, c.p.PartialRounds())
		oracle := kbp2.NewPermutationWithSeed(c.p.Width(), c.full, c.partial, instanceSeed)
		w := c.p.Width()
		states := randStates31(c.p, rng, 37)
		blocks := append([]uint32(nil), states...)
		c.p.permuteMany(blocks)
		for i := range 37 {
			want := make([]koalabear.Element, w)
			for j, x := range states[i*w : (i+1)*w] {
				want[j].SetUint64(uint64(x))
			}
			require.NoError(t, oracle.Permutation(want))
			got := append([]uint32(nil), states[i*w:(i+1)*w]...)
			require.NoError(t, c.p.Permute(got))
			monty := append([]uint32(nil), states[i*w:(i+1)*w]...)
			require.NoError(t, reducing31{c.p}.Permute(monty))
			for j := range w {
				require.Equal(t, uint32(want[j].Uint64()), got[j], "%s state %d element %d: gnark-crypto's", c.p.Name(), i, j)
			}
			require.Equal(t, got, monty, "%s state %d: permuteMonty", c.p.Name(), i)
			require.Equal(t, got, blocks[i*w:(i+1)*w], "%s state %d: blocks of states", c.p.Name(), i)
		}
	}
	// The rows differ from gnark-crypto's own instances of the same field:
	// the test would not notice a table row taken in their place otherwise.
	require.NotEqual(t, GnarkKoalaBear16.set.Internal[0], p16.set.Internal[0])
}

// TestInstanceRowOnGPU runs the rows' kernels on every backend (lavapipe
// where no GPU is) and holds them to the CPU path: the permutation, and
// each construction's merge and sponge, Plonky3's (MerkleMerge31 over the
// width-16 row, its batch functions and a matrix commitment) and
// gnark-crypto's (GnarkHash over both rows, and its Merkle-Damgard
// hasher).
func TestInstanceRowOnGPU(t *testing.T) {
	p16, p24 := instancePerms(t)
	plonky3, err := NewMerkleMerge31(p16)
	require.NoError(t, err)
	gnark, err := NewGnarkHash(p16, p24)
	require.NoError(t, err)
	families := []*batch.Monty31{plonky3.Batch(), gnark.Batch(), gnark.MDBatch()}
	for _, f := range families {
		require.NotContains(t, []*batch.Monty31{BabyBearBatch, KoalaBearBatch, GnarkKoalaBearBatch, GnarkKoalaBearMDBatch, GnarkBabyBearBatch, GnarkBabyBearMDBatch}, f, "a new row's hash has batch functions of its own")
	}
	require.Same(t, gnark.MDBatch(), families[2])
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		rng := rand.New(rand.NewPCG(41, 4))
		for _, p := range []*Permutation31{p16, p24} {
			in := randStates31(p, rng, 67)
			got := append([]uint32(nil), in...)
			_, err := p.permuteMany31(ctx, got)
			require.NoError(t, err)
			want := append([]uint32(nil), in...)
			p.permuteMany(want)
			require.Equal(t, want, got, "%s permutations", p.Name())
		}
		for _, f := range families {
			const n, m = 45, 37
			pairs := make([][16]uint32, n)
			for i := range pairs {
				copy(pairs[i][:], randStates31(p16, rng, 1))
			}
			inputs := randStates31(p16, rng, n*m/16+1)[:n*m]
			for _, op := range []string{"merge", "hash"} {
				got, want := make([][8]uint32, n), make([][8]uint32, n)
				var errGPU, errCPU error
				if op == "merge" {
					errGPU, errCPU = f.MergeMany(ctx, got, pairs, batch.Options{}), f.MergeMany(nil, want, pairs, batch.Options{})
				} else {
					errGPU, errCPU = f.HashElementsMany(ctx, got, inputs, m, batch.Options{}), f.HashElementsMany(nil, want, inputs, m, batch.Options{})
				}
				require.NoError(t, errGPU)
				require.NoError(t, errCPU)
				require.Equal(t, want, got, "%s %s", f.Name(), op)
			}
		}
		mat := merkle.Matrix[uint32]{Rows: 16, Cols: 13, Data: randStates31(p16, rng, 13)}
		for _, h := range []merkle.RowHash[uint32]{plonky3, gnark} {
			gpu, err := merkle.CommitMatrix(ctx, mat, h, merkle.Options{})
			require.NoError(t, err)
			cpu, err := merkle.CommitMatrix(nil, mat, h, merkle.Options{})
			require.NoError(t, err)
			require.Equal(t, cpu.Root(), gpu.Root(), "%T matrix commitment", h)
		}
	})
}

// TestInstanceRowRejected: a row that the permutation's layers cannot take
// is an error naming what is wrong, and a row named as another with other
// constants is refused (its WGSL would take the other's place).
func TestInstanceRowRejected(t *testing.T) {
	p16, _ := instanceRows(t)
	bad := p16
	bad.Degree = 5
	_, err := newPermutation31(bad)
	require.ErrorContains(t, err, "S-box degree 5")
	bad = p16
	bad.Internal = append([]uint32{KoalaBear16.Field().P()}, p16.Internal[1:]...)
	_, err = newPermutation31(bad)
	require.ErrorContains(t, err, "round constant")
	bad = p16
	bad.Name = "koalabear16"
	_, err = newPermutation31(bad)
	require.ErrorContains(t, err, "was generated for another row")
	_, err = params31.Gnark("test-koalabear20", "koalabear", 20, 8, 20, instanceSeed)
	require.ErrorContains(t, err, "no Plonky3 instance")
	_, err = Permutation31Named("koalabear17")
	require.ErrorContains(t, err, "babybear16")
	p, err := Permutation31Named("gnark-koalabear24")
	require.NoError(t, err)
	require.Same(t, GnarkKoalaBear24, p)
	_, err = NewMerkleMerge31(p)
	require.ErrorContains(t, err, "width 16")
	_, err = NewGnarkHash(GnarkKoalaBear16, GnarkBabyBear24)
	require.ErrorContains(t, err, "over one field")
	_, err = NewGnarkHash(GnarkKoalaBear24, GnarkKoalaBear16)
	require.ErrorContains(t, err, "width 16 and a sponge of width 24")
	require.Same(t, GnarkKoalaBearMDBatch, GnarkKoalaBear.MDBatch())
	require.Same(t, GnarkBabyBearBatch, GnarkBabyBear.Batch())
	require.Same(t, GnarkKoalaBearBatch, GnarkHash{}.Batch(), "the zero value is GnarkKoalaBear")
}
