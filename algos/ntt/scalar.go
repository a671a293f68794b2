package ntt

import (
	"fmt"

	"github.com/consensys/gnark-crypto/field/babybear"
	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/wgcompute/wgcompute/algos/field"
)

// Scalar is a root of unity or a coset shift as Options, ExtendOptions
// and PlanOptions take it: a field element together with the form it is
// given in, so that a Montgomery word is never read as a value nor a
// value as a Montgomery word, whatever the form of the rows. Value
// makes one of a canonical value; KoalaBear and BabyBear of a
// gnark-crypto element as it is in memory (Montgomery form); MontyWord
// of a raw Montgomery word. The zero Scalar takes the default.
type Scalar struct {
	word uint64
	kind scalarKind
}

// scalarKind is the form a Scalar's word is in.
type scalarKind uint8

const (
	unset     scalarKind = iota // the default
	canonical                   // the value below p
	montyWord                   // x·2^32 mod p, of either 31-bit field
	koalaElem                   // a koalabear.Element's word
	babyElem                    // a babybear.Element's word
)

// Value returns the Scalar of the canonical value v, below the field's
// p: 3 is the element 3, in every field and whatever the rows' form.
func Value(v uint64) Scalar { return Scalar{word: v, kind: canonical} }

// KoalaBear returns the Scalar of a gnark-crypto KoalaBear element, its
// Montgomery word read as gnark-crypto reads it; only a transform over
// KoalaBear takes it.
func KoalaBear(e koalabear.Element) Scalar { return Scalar{word: uint64(e[0]), kind: koalaElem} }

// BabyBear returns the Scalar of a gnark-crypto BabyBear element, as
// KoalaBear does; only a transform over BabyBear takes it.
func BabyBear(e babybear.Element) Scalar { return Scalar{word: uint64(e[0]), kind: babyElem} }

// MontyWord returns the Scalar of w, a word in Montgomery form
// (x·2^32 mod p) of BabyBear or KoalaBear: the element x, in the field
// of the transform it is given to, as the rows of TransformMonty on
// []uint32 hold their elements.
func MontyWord(w uint32) Scalar { return Scalar{word: uint64(w), kind: montyWord} }

// IsZero reports whether s is the zero Scalar, which takes the default.
func (s Scalar) IsZero() bool { return s.kind == unset }

// String describes s with its form: "the default", "7", "Montgomery word
// 0x5fffffa", "koalabear.Element{0x5fffffa}".
func (s Scalar) String() string {
	switch s.kind {
	case canonical:
		return fmt.Sprint(s.word)
	case montyWord:
		return fmt.Sprintf("Montgomery word %#x", s.word)
	case koalaElem:
		return fmt.Sprintf("koalabear.Element{%#x}", s.word)
	case babyElem:
		return fmt.Sprintf("babybear.Element{%#x}", s.word)
	}
	return "the default"
}

// montyName returns the name of the field whose gnark-crypto element the
// kind is, or "" for the kinds of no one field.
func (k scalarKind) montyName() string {
	switch k {
	case koalaElem:
		return field.KoalaBear.Name()
	case babyElem:
		return field.BabyBear.Name()
	}
	return ""
}

// forms says how a Scalar of fi is given in each form, for the errors.
func forms(fi fieldImpl) string {
	if _, ok := fi.fromMonty(0); !ok {
		return fmt.Sprintf("a %s root or shift is given as ntt.Value(v), v canonical (below p = %d)", fi.Name(), fi.modulus())
	}
	gnark := "ntt.KoalaBear(e)"
	if fi.Name() == field.BabyBear.Name() {
		gnark = "ntt.BabyBear(e)"
	}
	return fmt.Sprintf("a %s root or shift is given as ntt.Value(v), v canonical (below p = %d), as %s, e a gnark-crypto %s.Element, or as ntt.MontyWord(w), w a Montgomery word (x·2^32 mod p)",
		fi.Name(), fi.modulus(), gnark, fi.Name())
}

// resolve returns s's canonical value in fi, what being "root" or
// "shift", or an error saying which form fi takes: a word not below p
// in its form, a gnark-crypto element of another field, a Montgomery
// word of a field that has none.
func (s Scalar) resolve(fi fieldImpl, what string) (uint64, error) {
	p := fi.modulus()
	if s.word >= p {
		if s.kind == canonical {
			return 0, fmt.Errorf("ntt: %s %s is not a canonical %s value (below p = %d): %s", what, s, fi.Name(), p, forms(fi))
		}
		return 0, fmt.Errorf("ntt: %s %s is not reduced: a Montgomery word is below p = %d: %s", what, s, p, forms(fi))
	}
	switch s.kind {
	case canonical:
		return s.word, nil
	case montyWord, koalaElem, babyElem:
		if name := s.kind.montyName(); name != "" && name != fi.Name() {
			return 0, fmt.Errorf("ntt: %s %s is an element of %s, not of %s, the transform's field: %s", what, s, name, fi.Name(), forms(fi))
		}
		v, ok := fi.fromMonty(s.word)
		if !ok {
			return 0, fmt.Errorf("ntt: %s %s: %s elements have no Montgomery form here: %s", what, s, fi.Name(), forms(fi))
		}
		return v, nil
	}
	return 0, fmt.Errorf("ntt: internal: %s has no value", what)
}

// otherForm returns s's word read in the other form (canonical for a
// Montgomery word, Montgomery for a canonical value), and false where
// fi has no Montgomery form: what the caller likely meant when s is
// refused.
func (s Scalar) otherForm(fi fieldImpl) (uint64, bool) {
	if s.word >= fi.modulus() {
		return 0, false
	}
	if s.kind == canonical {
		return fi.fromMonty(s.word)
	}
	if _, ok := fi.fromMonty(0); !ok {
		return 0, false
	}
	return s.word, true
}
