package merkle

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Several matrices of different heights committed in one tree, in the
// shape of Plonky3's mixed-matrix commitment scheme (MerkleTreeMmcs): a
// prover commits to all of a round's matrices with one root, and one
// proof opens a row of each.
//
// The heights are powers of two; the tree has H leaves, H the tallest
// height. Leaf i is HashRow of row i of every matrix of height H, their
// rows concatenated in the order the matrices are given. At level j
// (width H>>j, level 0 the leaves), if some matrices are H>>j tall, node
// i is Merge(Merge(left, right), HashRow of row i of those matrices,
// concatenated); other nodes are Merge(left, right). Leaf i's proof is
// the tree's path of leaf i, and opens row i>>j of every matrix of height
// H>>j. The hash is Plonky3's shape with this package's hashes: with
// Rescue's hash_elements and merge roots are not Plonky3's; with
// poseidon2.BabyBearMerkle or KoalaBearMerkle (PaddingFreeSponge<_, 16,
// 8, 8> rows, TruncatedPermutation<_, 2, 8, 16> merges) they are.

// checkMatrices returns an error unless ms can be committed together:
// at least one matrix, each with a power-of-two height (1 or more) and
// 1 column or more, the tallest at least 2 high, every element of f
// (without elements, their count alone, as checkMat says). It returns the
// tallest height.
func checkMatrices[E field.Element](ms []Matrix[E], f fieldOf[E], elements bool) (int, error) {
	if len(ms) == 0 {
		return 0, errors.New("merkle: no matrices: commit to one or more")
	}
	tall := 0
	for k, m := range ms {
		// Not checkMat: a matrix here may be 1 row high, and errors name it by its place.
		if !powerOfTwo(m.Rows) {
			return 0, fmt.Errorf("merkle: matrix %d has %d rows: matrices committed together have power-of-two heights (1, 2, 4, ...)", k, m.Rows)
		}
		if m.Cols < 1 {
			return 0, fmt.Errorf("merkle: matrix %d has %d columns: a matrix has 1 column or more", k, m.Cols)
		}
		if err := checkData(m, f, fmt.Sprintf("matrix %d", k), elements); err != nil {
			return 0, err
		}
		tall = max(tall, m.Rows)
	}
	if err := checkPerfect(tall); err != nil {
		return 0, fmt.Errorf("merkle: the tallest matrix has %d rows: %w", tall, err)
	}
	return tall, nil
}

// byLevel returns, for each level j of a tree over matrices whose tallest
// has tall rows, the matrices H>>j tall with their rows concatenated in
// the given order (level 0: the leaves' rows). A height of one matrix
// alone is that matrix, uncopied.
func byLevel[E field.Element](ms []Matrix[E], tall int) map[int]Matrix[E] {
	groups := map[int][]Matrix[E]{}
	for _, m := range ms {
		j := bits.Len(uint(tall)) - bits.Len(uint(m.Rows))
		groups[j] = append(groups[j], m)
	}
	out := make(map[int]Matrix[E], len(groups))
	for j, g := range groups {
		if len(g) == 1 {
			out[j] = g[0]
			continue
		}
		cat := Matrix[E]{Rows: g[0].Rows, Form: g[0].Form}
		for _, m := range g {
			cat.Cols += m.Cols
		}
		cat.Data = make([]E, cat.Rows*cat.Cols)
		par.For(cat.Rows, max(1, 4096/cat.Cols), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := cat.Data[r*cat.Cols : r*cat.Cols]
				for _, m := range g {
					row = append(row, m.Row(r)...)
				}
			}
		})
		out[j] = cat
	}
	return out
}

// CommitMatrices commits to several matrices of power-of-two heights in
// one tree of hash, as the package says above Plonky3's scheme: on ctx's
// GPU, every row hashed on the device and merged into the levels there,
// or with a nil ctx on all CPU cores. The tree's leaves are the digests
// of the tallest matrices' rows; Tree.Proof(i) with MatricesOpening(ms,
// hash, i) is what VerifyMatrices checks. Over BabyBear or KoalaBear
// (poseidon2.BabyBearMerkle, KoalaBearMerkle) it is Plonky3's
// MerkleTreeMmcs. The matrices are of one Form, committed as CommitMatrix
// commits to one.
func CommitMatrices[E field.Element](t wgpu.Target, ms []Matrix[E], hash RowHash[E], opts Options) (*Tree, error) {
	if hash == nil {
		return nil, errNoHash
	}
	form, err := formOf(ms)
	if err != nil {
		return nil, err
	}
	rows, err := rowsIn(hash, form)
	if err != nil {
		return nil, err
	}
	if ctx, one := sched.Device(t); one || opts.Committer != nil {
		return commitOnce(ctx, hash, opts, func(c *Committer) (*Tree, error) { return commitMatrices(c, ms, rows) })
	}
	return commitOn(sched.GroupOf(t), ms, false, rows, opts)
}

