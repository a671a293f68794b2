// Package sis hashes vectors of KoalaBear elements with ring-SIS exactly as
// gnark-crypto's field/koalabear/sis RSis does (the column hash of its
// Vortex commitment, vortex.transversalHashSIS), many columns at once on
// the GPU.
//
// A Key is built from gnark-crypto's own RSis (NewRSis's key generation,
// so every bit matches): an input of n elements is cut into limbs of
// LogTwoBound bits (each element's canonical value, little-endian), the
// limbs, Degree at a time, are the polynomials M_i, and the hash is the
// Degree coefficients of sum_i A_i * M_i mod X^Degree + 1. gnark-crypto
// enters a limb l as the Montgomery form l (the element l/2^32); the
// kernel does the same.
//
// Elements are gnark-crypto's koalabear.Element, in Montgomery form in
// memory, in and out, without conversion: the kernel reads and writes
// Montgomery forms as gnark-crypto holds them.
package sis

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/algos/field"
)

// maxDegree bounds a Key's degree: the kernel holds two polynomials of
// Degree u32 words in workgroup memory, within WebGPU's default 16 KiB.
const maxDegree = 2048

// Key is a ring-SIS key, gnark-crypto's RSis with what the kernel reads:
// the key's polynomials evaluated by the kernel's transform and its
// twiddles, in Montgomery form.
type Key struct {
	rs *gsis.RSis
	// d is the degree, limbBits the limb size, maxElements the most
	// elements one hash takes.
	d, limbBits, maxElements int
	// eval are the key's polynomials as the kernel's forward transform
	// leaves them (bit-reversed order), d words each; tw the twiddles as
	// sis.wgsl lays them out (3d words).
	eval []uint32
	tw   []uint32
}

// New returns the Key of gnark-crypto's sis.NewRSis(seed, logTwoDegree,
// logTwoBound, maxElements): hashes of up to maxElements elements of
// 2^logTwoDegree elements each, limbs of logTwoBound bits (8 or 16).
// Vortex's is New(0, 9, 16, rows).
func New(seed int64, logTwoDegree, logTwoBound, maxElements int) (*Key, error) {
	if logTwoDegree < 1 || 1<<logTwoDegree > maxDegree {
		return nil, fmt.Errorf("sis: logTwoDegree %d: accepted are 1 to 11 (degrees 2 to %d)", logTwoDegree, maxDegree)
	}
	if logTwoBound != 8 && logTwoBound != 16 {
		return nil, fmt.Errorf("sis: logTwoBound %d: accepted are 8 and 16 (gnark-crypto's limbs of 1 and 2 bytes)", logTwoBound)
	}
	if maxElements < 1 || maxElements > 1<<24 {
		return nil, fmt.Errorf("sis: maxElements %d: accepted are 1 to 2^24", maxElements)
	}
	rs, err := gsis.NewRSis(seed, logTwoDegree, logTwoBound, maxElements)
	if err != nil {
		return nil, fmt.Errorf("sis: %w", err)
	}
	return newKey(rs, maxElements)
}

// FromRSis returns the Key of gnark-crypto's rs. gnark-crypto keeps its
// maxNbElementsToHash private, so the Key takes as many elements as rs's
// polynomials hold (up to Degree/limbs-per-element more than rs takes).
func FromRSis(rs *gsis.RSis) (*Key, error) {
	if rs == nil || rs.Degree < 2 || rs.Degree > maxDegree || rs.Degree&(rs.Degree-1) != 0 || len(rs.A) == 0 {
		return nil, errors.New("sis: an RSis from sis.NewRSis with a degree of 2 to 2048 is needed")
	}
	if rs.LogTwoBound != 8 && rs.LogTwoBound != 16 {
		return nil, fmt.Errorf("sis: RSis of logTwoBound %d: accepted are 8 and 16", rs.LogTwoBound)
	}
	return newKey(rs, len(rs.A)*rs.Degree*rs.LogTwoBound/32)
}

func newKey(rs *gsis.RSis, maxElements int) (*Key, error) {
	k := &Key{rs: rs, d: rs.Degree, limbBits: rs.LogTwoBound, maxElements: maxElements}
	f := field.KoalaBear
	d := uint64(k.d)
	// psi, a primitive 2d-th root of unity: 3 generates KoalaBear's
	// multiplicative group, of order p - 1 = 2^24·127.
	psi := f.Exp(3, (uint64(f.P())-1)/(2*d))
	if f.Exp(psi, d) != f.P()-1 {
		return nil, fmt.Errorf("sis: no primitive %d-th root of unity", 2*d)
	}
	psiInv, _ := f.Inverse(psi)
	dInv, _ := f.Inverse(uint32(d))
	w, wInv := f.Mul(psi, psi), f.Mul(psiInv, psiInv)
	k.tw = make([]uint32, 3*k.d)
	x, y := uint32(1), uint32(1)
	for j := range k.d / 2 {
		k.tw[j], k.tw[k.d/2+j] = f.ToMonty(x), f.ToMonty(y)
		x, y = f.Mul(x, w), f.Mul(y, wInv)
	}
	x, y = 1, dInv
	for j := range k.d {
		k.tw[k.d+j], k.tw[2*k.d+j] = f.ToMonty(x), f.ToMonty(y)
		x, y = f.Mul(x, psi), f.Mul(y, psiInv)
	}
	k.eval = make([]uint32, len(rs.A)*k.d)
	for i, a := range rs.A {
		e := k.eval[i*k.d : (i+1)*k.d]
		copy(e, field.MontyWords(a)) // A's Montgomery forms
		k.forward(e)
	}
	return k, nil
}

