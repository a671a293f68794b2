// Package params31 is the table of Poseidon2's instances over BabyBear
// and KoalaBear: each a row of data (a Set: its field, width, S-box
// degree, round constants and where they come from, internal diagonal),
// from which package poseidon2 makes the Go permutation and, at run time,
// the WGSL that holds the row's constants (wgsl.go). A new instance is a
// row; nothing else names it.
//
// Plonky3's instances are tables, as Plonky3 defines them (commit
// 5dc50e51436a811c62443e336f766015fecc9217, baby-bear/src/poseidon2.rs and
// koala-bear/src/poseidon2.rs: default_babybear_poseidon2_16/24 and
// default_koalabear_poseidon2_16/24). The round constants are canonical
// values (Plonky3 writes them so and converts them to Montgomery form when
// it builds the arrays). KoalaBear's are the ones Plonky3 regenerated in
// v0.5.0 (PR #1398), not v0.4.x's.
//
// gnark-crypto's instances (GnarkSets, gnark.go) are the same permutation
// with other round counts and round keys, which gnark-crypto derives from
// a seed: their rows name the derivation, and the keys are taken from
// gnark-crypto's own Parameters.
package params31

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
)

// Set is one permutation's parameters: a row of the table.
type Set struct {
	// Name is the permutation's name, "babybear16": unique in the table.
	Name string
	// Field is the field's name: "babybear" or "koalabear".
	Field string
	// Source names where the constants come from, where not Plonky3's
	// default_FIELD_poseidon2_WIDTH.
	Source string
	// Width is the state size, a multiple of 4 from 16 (the constructions
	// take 16 elements); Degree the S-box exponent, 3 or 7.
	Width, Degree int
	// ExternalInitial and ExternalFinal are the round constants of the
	// full rounds before the partial rounds and of those after (four each
	// in Plonky3's instances, three in gnark-crypto's KoalaBear ones), one
	// row per round; Internal those of the partial rounds, one per round.
	ExternalInitial, ExternalFinal [][]uint32
	Internal                       []uint32
	// DiagNum[i] / 2^DiagShift[i] is entry i of V, the internal matrix
	// being 1 + Diag(V) (1 the all-ones matrix).
	DiagNum   []int32
	DiagShift []uint
}

// Check returns an error saying what is wrong with s, if anything: an
// unnamed row, an unknown field, a width or degree the permutation's
// layers do not take, round constants of other shapes than the width's
// or not below the field's p, a diagonal of another length.
func (s Set) Check() error {
	f, err := field.ParseField(s.Field)
	if err != nil {
		return fmt.Errorf("params31: %q: %w", s.Name, err)
	}
	switch {
	case s.Name == "":
		return fmt.Errorf("params31: a set over %s of width %d has no name", s.Field, s.Width)
	case s.Width < 16 || s.Width%4 != 0:
		return fmt.Errorf("params31: %s has width %d: want a multiple of 4 from 16", s.Name, s.Width)
	case s.Degree != 3 && s.Degree != 7:
		return fmt.Errorf("params31: %s has S-box degree %d: want 3 or 7", s.Name, s.Degree)
	case len(s.ExternalInitial) != len(s.ExternalFinal) || len(s.ExternalInitial) == 0:
		return fmt.Errorf("params31: %s has %d initial and %d final full rounds: want as many of each, at least one", s.Name, len(s.ExternalInitial), len(s.ExternalFinal))
	case len(s.Internal) == 0:
		return fmt.Errorf("params31: %s has no partial round", s.Name)
	case len(s.DiagNum) != s.Width || len(s.DiagShift) != s.Width:
		return fmt.Errorf("params31: %s has a diagonal of %d and %d entries: want %d", s.Name, len(s.DiagNum), len(s.DiagShift), s.Width)
	}
	rows := append(append([][]uint32{s.Internal}, s.ExternalInitial...), s.ExternalFinal...)
	for r, row := range rows {
		if r > 0 && len(row) != s.Width {
			return fmt.Errorf("params31: %s has a full round of %d constants: want %d", s.Name, len(row), s.Width)
		}
		for _, c := range row {
			if err := f.Check(c); err != nil {
				return fmt.Errorf("params31: %s round constant: %w", s.Name, err)
			}
		}
	}
	return nil
}

