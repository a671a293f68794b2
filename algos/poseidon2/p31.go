package poseidon2

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

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
	// files adds the row's WGSL files to the generated library once,
	// filesErr what that returned.
	files    sync.Once
	filesErr error
	// The constants in Montgomery form, for permuteMonty.
	extM      [][]uint32 // the initial then the final full rounds'
	internalM []uint32
	diagM     []uint32
}

// table31 holds the permutation of every row of params31's table, by
// name: a row is all an instance needs (its Go constants and its WGSL,
// generated from the row when the permutation is made).
var table31 = func() map[string]*Permutation31 {
	m := map[string]*Permutation31{}
	for _, s := range append(append([]params31.Set(nil), params31.Plonky3...), params31.GnarkSets...) {
		p, err := newPermutation31(s)
		if err != nil {
			panic(err) // the table's rows are held to their vectors by the tests
		}
		if m[s.Name] != nil {
			panic("poseidon2: two rows of params31's table are named " + s.Name)
		}
		m[s.Name] = p
	}
	return m
}()

var (
	// BabyBear16 is Poseidon2 over BabyBear of width 16, 13 partial rounds
	// (default_babybear_poseidon2_16).
	BabyBear16 = table31["babybear16"]
	// BabyBear24 is Poseidon2 over BabyBear of width 24, 21 partial rounds
	// (default_babybear_poseidon2_24).
	BabyBear24 = table31["babybear24"]
	// KoalaBear16 is Poseidon2 over KoalaBear of width 16, 20 partial
	// rounds (default_koalabear_poseidon2_16).
	KoalaBear16 = table31["koalabear16"]
	// KoalaBear24 is Poseidon2 over KoalaBear of width 24, 23 partial
	// rounds (default_koalabear_poseidon2_24).
	KoalaBear24 = table31["koalabear24"]
)

// Permutations31 lists Plonky3's 31-bit permutations, for callers that
// choose one by name.
var Permutations31 = []*Permutation31{BabyBear16, BabyBear24, KoalaBear16, KoalaBear24}

// Permutation31Named returns the permutation of the instance table's row
// named name ("babybear16", "gnark-koalabear24"), or an error listing the
// names.
func Permutation31Named(name string) (*Permutation31, error) {
	if p := table31[name]; p != nil {
		return p, nil
	}
	names := slices.Sorted(maps.Keys(table31))
	return nil, fmt.Errorf("poseidon2: no 31-bit permutation %q: the instances are %s", name, strings.Join(names, ", "))
}

// newPermutation31 returns the permutation of row s, or an error saying
// what is wrong with the row. Its WGSL files are generated from the row
// when its first module is made (Permutation31.module), not here: every
// process makes the table's instances at its start, and few compile one.
func newPermutation31(s params31.Set) (*Permutation31, error) {
	if err := params31.CheckFiles(s); err != nil {
		return nil, err
	}
	if err := claimFiles(s); err != nil {
		return nil, err
	}
	f, _ := field.ParseField(s.Field) // checked
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
	return p, nil
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
	return plonky3Construction.sponge(p)
}

// Compression returns Plonky3's TruncatedPermutation<p, 2, 8, Width>
// over the permutation: how its Merkle trees merge two digests.
func (p *Permutation31) Compression() symmetric.TruncatedPermutation[uint32] {
	return symmetric.TruncatedPermutation[uint32]{Perm: p, N: 2, Chunk: Digest31}
}

// construction31 is how a hash builds on a permutation: its compression
// of two digests and its sponge, the same values for the Go reference
// (algos/symmetric) and for the kernels (the prelude of compress31.wgsl
// and sponge31.wgsl). Its zero value is no construction (the permutation
// alone).
type construction31 struct {
	// feedForward is gnark-crypto's compression (FeedForwardCompression:
	// the second half of the output plus the second input), else
	// Plonky3's TruncatedPermutation (the first half).
	feedForward bool
	// at and rate are the lanes the sponge absorbs into: PaddingFreeSponge{At,
	// Rate, Out: Digest31}; rate 8 or 16.
	at, rate int
	// montyIn is the sponge over elements given in Montgomery form (a
	// merkle.Matrix of Form field.Montgomery), which the kernel absorbs
	// as they are instead of converting them at load (sponge31.wgsl's
	// S31_MONTY_IN): the same digests.
	montyIn bool
}

