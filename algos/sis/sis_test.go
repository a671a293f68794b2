package sis

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/field/koalabear"
	gsis "github.com/consensys/gnark-crypto/field/koalabear/sis"
	"github.com/stretchr/testify/require"

	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

// shapes are the keys the tests use: Vortex's (degree 2^9, 16-bit limbs)
// and others, each with the most elements it hashes.
var shapes = []struct{ logDeg, logBound, max int }{
	{9, 16, 300},
	{9, 16, 2048}, // Vortex's key for 2^11 rows
	{6, 8, 77},
	{1, 16, 5},
	{4, 16, 40},
	{11, 8, 600},
	{3, 16, 50}, // the smallest degree sis_hash8 takes
}

// randElements returns n random elements, edge values among them.
func randElements(rng *rand.Rand, n int) []koalabear.Element {
	v := make([]koalabear.Element, n)
	for i := range v {
		switch rng.IntN(8) {
		case 0:
			v[i].SetUint64(uint64(koalabear.Modulus().Uint64() - 1 - uint64(rng.IntN(3))))
		case 1:
			v[i].SetUint64(uint64(rng.IntN(3)))
		case 2:
			v[i].SetUint64(uint64(rng.Uint32N(1 << 16)))
		default:
			v[i].SetUint64(uint64(rng.Uint32N(0x7f000001)))
		}
	}
	return v
}

// TestSISHash holds the Go twin of the kernel to gnark-crypto's
// RSis.Hash at every row count up to the key's maximum.
func TestSISHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, s := range shapes {
		k, err := New(int64(s.logDeg), s.logDeg, s.logBound, s.max)
		require.NoError(t, err)
		want := make([]koalabear.Element, k.Degree())
		got := make([]koalabear.Element, k.Degree())
		for n := 0; n <= s.max; n += 1 + rng.IntN(9) {
			v := randElements(rng, n)
			require.NoError(t, k.RSis().Hash(v, want))
			require.NoError(t, k.Hash(got, v))
			require.Equal(t, want, got, "degree %d, %d-bit limbs, %d elements", k.Degree(), s.logBound, n)
		}
		require.ErrorContains(t, k.Hash(got, make([]koalabear.Element, k.MaxElements()+1)), "at most")
		require.ErrorContains(t, k.Hash(got[1:], nil), "a hash is")
	}
}

// TestSISFromRSis builds a Key from gnark-crypto's RSis.
func TestSISFromRSis(t *testing.T) {
	rs, err := gsis.NewRSis(7, 9, 16, 2048)
	require.NoError(t, err)
	k, err := FromRSis(rs)
	require.NoError(t, err)
	require.Equal(t, 2048, k.MaxElements())
	require.Equal(t, 512, k.Degree())
	v := randElements(rand.New(rand.NewPCG(1, 2)), 2048)
	want := make([]koalabear.Element, 512)
	got := make([]koalabear.Element, 512)
	require.NoError(t, rs.Hash(v, want))
	require.NoError(t, k.Hash(got, v))
	require.Equal(t, want, got)
	_, err = FromRSis(nil)
	require.Error(t, err)
}

// checkColumns holds HashColumns and HashColumnMajor on ctx (nil: the CPU
// path) to RSis.Hash of each column, for odd row and column counts.
func checkColumns(t *testing.T, ctx *wgpu.Context) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for _, s := range shapes {
		k, err := New(0, s.logDeg, s.logBound, s.max)
		require.NoError(t, err)
		d := k.Degree()
		for _, rows := range []int{1, 2, 3, s.max / 2, s.max/2 + 1, s.max - 1, s.max} {
			if rows < 1 {
				continue
			}
			for _, cols := range []int{1, 5, 67} {
				m := randElements(rng, rows*cols)
				want := make([]koalabear.Element, cols*d)
				col := make([]koalabear.Element, rows)
				cm := make([]koalabear.Element, rows*cols)
				for c := range cols {
					for r := range rows {
						col[r] = m[r*cols+c]
						cm[c*rows+r] = col[r]
					}
					require.NoError(t, k.RSis().Hash(col, want[c*d:(c+1)*d]))
				}
				got := make([]koalabear.Element, cols*d)
				require.NoError(t, k.HashColumns(ctx, got, m, rows, cols, Options{}))
				require.Equal(t, want, got, "degree %d, %d-bit limbs, %d × %d", d, s.logBound, rows, cols)
				clear(got)
				require.NoError(t, k.HashColumnMajor(ctx, got, cm, rows, Options{}))
				require.Equal(t, want, got, "column-major, degree %d, %d-bit limbs, %d × %d", d, s.logBound, rows, cols)
			}
		}
	}
}

