package params31

import (
	"cmp"
	"fmt"

	bbp2 "github.com/consensys/gnark-crypto/field/babybear/poseidon2"
	kbp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
)

// Gnark returns the row named name of gnark-crypto's Poseidon2 over field
// ("babybear", "koalabear") of the width, with full and partial rounds
// whose keys gnark-crypto derives from Keccak-256 of seed
// (poseidon2.NewParametersWithSeed), or of its parameter string where
// seed is "" (NewParameters, its own instances:
// "Poseidon2-koalabear[t=16,rF=6,rP=21,d=3]"). The keys are taken from
// gnark-crypto's own Parameters, so that none is transcribed. The internal
// diagonal and the S-box degree are those of Plonky3's row of the field
// and width (gnark-crypto's internal layer hard-codes Plonky3's diagonals,
// "from Plonky3"), which must be in Plonky3.
func Gnark(name, field string, width, full, partial int, seed string) (Set, error) {
	var base *Set
	for i := range Plonky3 {
		if Plonky3[i].Field == field && Plonky3[i].Width == width {
			base = &Plonky3[i]
		}
	}
	if base == nil {
		return Set{}, fmt.Errorf("params31: no Plonky3 instance over %q of width %d to take the internal diagonal from", field, width)
	}
	if full < 2 || full%2 != 0 || partial < 1 {
		return Set{}, fmt.Errorf("params31: %d full and %d partial rounds: want an even number of full rounds, at least 2, and a partial round at least", full, partial)
	}
	// NewParameters is NewParametersWithSeed of the parameters' String.
	call := fmt.Sprintf("NewParametersWithSeed(%d, %d, %d, %q)", width, full, partial, seed)
	if seed == "" {
		call = fmt.Sprintf("NewParameters(%d, %d, %d)", width, full, partial)
	}
	var keys [][]uint64
	switch field {
	case "koalabear":
		seed = cmp.Or(seed, (&kbp2.Parameters{Width: width, NbFullRounds: full, NbPartialRounds: partial}).String())
		keys = canonical(kbp2.NewParametersWithSeed(width, full, partial, seed).RoundKeys)
	case "babybear":
		seed = cmp.Or(seed, (&bbp2.Parameters{Width: width, NbFullRounds: full, NbPartialRounds: partial}).String())
		keys = canonical(bbp2.NewParametersWithSeed(width, full, partial, seed).RoundKeys)
	}
	if len(keys) != full+partial {
		return Set{}, fmt.Errorf("params31: gnark-crypto's %s %s gave %d rounds of keys, want %d", field, call, len(keys), full+partial)
	}
	s := Set{
		Name: name, Field: field, Width: width, Degree: base.Degree,
		Source:  fmt.Sprintf("gnark-crypto v0.22.0 %s/poseidon2.%s, round keys from Keccak-256 of %q", field, call, seed),
		DiagNum: base.DiagNum, DiagShift: base.DiagShift,
	}
	narrow := func(r []uint64) []uint32 {
		out := make([]uint32, len(r))
		for i, x := range r {
			out[i] = uint32(x)
		}
		return out
	}
	for i, r := range keys {
		switch {
		case i < full/2:
			s.ExternalInitial = append(s.ExternalInitial, narrow(r))
		case i < full/2+partial:
			if len(r) != 1 {
				return Set{}, fmt.Errorf("params31: gnark-crypto's %s %s: partial round %d has %d keys, want 1", field, call, i-full/2, len(r))
			}
			s.Internal = append(s.Internal, uint32(r[0]))
		default:
			s.ExternalFinal = append(s.ExternalFinal, narrow(r))
		}
	}
	return s, s.Check()
}

// mustGnark is Gnark of gnark-crypto's own instances, which cannot fail
// (the tests hold them to gnark-crypto's permutations).
func mustGnark(name, field string, width, full, partial int) Set {
	s, err := Gnark(name, field, width, full, partial, "")
	if err != nil {
		panic(err)
	}
	return s
}

// canonical returns gnark-crypto's round keys as canonical values.
func canonical[E any, P interface {
	*E
	Uint64() uint64
}](rows [][]E) [][]uint64 {
	out := make([][]uint64, len(rows))
	for i, row := range rows {
		for j := range row {
			out[i] = append(out[i], P(&row[j]).Uint64())
		}
	}
	return out
}
