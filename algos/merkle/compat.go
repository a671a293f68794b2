package merkle

// This file keeps the names cmd/wgbench used before the hash registry. It
// is the one file of the package that imports hash packages, and it goes
// when the CLI owns its list of hashes and times builds with a Builder.

import (
	"fmt"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Hash is a Hasher behind a pointer, as the CLI compares hashes.
//
// Deprecated: use a Hasher value, such as blake3.MerkleMerge{}.
type Hash struct{ Hasher }

// String returns the hash's name.
//
// Deprecated: use Name.
func (h *Hash) String() string { return h.Name() }

// MerkleApproach forwards to the wrapped Hasher's Tuning.
//
// Deprecated: see Hash.
func (h *Hash) MerkleApproach(leaves int) string {
	if t, ok := h.Hasher.(Tuning); ok {
		return t.MerkleApproach(leaves)
	}
	return ""
}

// MerkleWorkgroupSize forwards to the wrapped Hasher's Tuning.
//
// Deprecated: see Hash.
func (h *Hash) MerkleWorkgroupSize(approach string) int {
	if t, ok := h.Hasher.(Tuning); ok {
		return t.MerkleWorkgroupSize(approach)
	}
	return 0
}

var (
	// Blake3 is blake3.MerkleMerge.
	//
	// Deprecated: use blake3.MerkleMerge{}.
	Blake3 = &Hash{blake3.MerkleMerge{}}
	// Rescue is rescue.MerkleMerge.
	//
	// Deprecated: use rescue.MerkleMerge{}.
	Rescue = &Hash{rescue.MerkleMerge{}}
	// Hashes lists Blake3 and Rescue, for ParseHash.
	//
	// Deprecated: the program lists the hashes it offers.
	Hashes = []*Hash{Blake3, Rescue}
)

// ParseHash returns the hash of Hashes named name.
//
// Deprecated: the program lists the hashes it offers.
func ParseHash(name string) (*Hash, error) {
	names := make([]string, len(Hashes))
	for i, h := range Hashes {
		if strings.EqualFold(name, h.Name()) {
			return h, nil
		}
		names[i] = h.Name()
	}
	return nil, fmt.Errorf("merkle: unknown hash %q: accepted are %s", name, strings.Join(names, ", "))
}

// KernelTimes uploads leaves once and builds their tree runs times on the
// device with BuildBuffers, returning each run's kernel time. The tree must
// fit one subtree.
//
// Deprecated: use a Builder's BuildBuffers with Options.Timing.
func KernelTimes(ctx *wgpu.Context, leaves [][32]byte, hash Hasher, opts Options, runs int) ([]time.Duration, error) {
	n := len(leaves)
	if runs < 0 {
		return nil, fmt.Errorf("merkle: kernel times: %d runs: want 0 or more", runs)
	}
	if err := CheckSize(n); err != nil {
		return nil, err
	}
	if hash == nil {
		return nil, errNoHash
	}
	if err := checkLeaves(hash, leaves); err != nil {
		return nil, err
	}
	if !ctx.Info().Timestamps {
		return nil, fmt.Errorf("merkle: kernel times: %s (%s) has no timestamp queries", ctx.Info().Name, ctx.Info().Backend)
	}
	var tm wgpu.Timing
	opts.Timing = &tm
	b, err := NewBuilder(ctx, hash, opts)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	if n > b.SubtreeLeaves() {
		return nil, fmt.Errorf("merkle: kernel times: %d leaves exceed one subtree of %d", n, b.SubtreeLeaves())
	}
	if err := b.reserve(n); err != nil {
		return nil, err
	}
	if err := ctx.Upload(b.leafBuf, 0, wgpu.Bytes(leaves)); err != nil {
		return nil, fmt.Errorf("merkle: upload leaves: %w", err)
	}
	times := make([]time.Duration, 0, runs)
	for r := 0; r < runs; r++ {
		if err := b.BuildBuffers(b.nodeBuf, b.leafBuf, n); err != nil {
			return nil, err
		}
		times = append(times, tm.Kernel)
	}
	return times, nil
}