func TestSISColumnsCPU(t *testing.T) { checkColumns(t, nil) }

func TestSISColumnsGPU(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) { checkColumns(t, ctx) })
}

// TestSISColumnsGPUSmall runs checkColumns under small binding limits: the
// larger matrices are gathered into columns and hashed in pieces.
func TestSISColumnsGPUSmall(t *testing.T) {
	gputest.ForEachSmall(t, func(t *testing.T, ctx *wgpu.Context) { checkColumns(t, ctx) })
}

// TestSISResident hashes columns in place on the device through
// Resident.Dispatch: a row-major matrix (row stride the column count) and
// its column-major copy (column stride the row count).
func TestSISResident(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	k, err := New(0, 9, 16, 64)
	require.NoError(t, err)
	const rows, cols = 37, 13
	m := randElements(rng, rows*cols)
	cm := make([]koalabear.Element, rows*cols)
	want := make([]koalabear.Element, cols*k.Degree())
	col := make([]koalabear.Element, rows)
	for c := range cols {
		for r := range rows {
			col[r] = m[r*cols+c]
			cm[c*rows+r] = col[r]
		}
		require.NoError(t, k.RSis().Hash(col, want[c*k.Degree():(c+1)*k.Degree()]))
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		r, err := k.NewResident(ctx, rows)
		require.NoError(t, err)
		defer r.Release()
		out, err := ctx.NewBuffer("hashes", uint64(4*len(want)))
		require.NoError(t, err)
		defer out.Release()
		for _, c := range []struct {
			data                 []koalabear.Element
			rowStride, colStride int
		}{{m, cols, 1}, {cm, 1, rows}} {
			in, err := ctx.NewBuffer("matrix", uint64(4*len(c.data)))
			require.NoError(t, err)
			defer in.Release()
			require.NoError(t, ctx.Upload(in, 0, wgpu.Bytes(c.data)))
			d, err := r.Dispatch(wgpu.Bind(in), wgpu.Bind(out), cols, c.rowStride, c.colStride)
			require.NoError(t, err)
			_, err = ctx.Run(d)
			require.NoError(t, err)
			got := make([]koalabear.Element, len(want))
			require.NoError(t, ctx.Download(wgpu.Bytes(got), out, 0))
			require.Equal(t, want, got, "strides %d, %d", c.rowStride, c.colStride)
		}
		_, err = r.Dispatch(wgpu.Bind(out), wgpu.Bind(out), 1<<20, 1<<12, 1<<12)
		require.ErrorContains(t, err, "split it")
	})
	_, err = k.NewResident(nil, 65)
	require.ErrorContains(t, err, "1 to 64")
}

// TestSISBadInput checks that bad shapes and elements get errors naming
// them, and that nothing is written.
func TestSISBadInput(t *testing.T) {
	_, err := New(0, 12, 16, 10)
	require.ErrorContains(t, err, "logTwoDegree 12")
	_, err = New(0, 9, 12, 10)
	require.ErrorContains(t, err, "logTwoBound 12")
	_, err = New(0, 9, 16, 0)
	require.ErrorContains(t, err, "maxElements 0")
	k, err := New(0, 4, 16, 40)
	require.NoError(t, err)
	dst := make([]koalabear.Element, 3*16)
	require.ErrorContains(t, k.HashColumns(nil, dst, make([]koalabear.Element, 41*3), 41, 3, Options{}), "at most 40")
	require.ErrorContains(t, k.HashColumns(nil, dst, make([]koalabear.Element, 10), 4, 3, Options{}), "is 12 elements, given 10")
	require.ErrorContains(t, k.HashColumns(nil, dst[1:], make([]koalabear.Element, 12), 4, 3, Options{}), "room for 47")
	require.ErrorContains(t, k.HashColumnMajor(nil, dst, make([]koalabear.Element, 13), 4, Options{}), "not columns of 4 rows")
	m := make([]koalabear.Element, 12)
	m[7][0] = 0x7f000001
	require.ErrorContains(t, k.HashColumns(nil, dst, m, 4, 3, Options{}), "element (2, 1) is 2130706433")
	require.ErrorContains(t, k.HashColumnMajor(nil, dst, m, 4, Options{}), "element (3, 1) is 2130706433")
	for _, x := range dst {
		require.True(t, x.IsZero())
	}
}