// commitMatrices is CommitMatrices with c, whose schedule must be of one
// hash, rows'.
func commitMatrices[E field.Element](c *Committer, ms []Matrix[E], rows rowsOf[E]) (*Tree, error) {
	if len(c.sched) != 1 {
		return nil, fmt.Errorf("merkle: CommitMatrices builds trees of one hash, not the schedule %s", c.sched)
	}
	// On a device the elements are checked on their way up
	// (field.CheckedReader).
	tall, err := checkMatrices(ms, rows.field, c.ctx == nil)
	if err != nil {
		return nil, err
	}
	hs, err := c.leafLevels(rows.hash, tall)
	if err != nil {
		return nil, err
	}
	levels := byLevel(ms, tall)
	t := &Tree{hash: rows.hash, leaves: make([][32]byte, tall), nodes: make([][32]byte, tall)}
	var total wgpu.Timing
	if err := commitLevels(c, &total, t.leaves, t.nodes, hs, levels, rows, whole); err != nil {
		return nil, elementError(err, func() error { _, err := checkMatrices(ms, rows.field, true); return err })
	}
	c.report(total)
	return t, nil
}

// commitLevels builds the tree over checked matrices by level (byLevel:
// levels[0] the leaves' rows) into leaves, as many as levels[0] has rows,
// and nodes, where the tree is range at of the heap (whole: nodes is its
// own heap), with the level hashes hs, adding its timing to total: on the
// device, rows hashed into the leaf buffer and the shorter matrices' rows
// merged into their levels, or with a nil Context on all CPU cores.
// CommitMatrices builds its whole tree here, or, over a Group, each device its range.
func commitLevels[E field.Element](c *Committer, total *wgpu.Timing, leaves, nodes [][32]byte, hs []Hash, levels map[int]Matrix[E], rows rowsOf[E], at split.Range) error {
	if c.ctx == nil {
		start := time.Now()
		heap := nodes
		if at.Count > 1 {
			heap = make([][32]byte, len(leaves))
		}
		matrixLeavesCPU(leaves, levels[0], rows)
		mergeMatricesCPU(heap, leaves, levels, 0, rows)
		if at.Count > 1 {
			placeSubtree(nodes, heap, at.Index, at.Count)
		}
		*total = total.Add(wgpu.Timing{Wall: time.Since(start)})
		return nil
	}
	fill, err := matrixFill(c, levels[0], rows)
	if err != nil {
		return err
	}
	inj, err := injectionsAbove(c, levels, 0, rows)
	if err != nil {
		return err
	}
	return c.levels(total, nodes, leaves, fill, hs, nil, 0, inj, at)
}

// injectionsAbove returns the rowFills of the matrices by level whose
// rows are merged into the levels above base.
func injectionsAbove[E field.Element](c *Committer, levels map[int]Matrix[E], base int, rows rowsOf[E]) (injections, error) {
	inj := injections{}
	for j, m := range levels {
		if j <= base {
			continue
		}
		f, err := matrixFill(c, m, rows)
		if err != nil {
			return nil, err
		}
		inj[j] = f
	}
	return inj, nil
}

// mergeMatricesCPU fills nodes, the heap of the tree whose leaves are
// below (a power of two of them, at level base of the whole tree), merging
// into each level the rows of the matrices by level as tall as it is
// wide: the reference of CommitMatrices from base up.
func mergeMatricesCPU[E field.Element](nodes, below [][32]byte, levels map[int]Matrix[E], base int, rows rowsOf[E]) {
	if rows.form != field.Canonical {
		// Each matrix's values once, not a row's at every node.
		values := make(map[int]Matrix[E], len(levels))
		for k, m := range levels {
			v := make([]E, len(m.Data))
			rows.values(v, m.Data)
			m.Data, m.Form = v, field.Canonical
			values[k] = m
		}
		levels, rows.hashRow = values, rows.hashValues
	}
	hash := rows.hash
	many := manyOf(hash)
	newLayout(len(below)).mergeUp(nodes, below, 0, 64, func(j int) nodeMerge {
		m, inject := levels[base+j]
		return func(i int, left, right [32]byte) [32]byte {
			d := hash.Merge(left, right)
			if inject {
				d = hash.Merge(d, rows.hashRow(m.Row(i)))
			}
			return d
		}
	}, func(j int) levelMerger {
		if _, inject := levels[base+j]; inject {
			return nil
		}
		return manyAt(many, j)
	})
}

