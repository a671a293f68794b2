// Package eigen finds the dominant eigenvalue and eigenvector of a positive
// square matrix by iterative similarity transformation, on the GPU and in
// plain Go.
//
// The method, for a positive N×N matrix A: start with M = A and v = ones,
// then repeat
//
//  1. s = the row sums of M;
//  2. m = max(s);
//  3. v *= s / m;
//  4. stop if every pair of cyclically adjacent row sums differs by less
//     than eps, or after MaxIter updates of M;
//  5. otherwise M = D⁻¹ M D with D = diag(s), that is M[r][c] *= s[c]/s[r].
//
// Each M is similar to A, and once its row sums are all equal to λ, M·1 = λ·1,
// so λ is A's dominant eigenvalue and v (the accumulated diagonal) its
// eigenvector. The eigenvalue reported is s[0] at the stop; the vector is
// scaled so that its largest component is 1; the iteration count is the
// number of updates of M.
//
// MaxEigen and Solver run the method on a GPU in float32, or, given a nil
// wgpu.Target (the CPU backend), as Reference32 on all cores. They run on
// one device: a Group of one is its member, and a Group of several is
// refused (see wgpu.Target). Reference64
// and Reference32 are the plain-Go references (float64 and float32
// arithmetic).
//
// The method is the power method (v after an update is A·v, scaled), and
// converges as slowly as it where A has an eigenvalue near -λ, as
// [[1e-3, 1], [1e3, 1e-3]] has. Every path therefore runs it again on
// A + σI, which has the same eigenvector and the eigenvalue λ + σ, where
// the run on A did not converge within MaxIter updates or ended with a
// number that is not finite (Result.Shift is then σ). Every number of a
// Result is finite: an accepted matrix that gave a number that is not
// finite on A + σI too is an error (ErrNotFinite), never a Result.
package eigen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/checked"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Defaults of Options.
const (
	DefaultEps     = 1e-3
	DefaultMaxIter = 1000
	// DefaultBatch is the default of Options.Batch: at most 16 rounds per
	// submission.
	DefaultBatch = 16
)

// Options tune the iteration and choose the GPU kernels. The zero value
// means the defaults; the CPU backend and the references read only Eps and
// MaxIter (and reject invalid values of the others all the same).
type Options struct {
	// Eps is the stop threshold: the iteration stops once every pair of
	// cyclically adjacent row sums differs by less than Eps (an absolute
	// difference, in the matrix's units). Zero means DefaultEps.
	Eps float64
	// MaxIter bounds the number of updates of M; reaching it without meeting
	// Eps returns Converged=false. Zero means DefaultMaxIter. A run that
	// does not converge is followed by one on A + σI (see the package
	// doc), itself bounded by MaxIter: such a call costs up to twice
	// MaxIter updates.
	MaxIter int

	// Variant picks the GPU's row-sum and max kernels; the zero value, Auto,
	// is the default.
	Variant Variant
	// Explicit transforms M in place on the GPU, as the articles do, fused
	// with the next round's row sums. The default (false) never writes M:
	// round k's row sums of V⁻¹AV are Σ_c A[r][c]·v[c] / v[r], which are the
	// same numbers (D⁻¹MD composed over the rounds is V⁻¹AV, the scalars m
	// cancelling) for half the memory traffic. Where v's components fall
	// below float32's range, and the implicit row sums with them are not
	// finite or do not converge, the Solver solves again in the explicit
	// form, whose answer is then the one returned.
	Explicit bool
	// Unfused, with Explicit, runs the transform as its own kernel before
	// the row sums, to measure what fusing saves.
	Unfused bool
	// Batch is the most rounds one GPU submission holds; the host reads the
	// stop flag back once per submission (a round's stop test is made by
	// the next round's kernels, and after a submission's last round by one
	// small kernel), and kernels of rounds after the stop return at once.
	// Zero means DefaultBatch. Whatever Batch is, a submission holds fewer
	// rounds when the rounds measured so far say it
	// would run past sched.SubmitTarget (250 ms), so that no GPU watchdog or
	// driver timeout is approached: a Solver sizes its first submission from a pessimistic
	// guess (see guessRoundTime), the others from the time its rounds took,
	// which it remembers for its later Solves.
	Batch int
	// Timing, when not nil, receives each call's timing summed over its
	// submissions (the wall time alone on the CPU backend).
	Timing *wgpu.Timing

	// target, when non-zero, replaces sched.SubmitTarget; set only by tests, to
	// force the split of the rounds into submissions.
	target time.Duration
	// unfolded runs each round's stop test in a kernel of one workgroup
	// after its row sums (finish), as the method ran before the test was
	// folded into the next round's row sums; set only by tests and
	// benchmarks, which hold the folded method to it bit for bit and
	// measure what folding saves.
	unfolded bool
}

