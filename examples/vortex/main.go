// Command vortex is the README's program for gnark and Linea users: it
// commits to a matrix of gnark-crypto KoalaBear elements with Vortex on
// the GPU, opens the commitment and checks the proof with gnark-crypto's
// own verifier.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/vortex"
	"github.com/wgcompute/wgcompute/wgpu"
)

func main() {
	// The default adapter, or gnark-crypto itself where
	// WGCOMPUTE_BACKEND=cpu asks for the CPU (a nil Context).
	ctx, err := wgpu.Open(wgpu.Options{Backend: os.Getenv("WGCOMPUTE_BACKEND")})
	if errors.Is(err, wgpu.ErrCPUBackend) {
		ctx, err = nil, nil
	}
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()

	// 16 rows of 1024 columns, rate 2, Vortex's SIS instance
	// (sis.NewRSis(0, 9, 16, rows)), 8 columns opened.
	const rows, cols = 16, 1024
	params, err := vortex.NewParams(cols, rows, 2, vortex.SIS{LogTwoDegree: 9, LogTwoBound: 16}, 8)
	if err != nil {
		log.Fatal(err)
	}
	m := make([][]koalabear.Element, rows) // the prover's rows, as gnark-crypto holds them
	for i := range m {
		m[i] = make([]koalabear.Element, cols)
		for j := range m[i] {
			m[i][j].SetUint64(uint64(i*cols + j*j))
		}
	}

	// Commit: the same root, digests and tree as gnark-crypto's
	// vortex.Commit(params.Gnark(), m).
	state, err := vortex.Commit(ctx, params, m, vortex.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer state.Release()
	fmt.Println("root", vortex.CanonicalRoot(state.Root()))

	// The verifier's challenges (from a transcript in a real protocol).
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

	// gnark-crypto's verifier checks the proof against the root and the
	// rows' claimed evaluations at x.
	claims := make([]fext.E4, rows)
	for i, row := range m {
		if claims[i], err = gvortex.EvalBasePolyLagrange(row, x); err != nil {
			log.Fatal(err)
		}
	}
	err = params.Gnark().Verify(gvortex.VerifierInput{
		MerkleRoot: state.Root(), ClaimedValues: claims, EvaluationPoint: x,
		Alpha: alpha, SelectedColumns: selected, Proof: proof,
	})
	fmt.Println("verified by gnark-crypto:", err == nil)

	// A column count that is not a power of two is refused, naming it.
	_, err = vortex.NewParams(1000, rows, 2, vortex.SIS{LogTwoDegree: 9, LogTwoBound: 16}, 8)
	fmt.Println("refused:", err)
}
