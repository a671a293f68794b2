package merklecmd

import (
	"errors"
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/lde"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// checkBlowup returns an error unless --blowup, where given, is a rate
// lde takes for one --matrix committed with one hash.
func checkBlowup(given bool, blowup, matrices, hashes int) error {
	if !given {
		return nil
	}
	if blowup < 2 || blowup > ntt.MaxRate || blowup&(blowup-1) != 0 {
		return fmt.Errorf("commit: --blowup %d: the blowup is a power of two from 2 to %d", blowup, ntt.MaxRate)
	}
	if matrices != 1 {
		return errors.New("commit: --blowup extends one --matrix: give one --matrix ROWSxCOLS and one --in FILE")
	}
	if hashes != 1 {
		return errors.New("commit: --blowup commits with one hash, not a schedule")
	}
	return nil
}

// commitExtended decodes the one --in file as a matrix of elements E and
// commits to its extension by blowup, as Plonky3's PCS commits a trace,
// on the first device of grp (nil: the CPU).
func commitExtended[E field.Element](grp *sched.Group, hash merkle.RowHash[E], raws [][]byte, shapes []shape, ins []string, blowup int, opts merkle.Options) (*merkle.Tree, error) {
	ms, err := matricesOf(raws, shapes, ins, func(rows, cols int, data []E) merkle.Matrix[E] {
		return merkle.Matrix[E]{Rows: rows, Cols: cols, Data: data}
	})
	if err != nil {
		return nil, err
	}
	t, err := lde.Commit(firstDevice(grp), ms[0], hash, lde.Options{Extend: lde.Plonky3(blowup), Merkle: opts})
	if err != nil {
		return nil, fmt.Errorf("commit: --blowup %d: %w", blowup, err)
	}
	return t, nil
}