// Degree returns the degree d: a hash is d elements.
func (k *Key) Degree() int { return k.d }

// LogTwoBound returns the limbs' size in bits.
func (k *Key) LogTwoBound() int { return k.limbBits }

// MaxElements returns the most elements one hash takes.
func (k *Key) MaxElements() int { return k.maxElements }

// RSis returns gnark-crypto's instance the key is.
func (k *Key) RSis() *gsis.RSis { return k.rs }

// polys returns how many of the key's polynomials a hash of n elements
// multiplies.
func (k *Key) polys(n int) int {
	limbs := n * (32 / k.limbBits)
	return (limbs + k.d - 1) / k.d
}

// check returns an error unless v's elements are reduced Montgomery
// forms (below p), naming the first that is not.
func check(v []uint32, what func(i int) string) error {
	p := field.KoalaBear.P()
	if i := batch.FirstNonCanonical(v, uint64(p)); i >= 0 {
		return fmt.Errorf("sis: %s is %d in memory: a koalabear.Element holds its Montgomery form, below p = %d", what(i), v[i], p)
	}
	return nil
}

// Hash computes gnark-crypto's RSis.Hash of v into dst (Degree elements)
// with the kernel's arithmetic on the CPU: the Go twin of sis.wgsl, held
// to gnark-crypto by the tests.
func (k *Key) Hash(dst, v []koalabear.Element) error {
	if len(dst) != k.d {
		return fmt.Errorf("sis: a hash is %d elements, given room for %d", k.d, len(dst))
	}
	if len(v) > k.maxElements {
		return fmt.Errorf("sis: %d elements to hash: the key takes at most %d", len(v), k.maxElements)
	}
	in := field.MontyWords(v)
	if err := check(in, func(i int) string { return fmt.Sprintf("element %d", i) }); err != nil {
		return err
	}
	k.hash(field.MontyWords(dst), func(r int) uint32 { return in[r] }, len(v))
	return nil
}

// hash is sis.wgsl's sis_hash on one column of rows elements, element r
// at(r), into out (Montgomery forms in and out); sis_hash8 computes the
// same stages, three at a time.
func (k *Key) hash(out []uint32, at func(r int) uint32, rows int) {
	f := field.KoalaBear
	d, limbs, mask := k.d, 32/k.limbBits, uint32(1)<<k.limbBits-1
	buf := make([]uint32, d)
	acc := out
	clear(acc)
	for i := range k.polys(rows) {
		for j := range d {
			g := i*d + j
			var l uint32
			if r := g / limbs; r < rows {
				c := f.FromMonty(at(r))
				l = c >> (uint(g%limbs) * uint(k.limbBits)) & mask
			}
			buf[j] = f.MontyMul(l, k.tw[d+j])
		}
		k.dif(buf)
		for j := range d {
			acc[j] = f.Add(acc[j], f.MontyMul(buf[j], k.eval[i*d+j]))
		}
	}
	k.dit(acc)
	for j := range d {
		acc[j] = f.MontyMul(acc[j], k.tw[2*d+j])
	}
}

// forward is the kernel's forward transform of a polynomial's Montgomery
// forms in place: the twist by psi^j, then dif.
func (k *Key) forward(a []uint32) {
	for j := range a {
		a[j] = field.KoalaBear.MontyMul(a[j], k.tw[k.d+j])
	}
	k.dif(a)
}

// dif is sis.wgsl's sis_dif: Gentleman-Sande stages, natural order in,
// bit-reversed out.
func (k *Key) dif(a []uint32) {
	f := field.KoalaBear
	h := k.d / 2
	for half := h; half >= 1; half >>= 1 {
		step := h / half
		for b := range h {
			j := b & (half - 1)
			i0 := (b-j)<<1 + j
			u, v := a[i0], a[i0+half]
			a[i0], a[i0+half] = f.Add(u, v), f.MontyMul(f.Sub(u, v), k.tw[j*step])
		}
	}
}

// dit is sis.wgsl's sis_dit: Cooley-Tukey stages by w^-1, bit-reversed
// order in, natural out, not divided by d.
func (k *Key) dit(a []uint32) {
	f := field.KoalaBear
	h := k.d / 2
	for half := 1; half <= h; half <<= 1 {
		step := h / half
		for b := range h {
			j := b & (half - 1)
			i0 := (b-j)<<1 + j
			u, v := a[i0], f.MontyMul(a[i0+half], k.tw[h+j*step])
			a[i0], a[i0+half] = f.Add(u, v), f.Sub(u, v)
		}
	}
}
