package merkle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/poseidon2"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// randomMatrix31 returns a seeded rows × cols matrix of hash's field, the
// edges (0 and p-1) over-represented.
func randomMatrix31(rows, cols int, hash merkle.RowHash[uint32], seed uint64) merkle.Matrix[uint32] {
	r := rand.New(rand.NewPCG(seed, uint64(rows*cols)))
	data := make([]uint32, rows*cols)
	for i := range data {
		switch r.IntN(8) {
		case 0:
			data[i] = hash.Modulus() - 1
		case 1:
			data[i] = r.Uint32N(4)
		default:
			data[i] = r.Uint32N(hash.Modulus())
		}
	}
	return merkle.Matrix[uint32]{Rows: rows, Cols: cols, Data: data}
}

// requireSameTree fails unless got has want's leaves, nodes and root, and
// the same proof of a few leaves.
func requireSameTree(t *testing.T, want, got *merkle.Tree, what string) {
	t.Helper()
	requireLeaves(t, want.Leaves(), got, what)
	requireNodes(t, want.Nodes(), got, what)
	require.Equal(t, want.Root(), got.Root(), what)
	n := len(want.Leaves())
	for _, i := range []int{0, n / 2, n - 1} {
		wp, err := want.Proof(i)
		require.NoError(t, err, what)
		gp, err := got.Proof(i)
		require.NoError(t, err, what)
		require.Equal(t, wp, gp, "%s: proof of leaf %d", what, i)
	}
}

// goldilocksShapes are the several-matrix cases of the On tests: heights
// of odd and even exponents, a height shared by two matrices, matrices
// shorter than the ranges are many (merged into the top levels on the
// first member) and one a row high (merged into the root).
var goldilocksShapes = [][][2]int{
	{{8, 3}},
	{{32, 9}, {32, 4}, {8, 1}, {2, 5}, {1, 3}},
	{{4, 2}, {128, 1}, {16, 7}, {128, 3}},
}

// TestCommitOn commits on Groups of two, three and seven devices (members
// of different limits, split even where Group.Fit would not) with
// Goldilocks Poseidon2 and Rescue and BabyBear Poseidon2, one matrix of
// odd widths at heights of odd and even exponents and several matrices of
// different heights: leaves, nodes, root and proofs equal the one-device
// commitment's.
func TestCommitOn(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	bb := poseidon2.BabyBearMerkle
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		ctx := g.Contexts()[0]
		for _, hash := range []merkle.RowHash[uint64]{poseidon2.MerkleMerge{}, rescue.MerkleMerge{}} {
			for _, s := range [][2]int{{2, 1}, {8, 13}, {64, 9}} {
				if hash.Name() == "rescue" && s[0] > 8 {
					continue // the software adapters' Rescue is slow; Poseidon2 covers the splits
				}
				m := randomMatrix(s[0], s[1], seed+uint64(s[0]))
				what := fmt.Sprintf("%s %dx%d", hash.Name(), s[0], s[1])
				want, err := merkle.CommitMatrix(ctx, m, hash, merkle.Options{})
				require.NoError(t, err, what)
				var tm wgpu.Timing
				got, err := merkle.CommitMatrix(g, m, hash, merkle.Options{Timing: &tm})
				require.NoError(t, err, what)
				requireSameTree(t, want, got, what)
				require.NotZero(t, tm.Wall, what)
			}
		}
		for k, shapes := range goldilocksShapes {
			ms := randomMatrices(shapes, seed+uint64(k))
			what := fmt.Sprintf("poseidon2 matrices %v", shapes)
			want, err := merkle.CommitMatrices(ctx, ms, poseidon2.MerkleMerge{}, merkle.Options{})
			require.NoError(t, err, what)
			got, err := merkle.CommitMatrices(g, ms, poseidon2.MerkleMerge{}, merkle.Options{})
			require.NoError(t, err, what)
			requireSameTree(t, want, got, what)
		}
		for _, s := range [][2]int{{2, 7}, {32, 17}, {128, 16}} {
			m := randomMatrix31(s[0], s[1], bb, seed+uint64(s[1]))
			what := fmt.Sprintf("babybear %dx%d", s[0], s[1])
			want, err := merkle.CommitMatrix(ctx, m, bb, merkle.Options{})
			require.NoError(t, err, what)
			got, err := merkle.CommitMatrix(g, m, bb, merkle.Options{})
			require.NoError(t, err, what)
			requireSameTree(t, want, got, what)
		}
		ms := []merkle.Matrix[uint32]{randomMatrix31(64, 9, bb, seed), randomMatrix31(2, 3, bb, seed+1), randomMatrix31(16, 8, bb, seed+2), randomMatrix31(64, 1, bb, seed+3)}
		want, err := merkle.CommitMatrices(ctx, ms, bb, merkle.Options{})
		require.NoError(t, err)
		got, err := merkle.CommitMatrices(g, ms, bb, merkle.Options{})
		require.NoError(t, err)
		requireSameTree(t, want, got, "babybear matrices")
		// Elements out of the field, found on their way up to a member
		// (the last range's), named as the one-device forms name them.
		bad := randomMatrix(64, 9, seed)
		bad.Data[61*9+4] = rescue.P + 1
		_, err = merkle.CommitMatrix(g, bad, poseidon2.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "matrix element 553 (row 61, column 4) is 18446744069414584322, not a Goldilocks field element")
		_, err = merkle.CommitMatrices(g, []merkle.Matrix[uint64]{randomMatrix(64, 2, seed), bad}, poseidon2.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "matrix 1 element 553 (row 61, column 4)")
		ms[0].Data[7] = bb.Modulus()
		_, err = merkle.CommitMatrices(g, ms, bb, merkle.Options{})
		require.ErrorContains(t, err, "matrix 0 element 7 (row 0, column 7)")
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
}