// Plonky3 lists Plonky3's default instances.
var Plonky3 = []Set{BabyBear16, BabyBear24, KoalaBear16, KoalaBear24}

// GnarkSets lists gnark-crypto's instances (v0.22.0's defaults): full and
// partial rounds of its NewParameters calls, keys from Keccak-256 of its
// parameter strings.
var GnarkSets = []Set{
	mustGnark("gnark-koalabear16", "koalabear", 16, 6, 21),
	mustGnark("gnark-koalabear24", "koalabear", 24, 6, 21),
	mustGnark("gnark-babybear16", "babybear", 16, 8, 13),
	mustGnark("gnark-babybear24", "babybear", 24, 8, 21),
}

// BabyBear16 is default_babybear_poseidon2_16 (BABYBEAR_POSEIDON2_RC_16_EXTERNAL_INITIAL, _EXTERNAL_FINAL, _INTERNAL).
var BabyBear16 = Set{
	Name: "babybear16", Field: "babybear", Width: 16, Degree: 7,
	ExternalInitial: [][]uint32{
		{0x69cbb6af, 0x46ad93f9, 0x60a00f4e, 0x6b1297cd, 0x23189afe, 0x732e7bef, 0x72c246de, 0x2c941900, 0x0557eede, 0x1580496f, 0x3a3ea77b, 0x54f3f271, 0x0f49b029, 0x47872fe1, 0x221e2e36, 0x1ab7202e},
		{0x487779a6, 0x3851c9d8, 0x38dc17c0, 0x209f8849, 0x268dcee8, 0x350c48da, 0x5b9ad32e, 0x0523272b, 0x3f89055b, 0x01e894b2, 0x13ddedde, 0x1b2ef334, 0x7507d8b4, 0x6ceeb94e, 0x52eb6ba2, 0x50642905},
		{0x05453f3f, 0x06349efc, 0x6922787c, 0x04bfff9c, 0x768c714a, 0x3e9ff21a, 0x15737c9c, 0x2229c807, 0x0d47f88c, 0x097e0ecc, 0x27eadba0, 0x2d7d29e4, 0x3502aaa0, 0x0f475fd7, 0x29fbda49, 0x018afffd},
		{0x0315b618, 0x6d4497d1, 0x1b171d9e, 0x52861abd, 0x2e5d0501, 0x3ec8646c, 0x6e5f250a, 0x148ae8e6, 0x17f5fa4a, 0x3e66d284, 0x0051aa3b, 0x483f7913, 0x2cfe5f15, 0x023427ca, 0x2cc78315, 0x1e36ea47},
	},
	ExternalFinal: [][]uint32{
		{0x7290a80d, 0x6f7e5329, 0x598ec8a8, 0x76a859a0, 0x6559e868, 0x657b83af, 0x13271d3f, 0x1f876063, 0x0aeeae37, 0x706e9ca6, 0x46400cee, 0x72a05c26, 0x2c589c9e, 0x20bd37a7, 0x6a2d3d10, 0x20523767},
		{0x5b8fe9c4, 0x2aa501d6, 0x1e01ac3e, 0x1448bc54, 0x5ce5ad1c, 0x4918a14d, 0x2c46a83f, 0x4fcf6876, 0x61d8d5c8, 0x6ddf4ff9, 0x11fda4d3, 0x02933a8f, 0x170eaf81, 0x5a9c314f, 0x49a12590, 0x35ec52a1},
		{0x58eb1611, 0x5e481e65, 0x367125c9, 0x0eba33ba, 0x1fc28ded, 0x066399ad, 0x0cbec0ea, 0x75fd1af0, 0x50f5bf4e, 0x643d5f41, 0x6f4fe718, 0x5b3cbbde, 0x1e3afb3e, 0x296fb027, 0x45e1547b, 0x4a8db2ab},
		{0x59986d19, 0x30bcdfa3, 0x1db63932, 0x1d7c2824, 0x53b33681, 0x0673b747, 0x038a98a3, 0x2c5bce60, 0x351979cd, 0x5008fb73, 0x547bca78, 0x711af481, 0x3f93bf64, 0x644d987b, 0x3c8bcd87, 0x608758b8},
	},
	Internal:  []uint32{0x5a8053c0, 0x693be639, 0x3858867d, 0x19334f6b, 0x128f0fd8, 0x4e2b1ccb, 0x61210ce0, 0x3c318939, 0x0b5b2f22, 0x2edb11d5, 0x213effdf, 0x0cac4606, 0x241af16d},
	DiagNum:   []int32{-2, 1, 2, 1, 3, 4, -1, -3, -4, 1, 1, 1, 1, -1, -1, -1},
	DiagShift: []uint{0, 0, 0, 1, 0, 0, 1, 0, 0, 8, 2, 3, 27, 8, 4, 27},
}

