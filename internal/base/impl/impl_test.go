package impl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	Register("h", []Variant{{"fast", 1}, {"slow", 2}})
	require.Equal(t, []string{"fast", "slow"}, List("h"))
	v, err := Select[int]("h", "slow")
	require.NoError(t, err)
	require.Equal(t, 2, v)
	all, err := All[int]("h")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, all)
	_, err = Select[int]("h", "nope")
	require.EqualError(t, err, `h: unknown variant "nope": accepted are [fast slow]`)
	_, err = Select[string]("h", "fast")
	require.EqualError(t, err, "h: variant fast is a int, not a string")
	_, err = Select[int]("other", "fast")
	require.EqualError(t, err, "other: no kernel variants registered")
	require.Nil(t, List("other"))
}