// TestCommitOnLarge commits 4096 and 2^15 leaves with mix rows on Groups
// of two, three and seven devices, the odd members' subtrees 2048 leaves
// at most (SmallLimits): ranges built a subtree at a time, matrices
// injected inside the ranges' subtrees, at their roots and above them;
// against the reference.
func TestCommitOnLarge(t *testing.T) {
	ms := randomMatrices([][2]int{{4096, 5}, {2048, 3}, {512, 1}, {8, 7}, {4, 2}, {1, 9}}, 11)
	leaves, nodes := matricesReference(ms, mixRows{})
	// Ranges of 2^14 leaves on two members: their wide levels read back
	// straight into place, a download each.
	wide := randomMatrix(1<<15, 2, 12)
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		got, err := merkle.CommitMatrices(g, ms, mixRows{}, merkle.Options{})
		require.NoError(t, err)
		requireLeaves(t, leaves, got, "matrices")
		requireNodes(t, nodes, got, "matrices")
		for _, m := range []merkle.Matrix[uint64]{ms[0], wide} {
			what := fmt.Sprintf("one matrix of %d rows", m.Rows)
			one, err := merkle.CommitMatrix(g, m, mixRows{}, merkle.Options{})
			require.NoError(t, err, what)
			l, n := matrixReference(m, mixRows{})
			requireLeaves(t, l, one, what)
			requireNodes(t, n, one, what)
		}
	})
}

// TestCommitOnCPUMembers commits on Groups with CPU members (nil), beside
// a GPU or alone: the ranges of the CPU members and, where the first
// member is one, the top levels are built on the host, the same tree.
func TestCommitOnCPUMembers(t *testing.T) {
	ms := randomMatrices([][2]int{{256, 5}, {64, 3}, {2, 2}, {1, 4}}, 5)
	leaves, nodes := matricesReference(ms, mixRows{})
	groups := map[string][]*wgpu.Context{"cpu+cpu": {nil, nil}}
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		groups[b+"+cpu"] = []*wgpu.Context{ctx, nil}
		groups["cpu+"+b] = []*wgpu.Context{nil, ctx}
	}
	for name, members := range groups {
		g, err := sched.NewGroup(members...)
		require.NoError(t, err)
		got, err := merkle.CommitMatrices(g.SplitAll(), ms, mixRows{}, merkle.Options{})
		require.NoError(t, err, name)
		requireLeaves(t, leaves, got, name)
		requireNodes(t, nodes, got, name)
	}
}

