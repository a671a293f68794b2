package merkle

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/split"
	"github.com/wgcompute/wgcompute/wgpu"
)

// What the external tests force: the variants internal/base/impl registers
// (variants.go), by their values.

type Approach = approach

const (
	LevelPerDispatch = levelPerDispatch
	WorkgroupLevels  = workgroupLevels
	Subtrees         = subtrees
)

var (
	Approaches    = approaches
	ParseApproach = parseApproach
)

// WithApproach returns o building the levels as a says.
func (o Options) WithApproach(a Approach) Options { o.approach = a; return o }

// WithPassPerLevel returns o with a compute pass per level.
func (o Options) WithPassPerLevel() Options { o.passPerLevel = true; return o }

// WithDeviceTop returns o building every level on the device.
func (o Options) WithDeviceTop() Options { o.deviceTop = true; return o }

// Approach returns o's approach (0: the default).
func (o Options) Approach() Approach { return o.approach }

// PassPerLevel reports whether o has a compute pass per level.
func (o Options) PassPerLevel() bool { return o.passPerLevel }

// HostOptions returns options with HostWidth w, or for w = -1 every
// level on the device (the "merkle-top" variant "device").
func HostOptions(w int) Options {
	if w == -1 {
		return Options{deviceTop: true}
	}
	return Options{HostWidth: w}
}

// The optional methods of a Hash, as interfaces the external tests assert
// (hash packages implement them without importing this package).
type (
	AnyDigest                 = anyDigester
	DigestConverter           = digestConverter
	HostTop                   = hostTopper
	LevelMerge                = levelMerger
	Tuning                    = tuner
	RowsHash[E field.Element] = rowsHasher[E]
)

// Subtree rebuilds subtree s of a capped tree from its leaves, s·2^k up to
// (s+1)·2^k or the end for k = log2(CapLeaves()), on tg (nil: the CPU)
// with opts (less CapHeight): the whole tree of those leaves, whose root
// is node s of the cap, as a caller rebuilds it with Build of those
// leaves.
func (t *Tree) Subtree(tg wgpu.Target, s int, opts Options) (*Tree, error) {
	if t.capped == nil {
		return nil, fmt.Errorf("merkle: subtree %d: the tree keeps every node (it was built without Options.CapHeight): read them with Nodes", s)
	}
	if count := newLayout(len(t.leaves)).width(t.capped.level); s < 0 || s >= count {
		return nil, fmt.Errorf("merkle: subtree %d: the cap has subtrees 0..%d", s, count-1)
	}
	opts.CapHeight = 0
	opts.Committer = nil
	return Build(tg, t.subtreeLeaves(s), t.hash, opts)
}

// The tree's size rules and the digest parser, as the tests check them.
var (
	CheckSize = checkSize
	NodeCount = nodeCount
)

// ParseDigest decodes 64 hex digits into a digest, as proofs' JSON does.
func ParseDigest(s string) ([32]byte, error) {
	d, err := parseDigest(s)
	if err != nil {
		return d, fmt.Errorf("merkle: %w", err)
	}
	return d, nil
}

// The one-hash builder a Committer keeps, which the tests also drive
// alone.
type Builder = builder

var NewBuilder = newBuilder

// The ranges' roots and their combination as rootOn builds them, with the
// checks the command's range records get.
var (
	RangeRoot = rangeRoot
	Combine   = combine
)

// Range is the split the ranges' roots compose over.
type Range = split.Range

// MatrixLeaves is the plain-Go reference of a matrix commitment's
// leaves: leaf r is hash.HashRow(m.Row(r)), on all cores. m must pass
// Check. CommitMatrix on the CPU gives the same leaves.
func MatrixLeaves[E field.Element](m Matrix[E], hash RowHash[E]) ([][32]byte, error) {
	if hash == nil {
		return nil, errNoHash
	}
	return matrixLeaves(m, rowsFor(hash))
}

func matrixLeaves[E field.Element](m Matrix[E], rows rowsOf[E]) ([][32]byte, error) {
	if err := checkMat(m, rows.field, true); err != nil {
		return nil, err
	}
	leaves := make([][32]byte, m.Rows)
	matrixLeavesCPU(leaves, m, rows)
	return leaves, nil
}

// RecordLeaves is the plain-Go reference of CommitRecords' leaves: leaf i
// is hash.HashRecord of record i, the size bytes at i*size, on all cores,
// as CommitRecords on the CPU gives them.
func RecordLeaves(records []byte, size int, hash RecordHash) ([][32]byte, error) {
	if hash == nil {
		return nil, errNoHash
	}
	n, err := checkRecords(records, size)
	if err != nil {
		return nil, err
	}
	leaves := make([][32]byte, n)
	recordLeavesCPU(leaves, records, size, hash)
	return leaves, nil
}

// Check returns an error unless m is a matrix a tree of hash commits to:
// Cols at least 1, Rows a tree size (at least 1), len(Data) = Rows*Cols,
// and every element below hash's Modulus (the error names the first that
// is not, by index, row and column).
func (m Matrix[E]) Check(hash RowHash[E]) error {
	if hash == nil {
		return errNoHash
	}
	return checkMat(m, fieldFrom(hash), true)
}

// CapLeaves returns the number of leaves under each node of the cap of a
// tree built with Options.CapHeight, 2^k for the cap's level k (the last
// subtree may hold fewer), or 0 for a tree that keeps every node. The cap
// is the last ceil(Len()/CapLeaves()) nodes of Nodes().
func (t *Tree) CapLeaves() int {
	if t.capped == nil {
		return 0
	}
	return 1 << t.capped.level
}

// Hash returns the hash the tree was built with (a mixed tree's top
// level's).
func (t *Tree) Hash() Hash { return t.hash }

// Len returns the number of leaves.
func (t *Tree) Len() int { return len(t.leaves) }