// BabyBear24 is default_babybear_poseidon2_24 (BABYBEAR_POSEIDON2_RC_24_EXTERNAL_INITIAL, _EXTERNAL_FINAL, _INTERNAL).
var BabyBear24 = Set{
	Name: "babybear24", Field: "babybear", Width: 24, Degree: 7,
	ExternalInitial: [][]uint32{
		{0x0fa20c37, 0x0795bb97, 0x12c60b9c, 0x0eabd88e, 0x096485ca, 0x07093527, 0x1b1d4e50, 0x30a01ace, 0x3bd86f5a, 0x69af7c28, 0x3f94775f, 0x731560e8, 0x465a0ecd, 0x574ef807, 0x62fd4870, 0x52ccfe44, 0x14772b14, 0x4dedf371, 0x260acd7c, 0x1f51dc58, 0x75125532, 0x686a4d7b, 0x54bac179, 0x31947706},
		{0x29799d3b, 0x6e01ae90, 0x203a7a64, 0x4f7e25be, 0x72503f77, 0x45bd3b69, 0x769bd6b4, 0x5a867f08, 0x4fdba082, 0x251c4318, 0x28f06201, 0x6788c43a, 0x4c6d6a99, 0x357784a8, 0x2abaf051, 0x770f7de6, 0x1794b784, 0x4796c57a, 0x724b7a10, 0x449989a7, 0x64935cf1, 0x59e14aac, 0x0e620bb8, 0x3af5a33b},
		{0x4465cc0e, 0x019df68f, 0x4af8d068, 0x08784f82, 0x0cefdeae, 0x6337a467, 0x32fa7a16, 0x486f62d6, 0x386a7480, 0x20f17c4a, 0x54e50da8, 0x2012cf03, 0x5fe52950, 0x09afb6cd, 0x2523044e, 0x5c54d0ef, 0x71c01f3c, 0x60b2c4fb, 0x4050b379, 0x5e6a70a5, 0x418543f5, 0x71debe56, 0x1aad2994, 0x3368a483},
		{0x07a86f3a, 0x5ea43ff1, 0x2443780e, 0x4ce444f7, 0x146f9882, 0x3132b089, 0x197ea856, 0x667030c3, 0x2317d5dc, 0x0c2c48a7, 0x56b2df66, 0x67bd81e9, 0x4fcdfb19, 0x4baaef32, 0x0328d30a, 0x6235760d, 0x12432912, 0x0a49e258, 0x030e1b70, 0x48caeb03, 0x49e4d9e9, 0x1051b5c6, 0x6a36dbbe, 0x4cff27a5},
	},
	ExternalFinal: [][]uint32{
		{0x032959ad, 0x2b18af6a, 0x55d3dc8c, 0x43bd26c8, 0x0c41595f, 0x7048d2e2, 0x00db8983, 0x2af563d7, 0x6e84758f, 0x611d64e1, 0x1f9977e2, 0x64163a0a, 0x5c5fc27b, 0x02e22561, 0x3a2d75db, 0x1ba7b71a, 0x34343f64, 0x7406b35d, 0x19df8299, 0x6ff4480a, 0x514a81c8, 0x57ab52ce, 0x6ad69f52, 0x3e0c0e0d},
		{0x48126114, 0x2a9d62cc, 0x17441f23, 0x485762bb, 0x2f218674, 0x06fdc64a, 0x0861b7f2, 0x3b36eee6, 0x70a11040, 0x04b31737, 0x3722a872, 0x2a351c63, 0x623560dc, 0x62584ab2, 0x382c7c04, 0x3bf9edc7, 0x0e38fe51, 0x376f3b10, 0x5381e178, 0x3afc61c7, 0x5c1bcb4d, 0x6643ce1f, 0x2d0af1c1, 0x08f583cc},
		{0x5d6ff60f, 0x6324c1e5, 0x74412fb7, 0x70c0192e, 0x0b72f141, 0x4067a111, 0x57388c4f, 0x351009ec, 0x0974c159, 0x539a58b3, 0x038c0cff, 0x476c0392, 0x3f7bc15f, 0x4491dd2c, 0x4d1fef55, 0x04936ae3, 0x58214dd4, 0x683c6aad, 0x1b42f16b, 0x6dc79135, 0x2d4e71ec, 0x3e2946ea, 0x59dce8db, 0x6cee892a},
		{0x47f07350, 0x7106ce93, 0x3bd4a7a9, 0x2bfe636a, 0x430011e9, 0x001cd66a, 0x307faf5b, 0x0d9ef3fe, 0x6d40043a, 0x2e8f470c, 0x1b6865e8, 0x0c0e6c01, 0x4d41981f, 0x423b9d3d, 0x410408cc, 0x263f0884, 0x5311bbd0, 0x4dae58d8, 0x30401cea, 0x09afa575, 0x4b3d5b42, 0x63ac0b37, 0x5fe5bb14, 0x5244e9d4},
	},
	Internal:  []uint32{0x1da78ec2, 0x730b0924, 0x3eb56cf3, 0x5bd93073, 0x37204c97, 0x51642d89, 0x66e943e8, 0x1a3e72de, 0x70beb1e9, 0x30ff3b3f, 0x4240d1c4, 0x12647b8d, 0x65d86965, 0x49ef4d7c, 0x47785697, 0x46b3969f, 0x5c7b7a0e, 0x7078fc60, 0x4f22d482, 0x482a9aee, 0x6beb839d},
	DiagNum:   []int32{-2, 1, 2, 1, 3, 4, -1, -3, -4, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1},
	DiagShift: []uint{0, 0, 0, 1, 0, 0, 1, 0, 0, 8, 2, 3, 4, 7, 9, 27, 8, 2, 3, 4, 5, 6, 7, 27},
}

