package params31

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FileKeys names the files Files writes, and tells two rows' files apart
// where their texts differ: another constant changes the row's own file's
// key alone, another diagonal the internal layer's too, and the width's
// file has one key.
func TestFileKeys(t *testing.T) {
	for _, s := range append(append([]Set(nil), Plonky3...), GnarkSets...) {
		files, err := Files(s)
		require.NoError(t, err)
		keys := FileKeys(s)
		require.Equal(t, slices.Sorted(maps.Keys(files)), slices.Sorted(maps.Keys(keys)), s.Name)
	}
	s := KoalaBear16
	c := s
	c.Internal = slices.Clone(s.Internal)
	c.Internal[3]++
	d := s
	d.DiagNum = slices.Clone(s.DiagNum)
	d.DiagNum[0] = -d.DiagNum[0]
	ks, kc, kd := FileKeys(s), FileKeys(c), FileKeys(d)
	own, internal, width := FileName(s), internalFile(s.Field, s.Width), widthFile(s.Width)
	require.NotEqual(t, ks[own], kc[own])
	require.Equal(t, ks[internal], kc[internal])
	require.NotEqual(t, ks[internal], kd[internal])
	require.NotEqual(t, ks[own], kd[own])
	require.Equal(t, ks[width], kd[width])
	require.Equal(t, FileKeys(s), FileKeys(KoalaBear16), "a function of the row")
}

// CheckFiles refuses what Files refuses, without writing a file.
func TestCheckFiles(t *testing.T) {
	bad := []Set{{}, KoalaBear16, KoalaBear16, KoalaBear16}
	bad[1].Degree = 5
	bad[2].DiagNum = slices.Clone(KoalaBear16.DiagNum)
	bad[2].DiagNum[1] = 9
	bad[3].DiagNum = slices.Clone(KoalaBear16.DiagNum)
	bad[3].DiagShift = slices.Clone(KoalaBear16.DiagShift)
	bad[3].DiagNum[1], bad[3].DiagShift[1] = 3, 2
	for i, s := range bad {
		_, want := Files(s)
		require.Error(t, want, "row %d", i)
		require.EqualError(t, CheckFiles(s), want.Error(), "row %d", i)
	}
	require.NoError(t, CheckFiles(KoalaBear16))
}
