package params31

import (
	"fmt"

	bbp2 "github.com/consensys/gnark-crypto/field/babybear/poseidon2"
	kbp2 "github.com/consensys/gnark-crypto/field/koalabear/poseidon2"
)

// Gnark returns the instance named name over field ("babybear", "koalabear") of the
// width whose full and partial rounds' keys gnark-crypto derives from
// Keccak-256 of seed (poseidon2.NewParametersWithSeed), or of its
// parameter string where seed is "" (NewParameters: its own instances,
// "Poseidon2-koalabear[t=16,rF=6,rP=21,d=3]"): the round keys taken from
// gnark-crypto's own Parameters, so that none is transcribed. The internal
// diagonal and the S-box degree are those of Plonky3's instance of the
// field and width (gnark-crypto's internal layer hard-codes Plonky3's
// diagonals, "from Plonky3"), which must be in Plonky3.
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
	var keys [][]uint64
	var seedText string
	switch field {
	case "koalabear":
		var prm *kbp2.Parameters
		if seed == "" {
			prm = kbp2.NewParameters(width, full, partial)
		} else {
			prm = kbp2.NewParametersWithSeed(width, full, partial, seed)
		}
		keys, seedText = canonical(prm.RoundKeys), prm.String()
	case "babybear":
		var prm *bbp2.Parameters
		if seed == "" {
			prm = bbp2.NewParameters(width, full, partial)
		} else {
			prm = bbp2.NewParametersWithSeed(width, full, partial, seed)
		}
		keys, seedText = canonical(prm.RoundKeys), prm.String()
	}
	call := fmt.Sprintf("NewParameters(%d, %d, %d)", width, full, partial)
	if seed != "" {
		call = fmt.Sprintf("NewParametersWithSeed(%d, %d, %d, %q)", width, full, partial, seed)
		seedText = seed
	}
	if len(keys) != full+partial {
		return Set{}, fmt.Errorf("params31: gnark-crypto's %s %s gave %d rounds of keys, want %d", field, call, len(keys), full+partial)
	}
	s := Set{
		Name: name, Field: field, Width: width, Degree: base.Degree,
		Source:  fmt.Sprintf("gnark-crypto v0.22.0 %s/poseidon2.%s, round keys from Keccak-256 of %q", field, call, seedText),
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