// TestCommitOnSmallOnOneDevice commits a matrix too small to pay for a
// second device on a Group whose second member is closed: it is built on
// the first alone (Group.Fit) and equals CommitMatrix's; the same Group
// told to split everything fails on the closed member, so the first
// result was no accident. A matrix large enough for both is split, and
// fails there too.
func TestCommitOnSmallOnOneDevice(t *testing.T) {
	for _, b := range gputest.Backends() {
		closed, err := wgpu.Open(gputest.Options(t, b))
		require.NoError(t, err)
		require.NoError(t, closed.Close())
		ctx := gputest.Context(t, b)
		g, err := sched.NewGroup(ctx, closed)
		require.NoError(t, err)
		m := randomMatrix(1<<10, 16, 3) // 3·2^10 permutations: far below two members' 2^16 each
		want, err := merkle.CommitMatrix(ctx, m, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		got, err := merkle.CommitMatrix(g, m, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		requireSameTree(t, want, got, b)
		ms := []merkle.Matrix[uint64]{m, randomMatrix(4, 3, 4)}
		_, err = merkle.CommitMatrices(g, ms, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		_, err = merkle.CommitMatrix(g.SplitAll(), m, mixRows{}, merkle.Options{})
		require.Error(t, err, "%s: a closed member built a range", b)
		// 2^14 rows of 56 elements: 8·2^14 permutations, 2^16 for each of
		// two; but the closed member's upload rate cannot be measured, so
		// no split is predicted faster, and the first builds it alone.
		big := merkle.Matrix[uint64]{Rows: 1 << 14, Cols: 56, Data: make([]uint64, 56<<14)}
		want, err = merkle.CommitMatrix(ctx, big, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		got, err = merkle.CommitMatrix(g, big, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		requireSameTree(t, want, got, b)
	}
}

// TestCommitOnDecided commits matrices worth two members on a Group of
// one adapter twice that does not split all (the decision measures the
// upload rates and predicts): whichever it chooses, the tree is
// CommitMatrix's.
func TestCommitOnDecided(t *testing.T) {
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		g, err := sched.NewGroup(ctx, ctx)
		require.NoError(t, err)
		m := randomMatrix(1<<14, 56, 9)
		want, err := merkle.CommitMatrix(ctx, m, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		got, err := merkle.CommitMatrix(g, m, mixRows{}, merkle.Options{})
		require.NoError(t, err, b)
		requireSameTree(t, want, got, b)
	}
}

// TestCommitOnBadInput: on a Group that splits, the commitments refuse
// what they refuse on one device, with their errors (a nil *Group is the
// CPU, and commits as the Group does): a nil hash, an element out of the field, a height that is not a power of two,
// matrices of no rows.
func TestCommitOnBadInput(t *testing.T) {
	g, err := sched.NewGroup(nil, nil)
	require.NoError(t, err)
	g = g.SplitAll()
	m := randomMatrix(16, 3, 1)
	var none *sched.Group
	cpu, err := merkle.CommitMatrix(none, m, mixRows{}, merkle.Options{})
	require.NoError(t, err)
	split, err := merkle.CommitMatrix(g, m, mixRows{}, merkle.Options{})
	require.NoError(t, err)
	require.Equal(t, cpu.Nodes(), split.Nodes())
	_, err = merkle.CommitMatrix(g, m, nil, merkle.Options{})
	require.Error(t, err)
	_, err = merkle.CommitMatrices[uint64](g, nil, nil, merkle.Options{})
	require.Error(t, err)
	bad := randomMatrix(16, 3, 1)
	bad.Data[3*9+2] = rescue.P
	_, err = merkle.CommitMatrix(g, bad, mixRows{}, merkle.Options{})
	require.ErrorContains(t, err, "row 9, column 2")
	_, err = merkle.CommitMatrices(g, []merkle.Matrix[uint64]{m, bad}, mixRows{}, merkle.Options{})
	require.ErrorContains(t, err, "matrix 1 element")
	_, err = merkle.CommitMatrix(g, merkle.Matrix[uint64]{Rows: 12, Cols: 1, Data: make([]uint64, 12)}, mixRows{}, merkle.Options{})
	require.ErrorContains(t, err, "power of two")
	_, err = merkle.CommitMatrices(g, nil, mixRows{}, merkle.Options{})
	require.ErrorContains(t, err, "no matrices")
	bb := poseidon2.BabyBearMerkle
	b31 := randomMatrix31(8, 2, bb, 1)
	b31.Data[5] = bb.Modulus()
	_, err = merkle.CommitMatrix(g, b31, bb, merkle.Options{})
	require.ErrorContains(t, err, "row 2, column 1")
}