// MatricesOpening returns the rows that leaf i of CommitMatrices' tree
// over ms opens: for each matrix, in order, its row i>>j, j the level as
// wide as it is tall. The matrices are checked as CommitMatrices checks
// them, their elements against hash's field. The rows are values, as
// VerifyMatrices takes them and a proof carries them: for canonical
// matrices they alias the data; for Montgomery ones (MontyMatrix) they
// are the opened rows converted, so that what a prover opens verifies as
// it is.
func MatricesOpening[E field.Element](ms []Matrix[E], hash RowHash[E], i int) ([][]E, error) {
	if hash == nil {
		return nil, errNoHash
	}
	form, err := formOf(ms)
	if err != nil {
		return nil, err
	}
	in, err := rowsIn(hash, form)
	if err != nil {
		return nil, err
	}
	opened, err := matricesOpening(ms, fieldFrom(hash), i)
	if err != nil || form == field.Canonical {
		return opened, err
	}
	for k, row := range opened {
		v := make([]E, len(row))
		in.values(v, row)
		opened[k] = v
	}
	return opened, nil
}

func matricesOpening[E field.Element](ms []Matrix[E], f fieldOf[E], i int) ([][]E, error) {
	tall, err := checkMatrices(ms, f, true)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= tall {
		return nil, fmt.Errorf("merkle: opening of leaf %d: the tree has leaves 0..%d", i, tall-1)
	}
	rows := make([][]E, len(ms))
	for k, m := range ms {
		rows[k] = m.Row(i / (tall / m.Rows))
	}
	return rows, nil
}

// VerifyMatrices reports whether p proves that rows are the rows leaf
// p.Index opens (MatricesOpening) of matrices of the given heights
// committed together with hash under root: the heights powers of two, the
// tallest the proof's tree size, rows one of 1 or more canonical values below
// hash's Modulus per matrix, the leaf the hash of the tallest matrices'
// rows, and the path, merged level by level with the rows of the matrices
// as wide as each level, giving root.
func VerifyMatrices[E field.Element](hash RowHash[E], root [32]byte, heights []int, rows [][]E, p Proof) bool {
	return hash != nil && verifyMatrices(rowsFor(hash), root, heights, rows, p)
}

func verifyMatrices[E field.Element](rh rowsOf[E], root [32]byte, heights []int, rows [][]E, p Proof) bool {
	hash := rh.hash
	if len(heights) == 0 || len(heights) != len(rows) {
		return false
	}
	tall := 0
	for k, h := range heights {
		if !powerOfTwo(h) || !fieldRow(rows[k], rh.field) {
			return false
		}
		tall = max(tall, h)
	}
	if checkPerfect(tall) != nil || p.Leaves != tall || p.Root != root || len(p.Path) != bits.Len(uint(tall))-1 || p.Index < 0 || p.Index >= tall {
		return false
	}
	// The rows of each level's matrices, concatenated.
	cat := make([][]E, len(p.Path)+1)
	for k, h := range heights {
		j := bits.Len(uint(tall)) - bits.Len(uint(h))
		cat[j] = append(cat[j], rows[k]...)
	}
	if len(cat[0]) == 0 || rh.hashRow(cat[0]) != p.Leaf || hash.CheckDigest(root) != nil {
		return false
	}
	for _, s := range p.Path {
		if hash.CheckDigest(s) != nil {
			return false
		}
	}
	// As mergeMatricesCPU merges, but with the opened rows, not the matrices'.
	return walkPath(p.Leaf, pathNodes(tall, p.Index), p.Path, func(j int) nodeMerge {
		return func(_ int, left, right [32]byte) [32]byte {
			d := hash.Merge(left, right)
			if len(cat[j]) > 0 {
				d = hash.Merge(d, rh.hashRow(cat[j]))
			}
			return d
		}
	}) == root
}
