package sis

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// TestTarget: a Key hashes on one device. A Group of one is its member
// and a nil Group the CPU, each giving RSis.Hash's columns; a Group of
// several is refused, naming its size, with dst left unchanged, and so is
// a Resident on it or on the CPU.
func TestTarget(t *testing.T) {
	const rows, cols = 21, 5
	k, err := New(0, 6, 8, 77)
	require.NoError(t, err)
	d := k.Degree()
	m := randElements(rand.New(rand.NewPCG(41, 5)), rows*cols)
	want := make([]koalabear.Element, cols*d)
	cm := make([]koalabear.Element, rows*cols)
	for c := range cols {
		for r := range rows {
			cm[c*rows+r] = m[r*cols+c]
		}
		require.NoError(t, k.RSis().Hash(cm[c*rows:(c+1)*rows], want[c*d:(c+1)*d]))
	}
	check := func(t *testing.T, tg wgpu.Target) {
		got := make([]koalabear.Element, cols*d)
		require.NoError(t, k.HashColumns(tg, got, m, rows, cols, Options{}))
		require.Equal(t, want, got)
		clear(got)
		require.NoError(t, k.HashColumnMajor(tg, got, cm, rows, Options{}))
		require.Equal(t, want, got)
	}
	var noGroup *sched.Group
	check(t, noGroup)
	_, err = k.NewResident(noGroup, rows)
	require.ErrorContains(t, err, "sis: a Resident holds its key on a GPU")

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		one, err := sched.NewGroup(ctx)
		require.NoError(t, err)
		check(t, one)
		r, err := k.NewResident(one, rows)
		require.NoError(t, err)
		r.Release()

		two, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		got := make([]koalabear.Element, cols*d)
		require.EqualError(t, k.HashColumns(two, got, m, rows, cols, Options{}),
			"sis: HashColumns runs on one device: give a Context, a Group of one or nil (the CPU), not a Group of 2")
		require.ErrorContains(t, k.HashColumnMajor(two, got, cm, rows, Options{}), "sis: HashColumnMajor runs on one device")
		require.Equal(t, make([]koalabear.Element, cols*d), got, "refused, and dst left unchanged")
		_, err = k.NewResident(two, rows)
		require.ErrorContains(t, err, "sis: a Resident runs on one device")
	})
}
