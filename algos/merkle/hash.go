package merkle

import (
	"errors"
	"fmt"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Hash is the 2-to-1 merge a tree is built with, in Go and in WGSL. The
// packages of the hashes provide their own (blake3.MerkleMerge,
// rescue.MerkleMerge) without importing this package: any type with these
// methods is a Hash, so a new hash plugs in without a change here. A
// program lists the hashes it offers and matches them by Name.
//
// A Hash may have more methods, which the package asks for and uses where
// present: MerkleApproach and MerkleWorkgroupSize (the fastest build for
// it), MerkleHostWidth (the level at which a device hands the tree's top
// to the host: Options.HostWidth), AcceptsAnyDigest (every 32 bytes are a
// digest: leaves go unchecked), MergeMany (a whole level merged on the CPU
// at once), ConvertDigest and ConvertModule (a digest of the level below
// made one of this hash's, in a Schedule), and, for a RowHash,
// HashRowsMany (many rows hashed on the CPU at once).
type Hash interface {
	// Name names the hash in errors ("blake3").
	Name() string
	// Merge returns the parent of left and right: the plain-Go merge, the
	// oracle the kernels are tested against.
	Merge(left, right [32]byte) [32]byte
	// CheckDigest returns an error saying what is wrong with d and what
	// the hash accepts, if d is not one of its digests (for Rescue, four
	// little-endian field elements below p); nil for hashes that accept
	// every 32 bytes.
	CheckDigest(d [32]byte) error
	// MergeModule returns the WGSL module that defines
	//
	//	fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8>
	//
	// on digests as 8 little-endian words, with everything it needs (its
	// own includes) and no bindings or entry points; its identifiers must
	// not start with mk_ or MK_. A wgsl.Module of the hash's adapter file,
	// in its package's library, for example.
	MergeModule() wgpu.Module
}

// tuner is implemented by a Hash that knows which build is fastest for
// it; Build asks it unless a variant is forced (internal/base/impl's "merkle")
// or Options set the workgroup size. Its answers are basic types, so hash packages need not import
// merkle.
type tuner interface {
	// MerkleApproach returns the name of the fastest way to build the
	// levels of a tree of the given leaves ("level-per-dispatch",
	// "workgroup-levels" or "subtrees", the "merkle" variants of
	// internal/base/impl), or "" for merkle's default.
	MerkleApproach(leaves int) string
	// MerkleWorkgroupSize returns the fastest workgroup size for the
	// named approach, or 0 for merkle's default.
	MerkleWorkgroupSize(approach string) int
}

// hostTopper is implemented by a Hash whose merge is slow enough that the
// narrow top levels of a tree, too narrow to fill a GPU, are faster on the
// host's cores: each level on a device waits for one merge's latency,
// whatever its width, while the host's cores make a narrow level in a few
// merges' time. Build asks it when Options.HostWidth is 0.
type hostTopper interface {
	// MerkleHostWidth returns the width, a power of two, of the
	// narrowest level a device should build on a host of cores cores:
	// the levels narrower than it are merged on the host. 0 builds every
	// level on the device.
	MerkleHostWidth(cores int) int
}

// hostWidth returns the host width a builder runs with on cores cores:
// none where opts keep every level on the device (the "merkle-top"
// variant "device"), else opts' width (Options.HostWidth), else the
// hash's (hostTopper), else 0 (no host levels). It is the one place where it
// is chosen.
func hostWidth(hash Hash, opts Options, cores int) (int, error) {
	opt := opts.HostWidth
	switch {
	case opts.deviceTop:
		return 0, nil
	case opt == 0:
		h, ok := hash.(hostTopper)
		if !ok {
			return 0, nil
		}
		w := h.MerkleHostWidth(cores)
		if w != 0 && (w < 2 || !powerOfTwo(w)) {
			return 0, fmt.Errorf("merkle: %s's host width %d: a hash's MerkleHostWidth returns 0 or a power of two from 2", hash.Name(), w)
		}
		return w, nil
	case opt < 2 || !powerOfTwo(opt):
		return 0, fmt.Errorf("merkle: HostWidth %d: accepted are 0 (the hash's width) or a power of two from 2 (the narrowest level the device builds)", opt)
	}
	return opt, nil
}

var errNoHash = errors.New("merkle: no hash given: pass a Hash such as blake3.MerkleMerge{} or rescue.MerkleMerge{}")

// anyDigester is implemented by a Hash whose CheckDigest accepts every 32
// bytes (BLAKE3): the package then skips checking leaves, which would read
// them all for nothing, on every core while they are uploaded
// (bench/results/HISTORY.md, "The system path, second pass, and several
// devices", its Merkle entry).
type anyDigester interface {
	// AcceptsAnyDigest reports that CheckDigest returns nil for every d.
	AcceptsAnyDigest() bool
}

// checkLeaves returns an error naming the first leaf the hash does not
// accept.
func checkLeaves(hash Hash, leaves [][32]byte) error {
	if a, ok := hash.(anyDigester); ok && a.AcceptsAnyDigest() {
		return nil
	}
	defer wgpu.Span("merkle check leaves")(int64(len(leaves)) * DigestSize)
	if i := par.First(len(leaves), 1<<12, func(i int) bool { return hash.CheckDigest(leaves[i]) != nil }); i >= 0 {
		return fmt.Errorf("merkle: leaf %d: %w", i, hash.CheckDigest(leaves[i]))
	}
	return nil
}

// kernelModule is the module of the kernels over hash's merge with
// workgroup memory for wg invocations: the hash's module, then merkle.wgsl
// with its prelude. The hash's module may be any wgpu.Module (of the hash
// package's own shader library, or a text a hash from outside this
// repository builds itself), so the two are compiled as one text, one
// after the other.
func kernelModule(hash Hash, wg int) (wgpu.Module, error) {
	m := hash.MergeModule()
	if m == nil {
		return nil, fmt.Errorf("merkle: %s: MergeModule returned no module", hash.Name())
	}
	return joined{m, wgsl.Module{Library: shaders, Files: []string{"merkle.wgsl"}, Consts: []wgsl.Const{{Name: "MK_SH", Value: uint32(4 * wg)}}}}, nil
}

// joined is module a followed by module b.
type joined struct{ a, b wgpu.Module }

func (j joined) ID() string { return j.a.ID() + "+" + j.b.ID() }

// ForFeatures lets the hash's module use the device's optional features
// (wgpu.FeatureModule).
func (j joined) ForFeatures(features []string) (string, string, error) {
	aid, a, err := wgpu.ModuleFor(j.a, features)
	if err != nil {
		return "", "", err
	}
	bid, b, err := wgpu.ModuleFor(j.b, features)
	if err != nil {
		return "", "", err
	}
	return aid + "+" + bid, a + "\n" + b, nil
}

func (j joined) Source() (string, error) {
	a, err := j.a.Source()
	if err != nil {
		return "", err
	}
	b, err := j.b.Source()
	if err != nil {
		return "", err
	}
	return a + "\n" + b, nil
}
