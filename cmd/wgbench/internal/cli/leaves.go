package cli

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/wgcompute/wgcompute/algos/merkle"
)

// RandomLeaves returns n leaves from seed that hash accepts: random
// bytes, drawn again for the rare leaf it does not (a Rescue element must
// be below p): the inputs of the Merkle benchmarks and tests.
func RandomLeaves(hash merkle.Hash, n int, seed uint64) [][32]byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	leaves := make([][32]byte, n)
	for i := range leaves {
		for ok := false; !ok; ok = hash.CheckDigest(leaves[i]) == nil {
			for j := 0; j < 4; j++ {
				binary.LittleEndian.PutUint64(leaves[i][8*j:], r.Uint64())
			}
		}
	}
	return leaves
}