// withDefaults fills in the defaults and checks every field: the one place
// the defaults are chosen.
func (o Options) withDefaults() (Options, error) {
	if o.Eps == 0 {
		o.Eps = DefaultEps
	}
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Batch == 0 {
		o.Batch = DefaultBatch
	}
	if o.target == 0 {
		o.target = sched.SubmitTarget
	}
	var err error
	switch o.Variant, err = o.Variant.resolve(); {
	case err != nil:
		return o, err
	case !(o.Eps > 0) || math.IsInf(o.Eps, 0):
		return o, fmt.Errorf("eigen: eps %v: must be a positive finite number", o.Eps)
	case o.MaxIter < 0 || o.MaxIter > math.MaxInt32:
		return o, fmt.Errorf("eigen: max-iter %d: must be 1 to %d", o.MaxIter, math.MaxInt32)
	case o.Batch < 0:
		return o, fmt.Errorf("eigen: batch %d: must be positive", o.Batch)
	case o.Unfused && !o.Explicit:
		return o, fmt.Errorf("eigen: unfused needs the explicit transform: the implicit one has no transform kernel to separate")
	}
	return o, nil
}

// report hands t to o.Timing when it is set.
func (o Options) report(t wgpu.Timing) {
	if o.Timing != nil {
		*o.Timing = t
	}
}

// Result is the dominant eigenpair found, and how the GPU got there.
type Result struct {
	// Value is the eigenvalue: row sum 0 of M at the stop.
	Value float64
	// Vector is the eigenvector, scaled so that its largest component is 1.
	Vector []float64
	// Iterations is the number of updates of M (similarity transforms);
	// the method ran Iterations+1 rounds of row sums.
	Iterations int
	// Converged says the stop criterion was met within MaxIter updates.
	Converged bool
	// Shift is σ > 0 when the answer is that of the method on A + σI, its
	// eigenvalue less σ (see the package doc): the run on A did not
	// converge or was not finite. σ is the power of two nearest the
	// geometric mean of A's smallest and largest row sums, which bound
	// the eigenvalue. Iterations, Converged and Spread are then the
	// shifted run's. Zero when the run on A answered.
	Shift float64
	// Spread is the largest difference of cyclically adjacent row sums at
	// the stop; below Eps when Converged.
	Spread float64
	// Submissions is the number of GPU submissions the rounds took, Blocks
	// the number of row blocks M was bound in (see Options.Batch and
	// CheckSize); both are zero on the CPU.
	Submissions, Blocks int
}

// ErrInput is wrapped by every error about the matrix given.
var ErrInput = errors.New("eigen: invalid matrix")

// MaxRowSum is the largest row sum Check accepts, 2^127: half of float32's
// largest finite value, so that the GPU's float32 row sums, whatever their
// rounding, stay finite (every row sum of every later M is at most A's
// largest; the eigenvalue is at most it too).
const MaxRowSum = 0x1p127

// Check returns an error unless m is an n×n row-major matrix of positive
// finite entries whose row sums are at most MaxRowSum. The error names the
// first offending row, in order: its first bad entry, or its sum.
func Check[F float32 | float64](m []F, n int) error {
	if n <= 0 {
		return errSize(n)
	}
	if entries, err := checked.Mul(n, n); err != nil || entries != len(m) {
		return fmt.Errorf("%w: %d entries for n = %d: an n×n matrix has n² entries", ErrInput, len(m), n)
	}
	r := par.First(n, max(1, 1<<14/n), func(r int) bool { return !rowOK(m[r*n : r*n+n]) })
	if r < 0 {
		return nil
	}
	return rowError(m, n, r)
}

// rowError is Check's error for row r, which rowOK rejected.
func rowError[F float32 | float64](m []F, n, r int) error {
	c, sum := scanRow(m[r*n : r*n+n])
	if c < 0 {
		return fmt.Errorf("%w: row %d sums to %.4g, over the largest row sum accepted, 2^127 ≈ %.4g (half of float32's largest value: the GPU adds in float32); scale the matrix down: the eigenvalue scales with it, the eigenvector does not change",
			ErrInput, r, sum, float64(MaxRowSum))
	}
	f := float64(m[r*n+c])
	what := "zero"
	switch {
	case math.IsNaN(f):
		what = "NaN"
	case math.IsInf(f, 0):
		what = "infinite"
	case f < 0:
		what = "negative"
	}
	return fmt.Errorf("%w: entry at row %d, column %d is %s (%v): every entry must be positive and finite", ErrInput, r, c, what, f)
}

// rowOK reports whether every entry of row is positive and finite and
// their sum, added left to right in float64 as scanRow adds them, is at
// most MaxRowSum. It adds in four lanes, which runs at memory speed rather
// than at one add's latency per entry, and adds left to right only when
// the lanes' sum is so near the bound that the order could decide.
func rowOK[F float32 | float64](row []F) bool {
	var s0, s1, s2, s3 float64
	ok := true
	i := 0
	for ; i+4 <= len(row); i += 4 {
		a, b, c, d := float64(row[i]), float64(row[i+1]), float64(row[i+2]), float64(row[i+3])
		// NaN fails every comparison, so !(x > 0) also rejects it.
		ok = ok && a > 0 && b > 0 && c > 0 && d > 0 && a <= math.MaxFloat64 && b <= math.MaxFloat64 && c <= math.MaxFloat64 && d <= math.MaxFloat64
		s0, s1, s2, s3 = s0+a, s1+b, s2+c, s3+d
	}
	for ; i < len(row); i++ {
		a := float64(row[i])
		ok = ok && a > 0 && a <= math.MaxFloat64
		s0 += a
	}
	if !ok {
		return false
	}
	sum := (s0 + s1) + (s2 + s3)
	if math.Abs(sum-MaxRowSum) <= MaxRowSum*0x1p-30 {
		_, exact := scanRow(row)
		return exact <= MaxRowSum
	}
	return sum <= MaxRowSum
}

