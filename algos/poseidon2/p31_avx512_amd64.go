//go:build !purego

package poseidon2

import "github.com/consensys/gnark-crypto/utils/cpu"

// permute16AVX512 permutes 16 states of width 16 in Montgomery form, s
// element-major (element i of state l at s[16·i+l]), as permuteMonty
// permutes each: ext holds the 8 full rounds' 16 constants each,
// internal the nInternal partial rounds' constants and diag the internal
// diagonal, all Montgomery forms; p is the field's prime, mu -p^-1 mod
// 2^32 and degree the S-box's, 3 or 7. diagKind 1 says diag is
// KoalaBear16's and 2 BabyBear16's, whose products it then makes by
// shifts; 0 multiplies by diag.
//
//go:noescape
func permute16AVX512(s, ext, internal *uint32, nInternal int, diag *uint32, p, mu, degree, diagKind uint64)

func init() {
	// The instructions are AVX-512F's; gnark-crypto's own test, which its
	// vector arithmetic beside it goes by, asks for more.
	if cpu.SupportAVX512 {
		permute16Fast = permute16AVX512
	}
}