var (
	// plonky3Construction is Plonky3's: TruncatedPermutation<p, 2, 8, W>
	// and PaddingFreeSponge<p, W, 8, 8>.
	plonky3Construction = construction31{rate: Rate31}
	// gnarkConstruction is gnark-crypto's: vortex.CompressPoseidon2 and
	// vortex.HashPoseidon2, rate 16 in lanes 8..24 of the width-24
	// permutation.
	gnarkConstruction = construction31{feedForward: true, at: 8, rate: 16}
)

// sponge returns the construction's sponge over p.
func (c construction31) sponge(p symmetric.Permutation[uint32]) symmetric.PaddingFreeSponge[uint32] {
	return symmetric.PaddingFreeSponge[uint32]{Perm: p, At: c.at, Rate: c.rate, Out: Digest31}
}

// consts returns the construction as compress31.wgsl and sponge31.wgsl
// read it, for a module of files: the sponge's input form (S31_MONTY_IN)
// only where the files hold the sponge, which alone reads it, so that the
// other modules' text is what it was before forms.
func (c construction31) consts(files []string) []wgsl.Const {
	if c.rate == 0 {
		return nil
	}
	cs := []wgsl.Const{
		{Name: "C31_FEED_FORWARD", Value: c.feedForward},
		{Name: "S31_AT", Value: uint32(c.at)},
		{Name: "S31_RATE", Value: uint32(c.rate)},
	}
	if slices.Contains(files, spongeFile) {
		cs = append(cs, wgsl.Const{Name: "S31_MONTY_IN", Value: c.montyIn})
	}
	return cs
}

// spongeFile is the sponge's WGSL file, which reads S31_MONTY_IN.
const spongeFile = "sponge31.wgsl"

// in returns the construction over elements of form f: its sponge reads
// Montgomery words as they are for field.Montgomery. A form the sponge
// cannot read is an error naming the hash and the forms it takes.
func (c construction31) in(hash string, f field.Form) (construction31, error) {
	if err := f.Check(); err != nil {
		return construction31{}, fmt.Errorf("poseidon2: %s: %w", hash, err)
	}
	c.montyIn = f == field.Montgomery
	return c, nil
}

// module returns the WGSL module of files (which call perm_permute) over
// the permutation and construction c: the row's generated layers (with
// poseidon2_31.wgsl and the field's library) first, the field's and the
// construction's constants in the prelude. The row's files are generated
// here the first time; where that failed (filesErr: the row was checked
// when made, so only a fault of the generator), the module names a file
// the library lacks and does not compile.
func (p *Permutation31) module(c construction31, files ...string) wgsl.Module {
	p.addFiles()
	return wgsl.Module{Library: shaders, Files: append([]string{params31.FileName(p.set)}, files...), Consts: slices.Concat(p.f.Consts(), c.consts(files))}
}

// addFiles generates the row's WGSL files and adds them to the
// generated library, once.
func (p *Permutation31) addFiles() error {
	p.files.Do(func() {
		files, err := params31.Files(p.set)
		if err == nil {
			err = generatedFiles.Add(files)
		}
		if err != nil {
			p.filesErr = fmt.Errorf("poseidon2: instance %s: %w", p.set.Name, err)
		}
	})
	return p.filesErr
}

// claimed is what determines the text of each generated file name an
// instance was made with (params31.FileKeys): an instance whose files
// would give one of those names another text is refused when made, as
// its kernels would otherwise take the other's files.
var claimed = struct {
	sync.Mutex
	keys map[string]string
}{keys: map[string]string{}}

// claimFiles records s's files' names, or returns an error naming the
// first that an instance made before holds with another text.
func claimFiles(s params31.Set) error {
	keys := params31.FileKeys(s)
	claimed.Lock()
	defer claimed.Unlock()
	for name, key := range keys {
		if old, ok := claimed.keys[name]; ok && old != key {
			return fmt.Errorf("poseidon2: instance %s: its WGSL file %s was generated for another row (an instance of this name, or an internal layer of another diagonal): rows of one name are one row", s.Name, name)
		}
	}
	for name, key := range keys {
		claimed.keys[name] = key
	}
	return nil
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
