package merkle

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Hash is the 2-to-1 merge a tree is built with, on the CPU and as WGSL.
// Use the values Blake3 and Rescue; a Hash is compared by pointer.
type Hash struct {
	name string
	// merge is the plain-Go merge, the oracle for the kernels.
	merge func(a, b *[32]byte) [32]byte
	// check rejects a leaf the hash does not accept; nil accepts all.
	check func(leaf *[32]byte) error
	// libs are the WGSL files composed, in order, in front of merkle.wgsl;
	// together they define merge_node.
	libs []string
	// source, when set, replaces libs (tests use it for a cheap merge).
	source string
	// approach is Build's default approach for this hash (0: Subtrees),
	// and wideSubtrees makes Subtrees default to 256 invocations: the
	// fastest measured on an H200.
	approach     int
	wideSubtrees bool
	// largeApproach replaces approach for trees of largeFrom leaves or
	// more, when set.
	largeApproach int
	largeFrom     int
}

// defaultApproach is the fastest measured approach for n leaves.
func (h *Hash) defaultApproach(n int) int {
	if h.largeApproach != 0 && n >= h.largeFrom {
		return h.largeApproach
	}
	return h.approach
}

// Blake3 merges two 32-byte digests into BLAKE3(left || right): the 64 bytes
// hashed as one chunk of one block. Every 32-byte leaf is accepted.
var Blake3 = &Hash{
	name:  "blake3",
	merge: func(a, b *[32]byte) [32]byte { return blake3.Merge(*a, *b) },
	libs:  []string{"blake3_lib.wgsl", "merkle_blake3.wgsl"},

	approach:     Subtrees,
	wideSubtrees: true,
	// On an H200 (wgbench bench merkle, 2026-11-22) subtrees of 256
	// invocations won up to 2^22 leaves (0.091 against 0.117 ms at 2^20)
	// and a dispatch per level won from 2^23 (1.40 against 1.69 ms at 2^25).
	largeApproach: LevelPerDispatch,
	largeFrom:     1 << 23,
}

// Rescue merges two Rescue Prime (Rp64_256, winterfell) digests. A digest is
// 4 Goldilocks field elements, each a little-endian uint64 below
// p = 2^64 - 2^32 + 1; leaves must be such digests.
var Rescue = &Hash{
	name: "rescue",
	merge: func(a, b *[32]byte) [32]byte {
		return FromElements(rescue.Merge(Elements(*a), Elements(*b)))
	},
	check: checkCanonical,
	libs:  []string{"goldilocks.wgsl", "rescue_consts.wgsl", "rescue_lib.wgsl", "merkle_rescue.wgsl"},

	approach: LevelPerDispatch,
}

// Hashes lists the hashes by name, for ParseHash and command lines.
var Hashes = []*Hash{Blake3, Rescue}

// ParseHash returns the hash named name ("blake3" or "rescue").
func ParseHash(name string) (*Hash, error) {
	for _, h := range Hashes {
		if strings.EqualFold(name, h.name) {
			return h, nil
		}
	}
	names := make([]string, len(Hashes))
	for i, h := range Hashes {
		names[i] = h.name
	}
	return nil, fmt.Errorf("merkle: unknown hash %q: accepted are %s", name, strings.Join(names, ", "))
}

// String returns the hash's name.
func (h *Hash) String() string { return h.name }

// Merge returns the parent of left and right on the CPU.
func (h *Hash) Merge(left, right [32]byte) [32]byte { return h.merge(&left, &right) }

// CheckLeaves returns an error naming the first leaf the hash does not
// accept (for Rescue, a leaf with an element >= p).
func (h *Hash) CheckLeaves(leaves [][32]byte) error {
	if h.check == nil {
		return nil
	}
	for i := range leaves {
		if err := h.check(&leaves[i]); err != nil {
			return fmt.Errorf("merkle: leaf %d: %w", i, err)
		}
	}
	return nil
}

// wgsl returns the kernel source for this hash, with the workgroup size
// substituted.
func (h *Hash) wgsl(wg int) (string, error) {
	var lib string
	if h.source != "" {
		lib = h.source
	} else {
		s, err := wgsl.Compose(h.libs...)
		if err != nil {
			return "", fmt.Errorf("merkle: %s kernels: %w", h.name, err)
		}
		lib = s
	}
	k, err := wgsl.Compose("merkle.wgsl")
	if err != nil {
		return "", fmt.Errorf("merkle: %w", err)
	}
	k = strings.ReplaceAll(k, "MK_WG", fmt.Sprintf("%du", wg))
	k = strings.ReplaceAll(k, "MK_SH", fmt.Sprintf("%du", 4*wg))
	return lib + k, nil
}

// goldilocksP is the Goldilocks prime 2^64 - 2^32 + 1.
const goldilocksP = 0xffffffff00000001

func checkCanonical(leaf *[32]byte) error {
	for j := 0; j < 4; j++ {
		if v := binary.LittleEndian.Uint64(leaf[8*j:]); v >= goldilocksP {
			return fmt.Errorf("element %d is %d, not a Goldilocks field element: Rescue leaves are 4 little-endian uint64 values below p = %d", j, v, uint64(goldilocksP))
		}
	}
	return nil
}

// Elements reads a Rescue digest's 4 field elements (little-endian uint64s).
func Elements(d [32]byte) [4]uint64 {
	var e [4]uint64
	for j := range e {
		e[j] = binary.LittleEndian.Uint64(d[8*j:])
	}
	return e
}

// FromElements is the inverse of Elements.
func FromElements(e [4]uint64) [32]byte {
	var d [32]byte
	for j, v := range e {
		binary.LittleEndian.PutUint64(d[8*j:], v)
	}
	return d
}
