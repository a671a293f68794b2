// Command vortex is the README's program for gnark-crypto Vortex users:
// gnark-crypto's parameters in, the commitment on the GPU (gnark-crypto
// itself where there is none), gnark-crypto's proof out, checked by its
// own verifier.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	"github.com/consensys/gnark-crypto/field/koalabear/sis"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/wgpu"
)

func main() {
	// The default GPU; with none, or where WGCOMPUTE_BACKEND=cpu asks for
	// the CPU, a nil Context: gnark-crypto's own vortex.Commit.
	ctx, err := wgpu.Open(wgpu.Options{Backend: os.Getenv("WGCOMPUTE_BACKEND")})
	if errors.Is(err, wgpu.ErrCPUBackend) || errors.Is(err, wgpu.ErrNoAdapter) {
		ctx, err = nil, nil
	}
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()

	// gnark-crypto's parameters, as a prover makes them: 16 rows of 1024
	// columns, rate 2, Vortex's SIS instance, 8 columns opened.
	const rows, cols = 16, 1024
	key, err := sis.NewRSis(0, 9, 16, rows)
	if err != nil {
		log.Fatal(err)
	}
	gp, err := gvortex.NewParams(cols, rows, key, 2, 8)
	if err != nil {
		log.Fatal(err)
	}
	params, err := vortex.FromGnark(gp)
	if err != nil {
		log.Fatal(err)
	}
	m := make([][]koalabear.Element, rows) // the prover's rows
	for i := range m {
		m[i] = make([]koalabear.Element, cols)
		for j := range m[i] {
			m[i][j].SetUint64(uint64(i*cols + j*j))
		}
	}

	// Commit where gvortex.Commit(gp, m) was: the same root, codewords,
	// digests and tree. The state needs no Release: its device memory
	// goes when it is unreachable (Release frees it at once).
	state, err := vortex.Commit(ctx, params, m, vortex.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var root [32]byte // printed as wgbench prints roots
	for i, v := range vortex.CanonicalRoot(state.Root()) {
		binary.LittleEndian.PutUint32(root[4*i:], v)
	}
	fmt.Printf("root %x\n", root)

	// The verifier's challenges (from a transcript in a real protocol),
	// and the opening: gnark-crypto's proof.
	var alpha, x fext.E4
	alpha.B0.A0.SetUint64(7)
	alpha.B1.A1.SetUint64(11)
	x.B0.A1.SetUint64(5)
	if _, err := state.OpenLinComb(alpha); err != nil {
		log.Fatal(err)
	}
	selected := []int{0, 3, 100, 511, 1024, 1500, 2000, 2047}
	proof, err := state.OpenColumns(selected)
	if err != nil {
		log.Fatal(err)
	}

	// Where the rest of the prover takes gnark-crypto's state.
	gs, err := state.Gnark()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("gnark-crypto's state, same root:", gs.GetCommitment() == state.Root())

	// gnark-crypto's verifier checks the proof against the root and the
	// rows' claimed evaluations at x.
	claims := make([]fext.E4, rows)
	for i, row := range m {
		if claims[i], err = gvortex.EvalBasePolyLagrange(row, x); err != nil {
			log.Fatal(err)
		}
	}
	err = gp.Verify(gvortex.VerifierInput{
		MerkleRoot: state.Root(), ClaimedValues: claims, EvaluationPoint: x,
		Alpha: alpha, SelectedColumns: selected, Proof: proof,
	})
	fmt.Println("verified by gnark-crypto:", err == nil)

	// gnark-crypto's options are refused where they change its default
	// hashes, which the kernels compute.
	_, err = vortex.NewParams(cols, rows, 2, vortex.SIS{LogTwoDegree: 9, LogTwoBound: 16}, 8, gvortex.WithMerkleHash(sha256.New()))
	fmt.Println("refused:", err)
}
