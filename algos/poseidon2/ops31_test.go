package poseidon2

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ops31 counts the field operations of one permutation as the kernels do
// them (poseidon2_31.wgsl over the generated layers): Montgomery products
// (monty31_mul), single reductions (monty31_div_2exp, the internal diagonal's
// ±1/2^k) and additions or subtractions (monty31_add, monty31_sub).
type ops31 struct{ products, reductions, adds int }

// countOps31 counts p's operations from its parameters: 8 full rounds of
// Width S-boxes, round-constant additions and the external layer, the
// external layer once before them, and the partial rounds' one S-box,
// constant, sum and diagonal.
func countOps31(p *Permutation31) ops31 {
	s, w := p.set, p.Width()
	sbox := 2 // x^3: x·x·x
	if s.Degree == 7 {
		sbox = 4 // x^7: x^3, then (x^3)^2·x
	}
	// p31_mat4 is 11 additions a block; then the blocks' sums at each of
	// the 4 places, and every element plus its place's sum.
	mds := 11*w/4 + 4*(w/4-1) + w
	// The diagonal: 1/2^k is one reduction, small integers additions.
	small := map[int32]int{1: 0, 2: 1, 3: 2, 4: 2}
	var red, extra int
	for i, n := range s.DiagNum {
		if s.DiagShift[i] > 0 {
			red++
		} else {
			extra += small[max(n, -n)]
		}
	}
	full := len(s.ExternalInitial) + len(s.ExternalFinal)
	partial := len(s.Internal)
	return ops31{
		products:   full*w*sbox + partial*sbox,
		reductions: partial * red,
		// Each partial round adds its constant to s[0], sums the state and
		// adds the sum to every element.
		adds: mds + full*(w+mds) + partial*(1+(w-1)+w+extra),
	}
}

// instructions is an estimate of the GPU instructions of o with 64-bit
// integers: a product about 7 (a wide multiply, two more for the
// reduction, a subtraction and its correction), a reduction 5, an
// addition 2. The kernels' times at one clock, on an H200, are in this
// proportion (BENCHMARKS.md).
func (o ops31) instructions() int { return 7*o.products + 5*o.reductions + 2*o.adds }

// TestOps31 holds countOps31 to counts made by hand from Plonky3's
// parameters: BabyBear16 has 8·16 S-boxes of 4 products and 13 partial
// rounds of 4 products and 9 reductions (9 entries of its diagonal are
// ±1/2^k), 72 additions in each external layer and 42 in each partial
// round; the others follow.
func TestOps31(t *testing.T) {
	want := map[string]ops31{
		"babybear16":  {products: 564, reductions: 117, adds: 1322},
		"babybear24":  {products: 852, reductions: 357, adds: 2400},
		"koalabear16": {products: 296, reductions: 180, adds: 1616},
		"koalabear24": {products: 430, reductions: 391, adds: 2516},
	}
	base := countOps31(BabyBear16).instructions()
	for _, p := range Permutations31 {
		got := countOps31(p)
		require.Equal(t, want[p.Name()], got, p.Name())
		t.Logf("%-11s %4d products, %3d reductions, %4d additions: about %5d instructions, %.2f of babybear16's",
			p.Name(), got.products, got.reductions, got.adds, got.instructions(), float64(got.instructions())/float64(base))
	}
}
