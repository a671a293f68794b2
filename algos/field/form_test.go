package field_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/field"
)

// TestForm: the zero Form is canonical, the two forms name themselves,
// any other value is refused, and the one wording of a word that is not
// an element says which form it was read in.
func TestForm(t *testing.T) {
	var zero field.Form
	require.Equal(t, field.Canonical, zero)
	require.Equal(t, "canonical", field.Canonical.String())
	require.Equal(t, "Montgomery", field.Montgomery.String())
	require.NoError(t, field.Canonical.Check())
	require.NoError(t, field.Montgomery.Check())
	require.EqualError(t, field.Form(2).Check(), "field: form 2: the forms are Canonical (0) and Montgomery (1)")
	p := uint64(field.KoalaBear.P())
	require.Equal(t, "2130706433 is not a koalabear element: elements are values below p = 2130706433", field.Canonical.NotElement(p, "koalabear", p))
	require.Equal(t, "Montgomery word 0x7f000001 is not reduced: a koalabear element in Montgomery form is a word below p = 2130706433", field.Montgomery.NotElement(p, "koalabear", p))
}