// KoalaBear16 is default_koalabear_poseidon2_16 (KOALABEAR_POSEIDON2_RC_16_EXTERNAL_INITIAL, _EXTERNAL_FINAL, _INTERNAL).
var KoalaBear16 = Set{
	Name: "koalabear16", Field: "koalabear", Width: 16, Degree: 3,
	ExternalInitial: [][]uint32{
		{0x7ee56a48, 0x11367045, 0x12e41941, 0x7ebbc12b, 0x1970b7d5, 0x662b60e8, 0x3e4990c6, 0x679f91f5, 0x350813bb, 0x00874ad4, 0x28a0081a, 0x18fa5872, 0x5f25b071, 0x5e5d5998, 0x5e6fd3e7, 0x5b2e2660},
		{0x6f1837bf, 0x3fe6182b, 0x1edd7ac5, 0x57470d00, 0x43d486d5, 0x1982c70f, 0x0ea53af9, 0x61d6165b, 0x51639c00, 0x2dec352c, 0x2950e531, 0x2d2cb947, 0x08256cef, 0x1a0109f6, 0x1f51faf3, 0x5cef1c62},
		{0x3d65e50e, 0x33d91626, 0x133d5a1e, 0x0ff49b0d, 0x38900cd1, 0x2c22cc3f, 0x28852bb2, 0x06c65a02, 0x7b2cf7bc, 0x68016e1a, 0x15e16bc0, 0x5248149a, 0x6dd212a0, 0x18d6830a, 0x5001be82, 0x64dac34e},
		{0x5902b287, 0x426583a0, 0x0c921632, 0x3fe028a5, 0x245f8e49, 0x43bb297e, 0x7873dbd9, 0x3cc987df, 0x286bb4ce, 0x640a8dcd, 0x512a8e36, 0x03a4cf55, 0x481837a2, 0x03d6da84, 0x73726ac7, 0x760e7fdf},
	},
	ExternalFinal: [][]uint32{
		{0x43e7dc24, 0x259a5d61, 0x27e85a3b, 0x1b9133fa, 0x343e5628, 0x485cd4c2, 0x16e269f5, 0x165b60c6, 0x25f683d9, 0x124f81f9, 0x174331f9, 0x77344dc5, 0x5a821dba, 0x5fc4177f, 0x54153bf5, 0x5e3f1194},
		{0x3bdbf191, 0x088c84a3, 0x68256c9b, 0x3c90bbc6, 0x6846166a, 0x03f4238d, 0x463335fb, 0x5e3d3551, 0x6e59ae6f, 0x32d06cc0, 0x596293f3, 0x6c87edb2, 0x08fc60b5, 0x34bcca80, 0x24f007f3, 0x62731c6f},
		{0x1e1db6c6, 0x0ca409bb, 0x585c1e78, 0x56e94edc, 0x16d22734, 0x18e11467, 0x7b2c3730, 0x770075e4, 0x35d1b18c, 0x22be3db5, 0x4fb1fbb7, 0x477cb3ed, 0x7d5311c6, 0x5b62ae7d, 0x559c5fa8, 0x77f15048},
		{0x3211570b, 0x490fef6a, 0x77ec311f, 0x2247171b, 0x4e0ac711, 0x2edf69c9, 0x3b5a8850, 0x65809421, 0x5619b4aa, 0x362019a7, 0x6bf9d4ed, 0x5b413dff, 0x617e181e, 0x5e7ab57b, 0x33ad7833, 0x3466c7ca},
	},
	Internal:  []uint32{0x54dfeb5d, 0x7d40afd6, 0x722cb316, 0x106a4573, 0x45a7ccdb, 0x44061375, 0x154077a5, 0x45744faa, 0x4eb5e5ee, 0x3794e83f, 0x47c7093c, 0x5694903c, 0x69cb6299, 0x373df84c, 0x46a0df58, 0x46b8758a, 0x3241ebcb, 0x0b09d233, 0x1af42357, 0x1e66cec2},
	DiagNum:   []int32{-2, 1, 2, 1, 3, 4, -1, -3, -4, 1, 1, 1, -1, -1, -1, -1},
	DiagShift: []uint{0, 0, 0, 1, 0, 0, 1, 0, 0, 8, 3, 24, 8, 3, 4, 24},
}

