// Command digests prints BLAKE3 digests and Merkle roots of seeded random
// inputs of odd sizes, computed through wgcompute the way any program
// does: natively with cgo, or built with GOOS=js GOARCH=wasm and run in a
// browser page (web/digests.html), where the Context is the browser's
// WebGPU. The browser test (web/test/digests.mjs) compares its lines
// there with those of the native build on the CPU reference
// (WGCOMPUTE_BACKEND=cpu): the same source, the same answers.
package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/envopts"
)

// Lengths around BLAKE3's chunk (1024 bytes) and subtree sizes, and leaf
// counts that are not powers of two (merkle joins perfect subtrees).
var (
	lengths = []int{0, 1, 63, 1023, 1025, 3*1024 + 7, 65*1024 + 3, 1<<20 + 3*1024 + 5}
	counts  = []int{1, 2, 3, 255, 1000, 4097}
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "digests:", err)
		os.Exit(1)
	}
}

func run() error {
	env, err := envopts.Load()
	if err != nil {
		return err
	}
	ctx, err := wgpu.Open(env.Options)
	if err != nil && !errors.Is(err, wgpu.ErrCPUBackend) {
		return err
	}
	defer ctx.Close()
	info := ctx.Info()
	// stderr: the device differs between runs, the digests do not.
	fmt.Fprintf(os.Stderr, "device: %s (%s), features %v\n", info.Name, info.Backend, ctx.ShaderFeatures())
	rng := rand.New(rand.NewPCG(2026, 1125))
	for _, n := range lengths {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		d, err := blake3.Sum(ctx, data)
		if err != nil {
			return fmt.Errorf("blake3 of %d bytes: %w", n, err)
		}
		fmt.Printf("blake3 %d %x\n", n, d)
	}
	for _, n := range counts {
		leaves := make([][32]byte, n)
		for i := range leaves {
			for j := range leaves[i] {
				leaves[i][j] = byte(rng.Uint32())
			}
		}
		root, err := merkle.Root(ctx, leaves, blake3.MerkleMerge{}, merkle.Options{})
		if err != nil {
			return fmt.Errorf("merkle root of %d leaves: %w", n, err)
		}
		fmt.Printf("merkle-blake3 %d %x\n", n, root)
	}
	return nil
}
