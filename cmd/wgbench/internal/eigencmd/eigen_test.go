package eigencmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// runEigenJSON runs 'wgbench eigen args... --json' and decodes its output.
func runEigenJSON(t *testing.T, args ...string) eigenJSON {
	t.Helper()
	stdout, _, err := wgbench(t, append(append([]string{"eigen"}, args...), "--json")...)
	require.NoError(t, err, "%q", args)
	var r eigenJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	return r
}

func writeMatrix(t *testing.T, path string, m []float32) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, wgpu.Bytes(m), 0o644))
	return path
}

func TestEigenHilbert(t *testing.T) {
	for _, backend := range append(gputest.Backends(), "cpu") {
		r := runEigenJSON(t, "--hilbert", "128", "--backend", backend)
		require.True(t, r.Converged, backend)
		require.Equal(t, 9, r.Iterations, backend)
		require.InDelta(t, 2.217190, r.Eigenvalue, 1e-5, backend)
		require.Len(t, r.Eigenvector, 128, backend)
		require.Equal(t, 1.0, r.Eigenvector[0], "%s: the largest component is scaled to 1", backend)
	}
}

// TestEigenUnderflow: a matrix whose eigenvector's components are below
// float32's range (about 2.5e-68) gives 4e37 in every form on every
// backend; the GPU's implicit form printed NaN, and --json failed on it.
func TestEigenUnderflow(t *testing.T) {
	m := make([]float32, 16)
	for i := range m {
		m[i] = 1e-30
		if i < 4 {
			m[i] = 4e37
		}
	}
	in := writeMatrix(t, filepath.Join(t.TempDir(), "m.bin"), m)
	for _, backend := range []string{gputest.Backends()[0], "cpu"} {
		for _, form := range [][]string{nil, {"--explicit"}} {
			r := runEigenJSON(t, append([]string{"--in", in, "--n", "4", "--backend", backend}, form...)...)
			require.True(t, r.Converged, "%s %q", backend, form)
			require.InEpsilon(t, 4e37, r.Eigenvalue, 1e-6, "%s %q", backend, form)
			require.Equal(t, []float64{1, 0, 0, 0}, r.Eigenvector, "%s %q", backend, form)
		}
	}
	for _, r := range []eigen.Result{{Value: math.NaN()}, {Value: 1, Spread: math.Inf(1)}, {Value: 1, Vector: []float64{1, math.NaN()}}} {
		require.ErrorContains(t, finiteResult(r), "not a number: nothing printed")
	}
	require.NoError(t, finiteResult(eigen.Result{Value: 1, Vector: []float64{1, 0}}))
}

func TestEigenFile(t *testing.T) {
	dir := t.TempDir()
	in := writeMatrix(t, filepath.Join(dir, "m.bin"), []float32{1, 1, 2, 2, 1, 3, 2, 3, 5})
	for _, backend := range []string{gputest.Backends()[0], "cpu"} {
		r := runEigenJSON(t, "--in", in, "--n", "3", "--backend", backend)
		require.True(t, r.Converged)
		require.InDelta(t, 7.531, r.Eigenvalue, 1e-3, backend)
		// A·v = λ·v for the 3×3 above, within the stop criterion.
		a := [3][3]float64{{1, 1, 2}, {2, 1, 3}, {2, 3, 5}}
		for i := range a {
			var av float64
			for j := range a[i] {
				av += a[i][j] * r.Eigenvector[j]
			}
			require.InDelta(t, r.Eigenvalue*r.Eigenvector[i], av, 1e-2, "%s: row %d of A·v", backend, i)
		}
	}

	// The text form names the eigenvalue, the iterations and the adapter.
	stdout, _, err := wgbench(t, "eigen", "--in", in, "--n", "3", "--backend", gputest.Backends()[0])
	require.NoError(t, err)
	require.Regexp(t, `(?m)^eigenvalue  7\.53\d*$`, stdout)
	require.Regexp(t, `(?m)^converged   true `, stdout)
	require.Contains(t, stdout, "("+gputest.Backends()[0]+")")
	require.Contains(t, stdout, "eigenvector (largest component 1) ")
}

func TestEigenRandomDeterministic(t *testing.T) {
	a := runEigenJSON(t, "--random", "100", "--seed", "5", "--backend", gputest.Backends()[0])
	b := runEigenJSON(t, "--random", "100", "--seed", "5", "--backend", gputest.Backends()[0])
	require.Equal(t, a, b, "the same seed must give the same result")
	c := runEigenJSON(t, "--random", "100", "--seed", "6", "--backend", gputest.Backends()[0])
	require.NotEqual(t, a.Eigenvalue, c.Eigenvalue, "another seed must give another matrix")

	want, err := eigen.Reference64(eigen.Random(100, 5), 100, eigen.Options{})
	require.NoError(t, err)
	require.Equal(t, want.Iterations, a.Iterations)
	require.InEpsilon(t, want.Value, a.Eigenvalue, 1e-4)
	cpu := runEigenJSON(t, "--random", "100", "--seed", "5", "--cpu")
	require.Equal(t, want.Value, cpu.Eigenvalue)
	require.Equal(t, want.Iterations, cpu.Iterations)
}

