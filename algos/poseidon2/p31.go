package poseidon2

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/poseidon2/internal/params31"
	"github.com/wgcompute/wgcompute/algos/symmetric"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Permutation31 is Poseidon2 over a 31-bit field (BabyBear, KoalaBear) at
// one width, as Plonky3 defines it (default_babybear_poseidon2_16 and
// its kin): its parameters and the plain-Go reference. The permutation is
// the same at every width and over either field; only the parameters
// differ:
//
//	state = M_E·state
//	4 full rounds:    state[i] = (state[i] + RC[r][i])^D; state = M_E·state
//	partial rounds:   state[0] = (state[0] + RC[r])^D; state[i] = sum(state) + V[i]·state[i]
//	4 full rounds:    as the first four, with the final round constants
//
// where M_E is Plonky3's MDS light layer (its MDSMat4 on each block of
// four elements, then each element plus the sum of the elements at its
// place in every block), D the S-box degree (7 for BabyBear, 3 for
// KoalaBear) and V the internal diagonal.
//
// The constants and test vectors come from Plonky3 at commit
// 5dc50e51436a811c62443e336f766015fecc9217 (testdata/poseidon2_31.json);
// KoalaBear's round constants are those of Plonky3 v0.5.0 and later
// (regenerated in PR #1398; v0.4.x used others).
//
// The values are shared; use them, do not copy or change them.
type Permutation31 struct {
	set  params31.Set
	f    field.Monty31
	diag []uint32 // V as canonical elements
	// The constants in Montgomery form, for permuteMonty.
	extM      [][]uint32 // the initial then the final full rounds'
	internalM []uint32
	diagM     []uint32
}

var (
	// BabyBear16 is Poseidon2 over BabyBear of width 16, 13 partial rounds
	// (default_babybear_poseidon2_16).
	BabyBear16 = newPermutation31(params31.BabyBear16, field.BabyBear)
	// BabyBear24 is Poseidon2 over BabyBear of width 24, 21 partial rounds
	// (default_babybear_poseidon2_24).
	BabyBear24 = newPermutation31(params31.BabyBear24, field.BabyBear)
	// KoalaBear16 is Poseidon2 over KoalaBear of width 16, 20 partial
	// rounds (default_koalabear_poseidon2_16).
	KoalaBear16 = newPermutation31(params31.KoalaBear16, field.KoalaBear)
	// KoalaBear24 is Poseidon2 over KoalaBear of width 24, 23 partial
	// rounds (default_koalabear_poseidon2_24).
	KoalaBear24 = newPermutation31(params31.KoalaBear24, field.KoalaBear)
)

// Permutations31 lists the 31-bit permutations, for callers that choose
// one by name.
var Permutations31 = []*Permutation31{BabyBear16, BabyBear24, KoalaBear16, KoalaBear24}

func newPermutation31(s params31.Set, f field.Monty31) *Permutation31 {
	p := &Permutation31{set: s, f: f, diag: make([]uint32, s.Width)}
	for i, n := range s.DiagNum {
		p.diag[i] = f.Div2Exp(f.FromInt(int64(n)), s.DiagShift[i])
	}
	monty := func(xs []uint32) []uint32 {
		out := make([]uint32, len(xs))
		for i, x := range xs {
			out[i] = f.ToMonty(x)
		}
		return out
	}
	for _, rc := range append(append([][]uint32(nil), s.ExternalInitial...), s.ExternalFinal...) {
		p.extM = append(p.extM, monty(rc))
	}
	p.internalM, p.diagM = monty(s.Internal), monty(p.diag)
	return p
}

// Name returns the permutation's name: its field and width, "babybear16".
func (p *Permutation31) Name() string { return p.set.Name }

// Field returns the permutation's field.
func (p *Permutation31) Field() field.Monty31 { return p.f }

// Width returns the state size.
func (p *Permutation31) Width() int { return p.set.Width }

// Degree returns the S-box's exponent D.
func (p *Permutation31) Degree() int { return p.set.Degree }

// PartialRounds returns the number of partial rounds.
func (p *Permutation31) PartialRounds() int { return len(p.set.Internal) }

// Permute applies the permutation to state, Width canonical elements, in
// place. It returns an error, leaving state unchanged, for a state of
// another size or with an element not below the field's p.
func (p *Permutation31) Permute(state []uint32) error {
	if len(state) != p.set.Width {
		return fmt.Errorf("poseidon2: %s permutes %d elements, given %d", p.set.Name, p.set.Width, len(state))
	}
	for i, x := range state {
		if err := p.f.Check(x); err != nil {
			return fmt.Errorf("poseidon2: %s state element %d: %w", p.set.Name, i, err)
		}
	}
	p.permute(state)
	return nil
}

func (p *Permutation31) permute(s []uint32) {
	f := p.f
	p.mdsLight(s)
	for _, rc := range p.set.ExternalInitial {
		p.fullRound(s, rc)
	}
	for _, c := range p.set.Internal {
		s[0] = f.Exp(f.Add(s[0], c), uint64(p.set.Degree))
		var sum uint32
		for _, x := range s {
			sum = f.Add(sum, x)
		}
		for i, x := range s {
			s[i] = f.Add(sum, f.Mul(p.diag[i], x))
		}
	}
	for _, rc := range p.set.ExternalFinal {
		p.fullRound(s, rc)
	}
}

