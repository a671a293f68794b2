package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/consensys/linea-monorepo/prover/crypto/vortex/vortex_koalabear"
	"github.com/consensys/linea-monorepo/prover/maths/common/smartvectors"
	"github.com/consensys/linea-monorepo/prover/maths/field"
)

// bench times Linea's own CommitMerkleWithSIS (or WithoutSIS) on random
// rows of the given shape, reps times, and prints each time: the baseline
// the wgcompute Linea scheme is measured against, on the same host.
func bench(rows, cols, rate, logDegree, logBound int, noSIS bool, reps int) error {
	if rows < 1 || cols < 1 || cols&(cols-1) != 0 || rate < 2 || rate&(rate-1) != 0 || reps < 1 {
		return fmt.Errorf("bench: %dx%d at rate %d, %d repetitions: want rows >= 1, columns and rate powers of two (rate >= 2), repetitions >= 1", rows, cols, rate, reps)
	}
	r := rand.New(rand.NewPCG(1, 2))
	svs := make([]smartvectors.SmartVector, rows)
	for i := range svs {
		v := make([]field.Element, cols)
		for j := range v {
			v[j].SetUint64(uint64(r.Uint32N(modulus)))
		}
		svs[i] = smartvectors.NewRegular(v)
	}
	p := vortex_koalabear.NewParams(rate, cols, rows, logDegree, logBound)
	name := fmt.Sprintf("CommitMerkleWithSIS(%d,%d)", logDegree, logBound)
	if noSIS {
		name = "CommitMerkleWithoutSIS"
	}
	for i := range reps {
		runtime.GC()
		t0 := time.Now()
		if noSIS {
			p.CommitMerkleWithoutSIS(svs)
		} else {
			p.CommitMerkleWithSIS(svs)
		}
		fmt.Printf("linea %s %dx%d rate %d run %d: %v (GOMAXPROCS %d)\n", name, rows, cols, rate, i, time.Since(t0), runtime.GOMAXPROCS(0))
	}
	return nil
}
