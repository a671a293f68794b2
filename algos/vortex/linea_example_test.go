package vortex_test

import (
	"fmt"
	"log"

	"github.com/consensys/gnark-crypto/field/koalabear"
	fext "github.com/consensys/gnark-crypto/field/koalabear/extensions"
	gvortex "github.com/consensys/gnark-crypto/field/koalabear/vortex"

	"github.com/wgcompute/wgcompute/algos/vortex"
)

// A round of Linea's Vortex: two matrices committed, one with SIS and one
// without (as Linea's CommitMerkleWithSIS / CommitMerkleWithoutSIS), opened
// together (vortex_koalabear.Prove) and checked (vortex_koalabear.Verify).
// A nil Context runs on the CPU; a wgpu.Context runs the same scheme on
// its device.
func ExampleProveLinea() {
	// vortex_koalabear.NewParams(rate, nbColumns, maxNbRows, logTwoDegree, logTwoBound)
	p, err := vortex.NewLineaParams(2, 16, 8, 9, 16)
	if err != nil {
		log.Fatal(err)
	}
	c, err := vortex.NewLineaCommitter(nil, p)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Release()

	row := func(seed uint64) vortex.LineaRow {
		v := make([]koalabear.Element, p.NumColumns())
		for j := range v {
			v[j].SetUint64(seed*1000 + uint64(j))
		}
		return vortex.LineaValues(v)
	}
	a := []vortex.LineaRow{row(1), row(2), vortex.LineaConstant(koalabear.NewElement(7))}
	b := []vortex.LineaRow{row(3), row(4)}
	sa, err := c.Commit(a, vortex.LineaOptions{}) // CommitMerkleWithSIS
	if err != nil {
		log.Fatal(err)
	}
	defer sa.Release()
	sb, err := c.Commit(b, vortex.LineaOptions{NoSIS: true}) // CommitMerkleWithoutSIS
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Release()

	var alpha, x fext.E4 // the verifier's coins
	alpha.B0.A0.SetUint64(5)
	alpha.B1.A1.SetUint64(11)
	x.B0.A1.SetUint64(3)
	entries := []int{0, 7, 31}
	proof, err := vortex.ProveLinea([]*vortex.LineaState{sa, sb}, alpha, entries)
	if err != nil {
		log.Fatal(err)
	}

	// The statement: each row, in Lagrange basis over the 16th roots of
	// unity, evaluated at x.
	ys := make([][]fext.E4, 2)
	for i, m := range [][]vortex.LineaRow{a, b} {
		for _, r := range m {
			full := make([]koalabear.Element, p.NumColumns())
			for j := range full {
				full[j] = r.At(j)
			}
			y, err := gvortex.EvalBasePolyLagrange(full, x)
			if err != nil {
				log.Fatal(err)
			}
			ys[i] = append(ys[i], y)
		}
	}
	roots := []vortex.Hash{sa.Root(), sb.Root()}
	err = vortex.VerifyLinea(p, proof, x, ys, alpha, entries, roots, []bool{true, false})
	fmt.Println("verified:", err == nil)
	alpha.B0.A0.SetUint64(6)
	err = vortex.VerifyLinea(p, proof, x, ys, alpha, entries, roots, []bool{true, false})
	fmt.Println("another coin:", err)
	// Output:
	// verified: true
	// another coin: vortex: linea: the linear combination is inconsistent with the opened columns at column 0
}
