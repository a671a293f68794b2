package field

import "fmt"

// Form is how a 31-bit field's elements are held in memory: Canonical,
// the values themselves (what files, the CLI and JSON hold), or
// Montgomery, x·2^32 mod p, as gnark-crypto's koalabear.Element and
// babybear.Element and Plonky3 (since 0.4) hold them. Either way an
// element is one word below p, so one check (below p) serves both; a
// Goldilocks element is canonical in either form. The zero value is
// Canonical, so that a description of data without a form (a
// merkle.Matrix) means what it meant before forms.
type Form uint8

const (
	// Canonical elements are their values below p.
	Canonical Form = iota
	// Montgomery elements are x·2^32 mod p, each a word below p:
	// gnark-crypto's layout of BabyBear and KoalaBear (MontyWords views
	// its elements as words).
	Montgomery
)

// String returns "canonical" or "Montgomery".
func (f Form) String() string {
	switch f {
	case Canonical:
		return "canonical"
	case Montgomery:
		return "Montgomery"
	}
	return fmt.Sprintf("Form(%d)", uint8(f))
}

// Check returns an error unless f is Canonical or Montgomery, saying
// which forms there are.
func (f Form) Check() error {
	if f > Montgomery {
		return fmt.Errorf("field: form %d: the forms are Canonical (0) and Montgomery (1)", uint8(f))
	}
	return nil
}

// NotElement says why w, found where an element of form f of the field
// named name (of prime p) belongs, is not one: the one wording of the
// error every check of elements (a value not below p, a Montgomery word
// not reduced) gives, after the caller's naming of the place.
func (f Form) NotElement(w uint64, name string, p uint64) string {
	if f == Montgomery {
		return fmt.Sprintf("Montgomery word %#x is not reduced: a %s element in Montgomery form is a word below p = %d", w, name, p)
	}
	return fmt.Sprintf("%d is not a %s element: elements are values below p = %d", w, name, p)
}