// KoalaBear24 is default_koalabear_poseidon2_24 (KOALABEAR_POSEIDON2_RC_24_EXTERNAL_INITIAL, _EXTERNAL_FINAL, _INTERNAL).
var KoalaBear24 = Set{
	Name: "koalabear24", Field: "koalabear", Width: 24, Degree: 3,
	ExternalInitial: [][]uint32{
		{0x1d0939dc, 0x6d050f8d, 0x628058ad, 0x2681385d, 0x3e3c62be, 0x032cfad8, 0x5a91ba3c, 0x015a56e6, 0x696b889c, 0x0dbcd780, 0x5881b5c9, 0x2a076f2e, 0x55393055, 0x6513a085, 0x547ac78f, 0x4281c5b8, 0x3e7a3f6c, 0x34562c19, 0x2c04e679, 0x0ed78234, 0x5f7a1aa9, 0x0177640e, 0x0ea4f8d1, 0x15be7692},
		{0x6eafdd62, 0x71a572c6, 0x72416f0a, 0x31ce1ad3, 0x2136a0cf, 0x1507c0eb, 0x1eb6e07a, 0x3a0ccf7b, 0x38e4bf31, 0x44128286, 0x6b05e976, 0x244a9b92, 0x6e4b32a8, 0x78ee2496, 0x4761115b, 0x3d3a7077, 0x75d3c670, 0x396a2475, 0x26dd00b4, 0x7df50f59, 0x0cb922df, 0x0568b190, 0x5bd3fcd6, 0x1351f58e},
		{0x52191b5f, 0x119171b8, 0x1e8bb727, 0x27d21f26, 0x36146613, 0x1ee817a2, 0x71abe84e, 0x44b88070, 0x5dc04410, 0x2aeaa2f6, 0x2b7bb311, 0x6906884d, 0x0522e053, 0x0c45a214, 0x1b016998, 0x479b1052, 0x3acc89be, 0x0776021a, 0x7a34a1f5, 0x70f87911, 0x2caf9d9e, 0x026aff1b, 0x2c42468e, 0x67726b45},
		{0x09b6f53c, 0x73d76589, 0x5793eeb0, 0x29e720f3, 0x75fc8bdf, 0x4c2fae0e, 0x20b41db3, 0x7e491510, 0x2cadef18, 0x57fc24d6, 0x4d1ade4a, 0x36bf8e3c, 0x3511b63c, 0x64d8476f, 0x732ba706, 0x46634978, 0x0521c17c, 0x5ee69212, 0x3559cba9, 0x2b33df89, 0x653538d6, 0x5fde8344, 0x4091605d, 0x2933bdde},
	},
	ExternalFinal: [][]uint32{
		{0x7d232359, 0x389d82f9, 0x259b2e6c, 0x45a94def, 0x0d497380, 0x5b049135, 0x3c268399, 0x78feb2f9, 0x300a3eec, 0x505165bb, 0x20300973, 0x2327c081, 0x1a45a2f4, 0x5b32ea2e, 0x2d5d1a70, 0x053e613e, 0x5433e39f, 0x495529f0, 0x1eaa1aa9, 0x578f572a, 0x698ede71, 0x5a0f9dba, 0x398a2e96, 0x0c7b2925},
		{0x2e6b9564, 0x026b00de, 0x7644c1e9, 0x5c23d0bd, 0x3470b5ef, 0x6013cf3a, 0x48747288, 0x13b7a543, 0x3eaebd44, 0x0004e60c, 0x1e8363a2, 0x2343259a, 0x69da0c2a, 0x06e3e4c4, 0x1095018e, 0x0deea348, 0x1f4c5513, 0x4f9a3a98, 0x3179112b, 0x524abb1f, 0x21615ba2, 0x23ab4065, 0x1202a1d1, 0x21d25b83},
		{0x6ed17c2f, 0x391e6b09, 0x5e4ed894, 0x6a2f58f2, 0x5d980d70, 0x3fa48c5e, 0x1f6366f7, 0x63540f5f, 0x6a8235ed, 0x14c12a78, 0x6edde1c9, 0x58ce1c22, 0x718588bb, 0x334313ad, 0x7478dbc7, 0x647ad52f, 0x39e82049, 0x6fee146a, 0x082c2f24, 0x1f093015, 0x30173c18, 0x53f70c0d, 0x6028ab0c, 0x2f47a1ee},
		{0x26a6780e, 0x3540bc83, 0x1812b49f, 0x5149c827, 0x631dd925, 0x001f2dea, 0x7dc05194, 0x3789672e, 0x7cabf72e, 0x242dbe2f, 0x0b07a51d, 0x38653650, 0x50785c4e, 0x60e8a7e0, 0x07464338, 0x3482d6e1, 0x08a69f1e, 0x3f2aff24, 0x5814c30d, 0x13fecab2, 0x61cb291a, 0x68c8226f, 0x5c757eea, 0x289b4e1e},
	},
	Internal:  []uint32{0x1395d4ca, 0x5dbac049, 0x51fc2727, 0x13407399, 0x39ac6953, 0x45e8726c, 0x75a7311c, 0x599f82c9, 0x702cf13b, 0x026b8955, 0x44e09bbc, 0x2211207f, 0x5128b4e3, 0x591c41af, 0x674f5c68, 0x3981d0d3, 0x2d82f898, 0x707cd267, 0x3b4cca45, 0x2ad0dc3c, 0x0cb79b37, 0x23f2f4e8, 0x3de4e739},
	DiagNum:   []int32{-2, 1, 2, 1, 3, 4, -1, -3, -4, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1},
	DiagShift: []uint{0, 0, 0, 1, 0, 0, 1, 0, 0, 8, 2, 3, 4, 5, 6, 24, 8, 3, 4, 5, 6, 7, 9, 24},
}