func (p *Permutation31) fullRound(s, rc []uint32) {
	for i := range s {
		s[i] = p.f.Exp(p.f.Add(s[i], rc[i]), uint64(p.set.Degree))
	}
	p.mdsLight(s)
}

// mds4 is Plonky3's MDSMat4, the 4×4 block of the external layer.
var mds4 = [4][4]uint32{{2, 3, 1, 1}, {1, 2, 3, 1}, {1, 1, 2, 3}, {3, 1, 1, 2}}

// mdsLight is state = M_E·state, as a matrix product (the kernels use
// Plonky3's additions).
func (p *Permutation31) mdsLight(s []uint32) {
	f := p.f
	for b := 0; b < len(s); b += 4 {
		var y [4]uint32
		for i := range 4 {
			for j := range 4 {
				y[i] = f.Add(y[i], f.Mul(mds4[i][j], s[b+j]))
			}
		}
		copy(s[b:], y[:])
	}
	var sums [4]uint32
	for i, x := range s {
		sums[i%4] = f.Add(sums[i%4], x)
	}
	for i := range s {
		s[i] = f.Add(s[i], sums[i%4])
	}
}

const (
	// Rate31 is the rate of the 31-bit sponge: the elements absorbed per
	// permutation (PaddingFreeSponge<_, 16, 8, 8>).
	Rate31 = 8
	// Digest31 is the number of elements of a 31-bit digest: 8, as a
	// little-endian u32 each, the 32 bytes of a merkle digest.
	Digest31 = 8
)

// Sponge returns Plonky3's PaddingFreeSponge<p, Width, 8, 8> over the
// permutation: how its MMCS hashes a matrix's rows.
func (p *Permutation31) Sponge() symmetric.PaddingFreeSponge[uint32] {
	return symmetric.PaddingFreeSponge[uint32]{Perm: p, Rate: Rate31, Out: Digest31}
}

// Compression returns Plonky3's TruncatedPermutation<p, 2, 8, Width>
// over the permutation: how its Merkle trees merge two digests.
func (p *Permutation31) Compression() symmetric.TruncatedPermutation[uint32] {
	return symmetric.TruncatedPermutation[uint32]{Perm: p, N: 2, Chunk: Digest31}
}

//go:generate go run ./internal/gen31 -dir ../../wgsl

// module returns the WGSL module of files (which call perm_permute) over
// the permutation: its generated layers (with poseidon2_31.wgsl and the
// field's library) first, the field's constants in the prelude.
func (p *Permutation31) module(files ...string) wgsl.Module {
	return wgsl.Module{Files: append([]string{params31.FileName(p.set)}, files...), Consts: p.f.Consts()}
}

// permuteMonty is permute on a state in Montgomery form, with the kernels'
// arithmetic (field.Monty31.MontyMul): the CPU path's faster twin of the
// reference (no division per product), held equal to it by the tests.
func (p *Permutation31) permuteMonty(s []uint32) {
	f := p.f
	sbox := func(x uint32) uint32 {
		x2 := f.MontyMul(x, x)
		x3 := f.MontyMul(x2, x)
		if p.set.Degree == 3 {
			return x3
		}
		return f.MontyMul(f.MontyMul(x3, x3), x)
	}
	full := func(rc []uint32) {
		for i := range s {
			s[i] = sbox(f.Add(s[i], rc[i]))
		}
		p.mdsLightAdd(s)
	}
	p.mdsLightAdd(s)
	for _, rc := range p.extM[:len(p.extM)/2] {
		full(rc)
	}
	for _, c := range p.internalM {
		s[0] = sbox(f.Add(s[0], c))
		var sum uint32
		for _, x := range s {
			sum = f.Add(sum, x)
		}
		for i, x := range s {
			s[i] = f.Add(sum, f.MontyMul(p.diagM[i], x))
		}
	}
	for _, rc := range p.extM[len(p.extM)/2:] {
		full(rc)
	}
}

// mdsLightAdd is mdsLight by Plonky3's additions (the same in either
// form).
func (p *Permutation31) mdsLightAdd(s []uint32) {
	f := p.f
	for b := 0; b < len(s); b += 4 {
		x0, x1, x2, x3 := s[b], s[b+1], s[b+2], s[b+3]
		t01, t23 := f.Add(x0, x1), f.Add(x2, x3)
		t0123 := f.Add(t01, t23)
		t01123, t01233 := f.Add(t0123, x1), f.Add(t0123, x3)
		s[b], s[b+1] = f.Add(t01123, t01), f.Add(t01123, f.Add(x2, x2))
		s[b+2], s[b+3] = f.Add(t01233, t23), f.Add(t01233, f.Add(x0, x0))
	}
	var sums [4]uint32
	for i, x := range s {
		sums[i%4] = f.Add(sums[i%4], x)
	}
	for i := range s {
		s[i] = f.Add(s[i], sums[i%4])
	}
}
