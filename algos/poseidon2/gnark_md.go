package poseidon2

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/batch"
	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// Linea's hashes (its prover's crypto/poseidon2_koalabear.MDHasher, the
// hash of its Vortex leaves and of its Merkle tree's nodes,
// crypto/state-management/smt_koalabear) are gnark-crypto's
// Merkle-Damgard hasher over the width-16 compression: GnarkHash's
// MerkleDamgard. The functions below are that hash in the shapes of
// Linea's Vortex commitment, on the CPU (the references) and as dispatches
// over buffers already on the device (md31_gnark_many.wgsl):
//
//   - a leaf with SIS: the hash of a column's SIS digest, its elements in
//     order (LeavesMD, LeavesMDDispatch);
//   - a leaf without SIS: the hash of a codeword column, its rows in order
//     (ColumnLeavesMD, ColumnLeavesMDDispatches);
//   - a node: the hash of left || right, two compressions from the zero
//     state (MergeMD, MergeMDDispatch).
//
// Inputs on the device are Montgomery forms (gnark-crypto's
// koalabear.Element in memory, as SIS and the encoding leave them);
// leaves and nodes are canonical (a tree level's 32-byte nodes).

// mdManyFile is the WGSL of the dispatches.
const mdManyFile = "md31_gnark_many.wgsl"

// LeavesMD is, on the CPU,
//
//	for k := range n { dst[8k : 8k+8] = MerkleDamgard(leave(in[k*m : (k+1)*m])) }
//
// n = len(dst)/8: Linea's leaf of each of n SIS digests of m elements
// (Montgomery forms in, as gnark-crypto holds them; canonical digests
// out), the reference of LeavesMDDispatch. len(in) must be n*m, and every
// word a reduced Montgomery form.
func (g GnarkHash) LeavesMD(dst, in []uint32, m int) error {
	c, _ := g.perms()
	f := c.Field()
	if m < 1 || len(dst)%Digest31 != 0 || len(in) != len(dst)/Digest31*m {
		return fmt.Errorf("poseidon2: %s Merkle-Damgard leaves of inputs of %d elements: give m >= 1, %d words of digests (8 an input) and %d of inputs", g.Name(), m, len(dst), len(dst)/Digest31*max(m, 0))
	}
	if i := batch.FirstNonCanonical(in, uint64(f.P())); i >= 0 {
		return fmt.Errorf("poseidon2: %s Merkle-Damgard leaves: input %d element %d is %d in memory: a Montgomery form is below p = %d", g.Name(), i/m, i%m, in[i], f.P())
	}
	par.For(len(dst)/Digest31, 256, func(lo, hi int) {
		els := make([]uint32, m)
		for k := lo; k < hi; k++ {
			for j, x := range in[k*m : (k+1)*m] {
				els[j] = f.FromMonty(x)
			}
			d := g.md8(els)
			copy(dst[Digest31*k:], d[:])
		}
	})
	return nil
}

// ColumnLeavesMD is, on the CPU, Linea's leaf of each column of a matrix
// of rows × width Montgomery forms held row after row (in[r*width + c] is
// row r of column c): dst[8c : 8c+8] = MerkleDamgard of column c's rows in
// order, canonical. The reference of ColumnLeavesMDDispatches. len(in)
// must be rows*width and len(dst) 8*width, every word of in a reduced
// Montgomery form.
func (g GnarkHash) ColumnLeavesMD(dst, in []uint32, rows, width int) error {
	c, _ := g.perms()
	f := c.Field()
	if rows < 1 || width < 1 || uint64(len(in)) != uint64(rows)*uint64(width) || uint64(len(dst)) != Digest31*uint64(width) {
		return fmt.Errorf("poseidon2: %s Merkle-Damgard leaves of the columns of %d rows × %d: give rows and width >= 1, %d words of rows and %d of digests (8 a column); got %d and %d", g.Name(), rows, width, max(rows, 0)*max(width, 0), Digest31*max(width, 0), len(in), len(dst))
	}
	if i := batch.FirstNonCanonical(in, uint64(f.P())); i >= 0 {
		return fmt.Errorf("poseidon2: %s Merkle-Damgard leaves: row %d column %d is %d in memory: a Montgomery form is below p = %d", g.Name(), i/width, i%width, in[i], f.P())
	}
	par.For(width, 256, func(lo, hi int) {
		els := make([]uint32, rows)
		for k := lo; k < hi; k++ {
			for r := range els {
				els[r] = f.FromMonty(in[r*width+k])
			}
			d := g.md8(els)
			copy(dst[Digest31*k:], d[:])
		}
	})
	return nil
}

// MergeMD returns Linea's node of two children (smt_koalabear's hashLR):
// the Merkle-Damgard hash of left's 8 elements then right's, canonical in
// and out; the reference of MergeMDDispatch.
func (g GnarkHash) MergeMD(left, right [32]byte) [32]byte {
	l, r := Digest31Elements(left), Digest31Elements(right)
	return Digest31Bytes(g.md8(append(l[:], r[:]...)))
}