// scanRow returns the column of row's first entry that is not positive and
// finite (-1 if none) and, when there is none, the row's sum in float64.
func scanRow[F float32 | float64](row []F) (int, float64) {
	var sum float64
	for c, x := range row {
		f := float64(x)
		if !(f > 0) || math.IsInf(f, 1) {
			return c, 0
		}
		sum += f
	}
	return -1, sum
}

func errSize(n int) error {
	return fmt.Errorf("%w: n = %d: the size must be at least 1", ErrInput, n)
}

// CheckSize returns an error unless an n×n matrix fits t, so that a
// caller can check a size before building a matrix of it: n must be at
// least 1, the matrix's 4·n² bytes addressable, and on a GPU they must fit
// one buffer, 64 rows at a time a storage binding (M is bound in blocks of
// whole rows; Result.Blocks says how many). The error names the limit and
// the bytes needed. MaxEigen and NewSolver call it first.
func CheckSize(t wgpu.Target, n int) error {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return fmt.Errorf("eigen: CheckSize %w", err)
	}
	if n <= 0 {
		return errSize(n)
	}
	// Eight bytes an entry: the float64 reference's copy.
	if _, err := checked.Mul(n, n, 8); err != nil {
		return fmt.Errorf("eigen: n = %d: the matrix's n² entries overflow this machine's address space: %w bytes in float64", n, err)
	}
	if ctx == nil {
		return nil
	}
	bytes, lim := uint64(n)*uint64(n)*4, ctx.Limits()
	if bytes > lim.MaxBufferSize {
		return fmt.Errorf("eigen: n = %d: the matrix takes %d bytes (%.1f GiB), over the device's largest buffer of %d bytes (%.1f GiB): n ≤ %d on this device",
			n, bytes, float64(bytes)/(1<<30), lim.MaxBufferSize, float64(lim.MaxBufferSize)/(1<<30), int(math.Sqrt(float64(lim.MaxBufferSize/4))))
	}
	_, err = rowBlocks(n, lim)
	return err
}

// MaxEigen returns the dominant eigenpair of the n×n row-major positive
// matrix m, computed on t's GPU in float32, or by Reference32 when t is
// nil (the CPU backend: the twin of the GPU's float32 arithmetic, so that
// both stop alike; Reference64 is the more precise oracle). An invalid
// matrix is an error; not converging within opts.MaxIter updates, on A
// and on A + σI, is not (Result.Converged is false).
func MaxEigen(t wgpu.Target, m []float32, n int, opts Options) (Result, error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return Result{}, fmt.Errorf("eigen: MaxEigen %w", err)
	}
	if entries, err := checked.Mul(n, n); n > 0 && (err != nil || len(m) != entries) {
		return Result{}, Check(m, n) // the shape, before allocating
	}
	s, err := NewSolver(ctx, n, opts)
	if err != nil {
		return Result{}, err
	}
	defer s.Release()
	if err := s.load(m, false); err != nil {
		return Result{}, err
	}
	return s.Solve()
}

// Hilbert returns the n×n Hilbert matrix, H[r][c] = 1/(r+c+1), rounded to
// float32.
func Hilbert(n int) []float32 {
	m := make([]float32, n*n)
	// On all cores: a large matrix takes one core as long as the GPU's
	// set-up (bench/results/HISTORY.md, "Figures moved from code comments").
	par.For(n, max(1, 1<<14/max(n, 1)), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for c := 0; c < n; c++ {
				m[r*n+c] = float32(1 / float64(r+c+1))
			}
		}
	})
	return m
}

// Random returns an n×n matrix of entries drawn uniformly from (0, 1]/n,
// from a PCG generator seeded with seed. Scaling by 1/n keeps the dominant
// eigenvalue near 1/2 at every n, so that an absolute Eps means the same
// relative precision at every size.
func Random(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	m := make([]float32, n*n)
	scale := 1 / float64(n)
	for i := range m {
		m[i] = float32((1 - rng.Float64()) * scale) // 1 - [0,1) is (0,1]
	}
	return m
}

// normalise returns v scaled so that its largest component is 1.
func normalise[F float32 | float64](v []F) []float64 {
	out := make([]float64, len(v))
	var top float64
	for _, x := range v {
		top = math.Max(top, float64(x))
	}
	for i, x := range v {
		out[i] = float64(x) / top
	}
	return out
}