func TestEigenNotConverged(t *testing.T) {
	stdout, stderr, err := wgbench(t, "eigen", "--hilbert", "64", "--max-iter", "2", "--json", "--backend", gputest.Backends()[0])
	require.Equal(t, cli.ExitError{Code: 1}, err, "a run that does not converge exits 1")
	require.Empty(t, stderr)
	var r eigenJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), "the result is printed before exit 1")
	require.False(t, r.Converged)
	require.Equal(t, 2, r.Iterations)
}

func TestEigenBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeMatrix(t, filepath.Join(dir, "good.bin"), []float32{1, 2, 3, 4})
	short := writeMatrix(t, filepath.Join(dir, "short.bin"), []float32{1, 2, 3})
	zero := writeMatrix(t, filepath.Join(dir, "zero.bin"), []float32{1, 2, 0, 4})
	negative := writeMatrix(t, filepath.Join(dir, "negative.bin"), []float32{1, -2, 3, 4})
	nan := writeMatrix(t, filepath.Join(dir, "nan.bin"), []float32{1, 2, 3, float32(math.NaN())})
	inf := writeMatrix(t, filepath.Join(dir, "inf.bin"), []float32{float32(math.Inf(1)), 2, 3, 4})
	empty := writeMatrix(t, filepath.Join(dir, "empty.bin"), nil)
	odd := filepath.Join(dir, "odd.bin")
	require.NoError(t, os.WriteFile(odd, make([]byte, 17), 0o644))

	for _, backend := range []string{gputest.Backends()[0], "cpu"} {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"--in", short, "--n", "2"}, []string{"has 12 bytes", "2×2 float32 matrix has 16"}},
			{[]string{"--in", odd, "--n", "2"}, []string{"has 17 bytes", "has 16"}},
			{[]string{"--in", good, "--n", "3"}, []string{"has 16 bytes", "3×3 float32 matrix has 36"}},
			{[]string{"--in", zero, "--n", "2"}, []string{"row 1, column 0 is zero", "positive and finite"}},
			{[]string{"--in", negative, "--n", "2"}, []string{"row 0, column 1 is negative"}},
			{[]string{"--in", nan, "--n", "2"}, []string{"row 1, column 1 is NaN"}},
			{[]string{"--in", inf, "--n", "2"}, []string{"row 0, column 0 is infinite"}},
			{[]string{"--in", filepath.Join(dir, "missing.bin"), "--n", "2"}, []string{"missing.bin", "no such file"}},
			{[]string{"--in", good}, []string{"--in needs --n N"}},
			{[]string{"--in", good, "--n", "-2"}, []string{"--n -2", "1 to"}},
			// 2^32 squared overflows to 0: the empty file must not pass.
			{[]string{"--in", empty, "--n", "4294967296"}, []string{"--n 4294967296", "1 to 262144"}},
			{[]string{"--hilbert", "4294967296"}, []string{"--hilbert 4294967296", "1 to 262144"}},
			{[]string{"--hilbert", "-1"}, []string{"--hilbert -1"}},
			{[]string{"--random", "-5", "--seed", "1"}, []string{"--random -5"}},
			{[]string{"--random", "8"}, []string{"--random needs --seed"}},
			{[]string{"--hilbert", "4", "--random", "4", "--seed", "1"}, []string{"exactly one of"}},
			{[]string{"--in", good, "--n", "2", "--hilbert", "2"}, []string{"exactly one of"}},
			{nil, []string{"exactly one of"}},
			{[]string{"--hilbert", "4", "--eps", "-1"}, []string{"eps -1", "positive"}},
			{[]string{"--hilbert", "4", "--max-iter", "-1"}, []string{"max-iter -1"}},
			{[]string{"--hilbert", "4", "--n", "x"}, []string{`invalid argument "x"`}},
			{[]string{"--hilbert", "4", "extra"}, []string{"unknown command", "extra"}},
		} {
			requireInputError(t, append(append([]string{"eigen"}, tc.args...), "--backend", backend), tc.want...)
		}
	}
	_, _, err := wgbench(t, "eigen", "--hilbert", "4", "--variant", "v9", "--backend", gputest.Backends()[0])
	require.ErrorContains(t, err, "v9")
}

// TestEigenLargeFile reads a matrix of more than parallelRead bytes (every
// core reads a part) and gets the answer of the same matrix in memory; one
// byte more or less in the file is an error.
func TestEigenLargeFile(t *testing.T) {
	const n = 1500 // 9 MB
	m := eigen.Random(n, 3)
	in := writeMatrix(t, filepath.Join(t.TempDir(), "big.bin"), m)
	want, err := eigen.MaxEigen(nil, m, n, eigen.Options{})
	require.NoError(t, err)
	r := runEigenJSON(t, "--in", in, "--n", "1500", "--backend", "cpu")
	require.Equal(t, want.Value, r.Eigenvalue)
	require.Equal(t, want.Iterations, r.Iterations)
	_, _, err = wgbench(t, "eigen", "--in", in, "--n", "1499", "--backend", "cpu")
	require.ErrorContains(t, err, "has 9000000 bytes")
}