// LeavesMDDispatch returns the work of LeavesMD on buffers already on
// ctx's device (a tile's SIS digests, to make its leaves): n inputs of m
// Montgomery forms each, input k at words k*m .. (k+1)*m of in, its
// canonical digest at words 8k .. 8k+8 of out. Run it with
// wgpu.Context.Run. The words are not checked: they must be reduced
// Montgomery forms.
func (g GnarkHash) LeavesMDDispatch(ctx *wgpu.Context, in, out wgpu.Binding, n, m int) (wgpu.Dispatch, error) {
	if n < 1 || m < 1 || uint64(n)*uint64(m) > 1<<32 || uint64(n)*Digest31 > 1<<32 {
		return wgpu.Dispatch{}, fmt.Errorf("poseidon2: %s Merkle-Damgard leaves dispatch of %d inputs of %d elements: give at least one of one, and at most 2^32 words", g.Name(), n, m)
	}
	c, _ := g.perms()
	k, err := c.kernelOf(ctx, construction31{}, "md_leaves_monty", mdManyFile)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{in, out}, Params: []uint32{uint32(n), uint32(m), 0, 0}, Groups: ctx.Grid(uint64(n), permuteWG)}, nil
}

// ColumnLeavesMDDispatches returns the work of ColumnLeavesMD on buffers
// already on ctx's device (a tile of codewords, to make its leaves without
// SIS): in holds rows × width Montgomery forms row after row, and the
// canonical digest of column c goes to words 8c .. 8c+8 from out's
// offset. The digests are written in pieces that fit ctx's storage
// bindings (out's offset must be aligned as a binding's); the rows are
// bound whole (in's Size, or the rows' bytes where it is 0) and must fit
// one. Run them with wgpu.Context.Run. The words are
// not checked: they must be reduced Montgomery forms.
func (g GnarkHash) ColumnLeavesMDDispatches(ctx *wgpu.Context, in, out wgpu.Binding, rows, width int) ([]wgpu.Dispatch, error) {
	if rows < 1 || width < 1 || uint64(rows)*uint64(width) > 1<<32 || uint64(width)*Digest31 > 1<<32 {
		return nil, fmt.Errorf("poseidon2: %s Merkle-Damgard column leaves dispatch of %d rows × %d: give at least one of each, and at most 2^32 words", g.Name(), rows, width)
	}
	if in.Buffer == nil || out.Buffer == nil {
		return nil, fmt.Errorf("poseidon2: %s Merkle-Damgard column leaves dispatch: no buffer bound", g.Name())
	}
	limit := ctx.Limits().Binding()
	words := 4 * uint64(rows) * uint64(width)
	// A binding of the whole buffer binds the rows alone, which a larger
	// buffer (a pool's) holds first.
	if in.Size == 0 {
		in.Size = words
	}
	if in.Size < words || !in.Holds(in.Size) || in.Size > limit {
		return nil, fmt.Errorf("poseidon2: %s Merkle-Damgard column leaves dispatch: the rows' binding (%d bytes at %d of a buffer of %d) must hold the %d bytes of %d rows × %d and fit this device's binding of %d bytes", g.Name(), in.Size, in.Offset, in.Buffer.Size(), words, rows, width, limit)
	}
	digests := Digest31 * 4 * uint64(width)
	if !out.Holds(digests) {
		return nil, fmt.Errorf("poseidon2: %s Merkle-Damgard column leaves dispatch: the digests' binding (at %d of a buffer of %d, %d bytes) must hold %d bytes", g.Name(), out.Offset, out.Buffer.Size(), out.Size, digests)
	}
	c, _ := g.perms()
	k, err := c.kernelOf(ctx, construction31{}, "md_columns_monty", mdManyFile)
	if err != nil {
		return nil, err
	}
	// A piece is the most columns, a power of two, whose digests fit a
	// binding, so that each piece's offset stays aligned as out's.
	piece := uint64(width)
	if digests > limit {
		piece = 1
		for 2*piece*Digest31*4 <= limit {
			piece *= 2
		}
	}
	var ds []wgpu.Dispatch
	for first := uint64(0); first < uint64(width); first += piece {
		n := min(piece, uint64(width)-first)
		ds = append(ds, wgpu.Dispatch{Kernel: k,
			Bindings: []wgpu.Binding{in, {Buffer: out.Buffer, Offset: out.Offset + first*Digest31*4, Size: n * Digest31 * 4}},
			Params:   []uint32{uint32(n), uint32(rows), uint32(width), uint32(first)},
			Groups:   ctx.Grid(n, permuteWG)})
	}
	return ds, nil
}

// MergeMDDispatch returns the work of MergeMD on buffers already on ctx's
// device (a level of Linea's Merkle tree, to make the next), shaped as
// MergeDispatch: n pairs of canonical digests, pair k at words 16k ..
// 16k+16 of in, the node of its halves at words 8k .. 8k+8 of out. Run it
// with wgpu.Context.Run. The words are not checked: they must be
// canonical.
func (g GnarkHash) MergeMDDispatch(ctx *wgpu.Context, in, out wgpu.Binding, n int) (wgpu.Dispatch, error) {
	if n < 1 || uint64(n)*2*Digest31 > 1<<32 {
		return wgpu.Dispatch{}, fmt.Errorf("poseidon2: %s Merkle-Damgard merge dispatch of %d pairs: give at least one, and at most 2^32 words", g.Name(), n)
	}
	c, _ := g.perms()
	k, err := c.kernelOf(ctx, construction31{}, "md_merge", mdManyFile)
	if err != nil {
		return wgpu.Dispatch{}, err
	}
	return wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{in, out}, Params: []uint32{uint32(n), 0, 0, 0}, Groups: ctx.Grid(uint64(n), permuteWG)}, nil
}
