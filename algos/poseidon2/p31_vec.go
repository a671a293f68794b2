package poseidon2

import (
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/babybear"
	"github.com/consensys/gnark-crypto/field/koalabear"
)

// The CPU path of the 31-bit permutations over many states: the states of
// a block side by side (structure of arrays: element i of every state of
// the block in one run of memory), permuted with gnark-crypto's vector
// arithmetic (koalabear.Vector, babybear.Vector: AVX-512 on amd64 where
// the CPU has it, NEON on arm64, plain Go elsewhere). Its elements are
// Montgomery forms with R = 2^32, as gnark-crypto's Element and
// permuteMonty hold them, so a vector product is MontyMul lane by lane
// and the block path equals permuteMonty, and so the reference, bit for
// bit (the tests hold it to that).
//
// Within a block element i = 4k+j (j its place in its group of four, k
// the group) is stored at row j·(Width/4)+k: the external layer's 4×4
// blocks then act on whole rows of groups at once, and every step of the
// permutation is a few vector operations over a block.
//
// Each vector operation reads and writes the block in memory, which
// bounds this path; at width 16, where the CPU has AVX-512, blocks of 16
// states are permuted in registers instead (permute16AVX512, the same
// arithmetic), and the vector operations only bring elements into and
// out of Montgomery form.

// vecLanes are the numbers of states a block holds: the most, whose
// state (Width × vecLanes[0] elements) and scratch stay in a core's
// first-level caches, then smaller ones for the last block of a piece
// (the fewest lanes that hold it). Each vector operation of a block is
// one call, so more lanes share its cost over more states.
var vecLanes = [...]int{128, 64, 32, 16}

// vecMinLanes is the fewest states worth a block: fewer left at the end
// of a piece are permuted one by one (permuteMonty).
const vecMinLanes = 4

// permute16Fast, where the CPU has it, permutes 16 states of width 16
// (4 + 4 full rounds) at once held in registers (permute16AVX512): a
// block's states are then permuted by it, 16 at a time, instead of by
// vector operations.
var permute16Fast func(s, ext, internal *uint32, nInternal int, diag *uint32, p, mu, degree, diagKind uint64)

// vecFast turns permute16Fast's path off, for the tests of the other.
var vecFast = true

// vec31 is a 31-bit field's vector arithmetic on Montgomery forms: dst[i]
// = a[i] + b[i] and dst[i] = a[i]·b[i]·2^-32 mod p, for slices of one
// length; dst may be a or b.
type vec31 struct {
	add, mul func(dst, a, b []uint32)
}

func kbVec(x []uint32) koalabear.Vector {
	return unsafe.Slice((*koalabear.Element)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func bbVec(x []uint32) babybear.Vector {
	return unsafe.Slice((*babybear.Element)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

var (
	koalaBearVec = vec31{
		add: func(dst, a, b []uint32) { d := kbVec(dst); d.Add(kbVec(a), kbVec(b)) },
		mul: func(dst, a, b []uint32) { d := kbVec(dst); d.Mul(kbVec(a), kbVec(b)) },
	}
	babyBearVec = vec31{
		add: func(dst, a, b []uint32) { d := bbVec(dst); d.Add(bbVec(a), bbVec(b)) },
		mul: func(dst, a, b []uint32) { d := bbVec(dst); d.Mul(bbVec(a), bbVec(b)) },
	}
)

// sum sets dst (b elements) to the sum of the n runs of b elements that
// src starts with, by halving: about log2(n) vector additions. tmp holds
// n/2·b elements at least.
func (v vec31) sum(dst, src []uint32, n, b int, tmp []uint32) {
	cur := src
	for n > 1 {
		h := n / 2
		v.add(tmp[:h*b], cur[:h*b], cur[h*b:2*h*b])
		if n%2 == 1 {
			v.add(tmp[:b], tmp[:b], cur[2*h*b:(2*h+1)*b])
		}
		cur, n = tmp, h
	}
	copy(dst, cur[:b])
}

// replicate fills x with copies of its first b elements.
func replicate(x []uint32, b int) {
	for filled := b; filled < len(x); filled *= 2 {
		copy(x[filled:], x[:filled])
	}
}

// vecPerm is a permutation's block form: its constants laid out as
// blocks' rows, built once.
type vecPerm struct {
	p    *Permutation31
	v    vec31
	w, q int    // width, and width/4: the groups of four
	mod  uint32 // the field's p
	// tabs are the constants for each lane count of vecLanes.
	tabs [len(vecLanes)]vecTables
	// oneOffs are the offsets of a single state's elements: 0, 1, 2, ...
	oneOffs []int
	// fast is the block of 16 states, element-major, that permute16Fast
	// permutes, with ext its full rounds' constants one after another
	// and mu -p^-1 mod 2^32; fast.b is 0 where it does not run.
	fast vecTables
	ext  []uint32
	mu   uint64
	// diagKind is permute16Fast's: 1 for KoalaBear16's diagonal, 2 for
	// BabyBear16's, whose products it makes by shifts.
	diagKind uint64
	// scratch is the free list of blocks' state and scratch memory.
	scratch sync.Pool
}

// vecTables are a permutation's constants for blocks of b lanes, each
// replicated over the lanes (Montgomery forms): full holds each full
// round's constants, part each partial round's constant, diag the
// internal diagonal.
type vecTables struct {
	b          int
	full       [][]uint32
	part, diag []uint32
	// r2 and one hold R^2 mod p and 1 in every lane of as many rows as
	// monty and canonical convert at once: a product with them enters a
	// value into Montgomery form or leaves it.
	r2, one []uint32
	// offs[i] is the index of element i of lane 0.
	offs []int
	// natural: element i is row i (permute16Fast's block), not row
	// row(i).
	natural bool
}

// row returns the row of element i in a block.
func (vp *vecPerm) row(i int) int { return (i%4)*vp.q + i/4 }

var (
	vecPermsOnce sync.Once
	vecPerms     map[*Permutation31]*vecPerm
)

// vectorised returns p's block form.
func (p *Permutation31) vectorised() *vecPerm {
	vecPermsOnce.Do(func() {
		vecPerms = make(map[*Permutation31]*vecPerm, len(table31))
		for _, q := range table31 {
			vecPerms[q] = newVecPerm(q)
		}
	})
	if vp := vecPerms[p]; vp != nil {
		return vp
	}
	return newVecPerm(p)
}

func newVecPerm(p *Permutation31) *vecPerm {
	w := p.Width()
	vp := &vecPerm{p: p, v: babyBearVec, w: w, q: w / 4, mod: p.f.P()}
	if p.Field() == KoalaBear16.Field() {
		vp.v = koalaBearVec
	}
	for n, b := range vecLanes {
		spread := func(xs []uint32) []uint32 {
			out := make([]uint32, w*b)
			for i, x := range xs {
				r := vp.row(i) * b
				for l := range b {
					out[r+l] = x
				}
			}
			return out
		}
		tb := vecTables{b: b, part: make([]uint32, len(p.internalM)*b), diag: spread(p.diagM), r2: make([]uint32, vp.q*b), one: make([]uint32, vp.q*b)}
		r2 := p.f.ToMonty(p.f.ToMonty(1))
		for l := range tb.r2 {
			tb.r2[l], tb.one[l] = r2, 1
		}
		for i := range w {
			tb.offs = append(tb.offs, vp.row(i)*b)
		}
		for _, rc := range p.extM {
			tb.full = append(tb.full, spread(rc))
		}
		for r, c := range p.internalM {
			for l := range b {
				tb.part[r*b+l] = c
			}
		}
		vp.tabs[n] = tb
	}
	for i := range w {
		vp.oneOffs = append(vp.oneOffs, i)
	}
	if w == 16 && len(p.extM) == 8 && permute16Fast != nil {
		const b = 16
		vp.fast = vecTables{b: b, natural: true, r2: make([]uint32, w*b), one: make([]uint32, w*b)}
		r2 := p.f.ToMonty(p.f.ToMonty(1))
		for l := range vp.fast.r2 {
			vp.fast.r2[l], vp.fast.one[l] = r2, 1
		}
		for i := range w {
			vp.fast.offs = append(vp.fast.offs, i*b)
		}
		for _, rc := range p.extM {
			vp.ext = append(vp.ext, rc...)
		}
		inv := vp.mod // p^-1 mod 2^32 by Newton's iteration: each step doubles the bits
		for range 5 {
			inv *= 2 - vp.mod*inv
		}
		vp.mu = uint64(-inv)
		switch p {
		case KoalaBear16:
			vp.diagKind = 1
		case BabyBear16:
			vp.diagKind = 2
		}
	}
	b := vecLanes[0]
	vp.scratch.New = func() any {
		return &vecBlock{s: make([]uint32, w*b), t: make([]uint32, w*b), r: make([]uint32, w*b), one: make([]uint32, w)}
	}
	return vp
}

// vecBlock is the state and scratch of a block of the most lanes, and
// one state's room for the states of a tail.
type vecBlock struct{ s, t, r, one []uint32 }

// lanes is a block of tab.b lanes in k's memory.
type lanes struct {
	tab     *vecTables
	s, t, r []uint32
}

// vecView is a block, or one state of a tail, as the batch functions
// fill, permute and read it.
type vecView struct {
	vp  *vecPerm
	k   *vecBlock
	one bool
	bl  lanes // the block, unless one
}

// state returns the elements of the state (or block) and the offset of
// each element's first lane: element i of lane l is s[offs[i]+l] (a
// single state has lane 0 alone).
func (v vecView) state() (s []uint32, offs []int) {
	if v.one {
		return v.k.one, v.vp.oneOffs
	}
	return v.bl.s, v.bl.tab.offs
}

// monty turns elements 0 to n-1 of every lane into their Montgomery
// forms: they may be any uint32, reduced mod p on the way (a Montgomery
// product of x below 2^32 and R^2 mod p is below 2p before its last
// subtraction, so canonical after it).
func (v vecView) monty(n int) {
	if v.one {
		f := v.vp.p.f
		for i := range n {
			v.k.one[i] = f.ToMonty(v.k.one[i])
		}
		return
	}
	if v.bl.tab.natural {
		x := v.bl.s[:n*v.bl.tab.b]
		v.vp.v.mul(x, x, v.bl.tab.r2[:len(x)])
		return
	}
	// Elements j, j+4, ... below n are the first rows of row group j.
	b, g := v.bl.tab.b, v.vp.q*v.bl.tab.b
	for j := range min(n, 4) {
		rows := (n - j + 3) / 4 * b
		x := v.bl.s[j*g : j*g+rows]
		v.vp.v.mul(x, x, v.bl.tab.r2[:rows])
	}
}

// canonical returns elements 0 to n-1 of every lane as canonical
// elements, at the offsets state returns.
func (v vecView) canonical(n int) []uint32 {
	if v.one {
		f := v.vp.p.f
		out := v.k.t[:n]
		for i := range out {
			out[i] = f.FromMonty(v.k.one[i])
		}
		return out
	}
	if v.bl.tab.natural {
		m := n * v.bl.tab.b
		v.vp.v.mul(v.bl.t[:m], v.bl.s[:m], v.bl.tab.one[:m])
		return v.bl.t
	}
	b, g := v.bl.tab.b, v.vp.q*v.bl.tab.b
	for j := range min(n, 4) {
		rows := (n - j + 3) / 4 * b
		v.vp.v.mul(v.bl.t[j*g:j*g+rows], v.bl.s[j*g:j*g+rows], v.bl.tab.one[:rows])
	}
	return v.bl.t
}

func (v vecView) permute() {
	if v.one {
		v.vp.p.permuteMonty(v.k.one)
		return
	}
	if v.bl.tab.natural {
		vp := v.vp
		permute16Fast(&v.bl.s[0], &vp.ext[0], unsafe.SliceData(vp.p.internalM), len(vp.p.internalM), &vp.p.diagM[0], uint64(vp.mod), vp.mu, uint64(vp.p.set.Degree), vp.diagKind)
		return
	}
	v.vp.permute(v.bl)
}

// sbox sets x to x^D lane by lane, t scratch of x's length.
func (vp *vecPerm) sbox(x, t []uint32) {
	mul := vp.v.mul
	mul(t, x, x) // x^2
	if vp.p.set.Degree == 3 {
		mul(x, t, x)
		return
	}
	mul(t, t, x) // x^3
	mul(x, x, t) // x^4
	mul(x, x, t) // x^7
}

// mdsLight is mdsLightAdd on every state of block k.
func (vp *vecPerm) mdsLight(k lanes) {
	b := k.tab.b
	add, g := vp.v.add, vp.q*b
	s := k.s
	x0, x1, x2, x3 := s[:g], s[g:2*g], s[2*g:3*g], s[3*g:4*g]
	t01, t23, c := k.t[:g], k.t[g:2*g], k.t[2*g:3*g]
	add(t01, x0, x1)
	add(t23, x2, x3)
	add(c, t01, t23) // t0123
	add(x1, c, x1)   // t01123
	add(x3, c, x3)   // t01233
	add(c, x1, t01)  // y0
	add(x1, x1, x2)
	add(x1, x1, x2)  // y1 = t01123 + 2·x2
	add(x2, x3, t23) // y2
	add(x3, x3, x0)
	add(x3, x3, x0) // y3 = t01233 + 2·x0
	copy(x0, c)
	// Each element plus the sum of the elements at its place in every
	// group: the sums of row j's groups, replicated over them, added at
	// once.
	for j := range 4 {
		rj := k.r[j*g : (j+1)*g]
		vp.v.sum(rj[:b], s[j*g:(j+1)*g], vp.q, b, k.t[3*g:])
		replicate(rj, b)
	}
	add(s, s, k.r)
}

// permute permutes the states of block k, in Montgomery form, as
// permuteMonty permutes one.
func (vp *vecPerm) permute(k lanes) {
	add, mul, b, tab := vp.v.add, vp.v.mul, k.tab.b, k.tab
	s, t := k.s, k.t
	half := len(tab.full) / 2
	vp.mdsLight(k)
	for _, rc := range tab.full[:half] {
		add(s, s, rc)
		vp.sbox(s, t)
		vp.mdsLight(k)
	}
	s0 := s[:b]
	for r := range len(vp.p.internalM) {
		add(s0, s0, tab.part[r*b:(r+1)*b])
		vp.sbox(s0, t[:b])
		// state[i] = sum + V[i]·state[i], the sum replicated over the
		// rows.
		vp.v.sum(k.r[:b], s, vp.w, b, t)
		replicate(k.r, b)
		mul(s, s, tab.diag)
		add(s, s, k.r)
	}
	for _, rc := range tab.full[half:] {
		add(s, s, rc)
		vp.sbox(s, t)
		vp.mdsLight(k)
	}
}

// blocks calls fn on the n states a block at a time, lanes [0, cnt) of
// the block being states lo to lo+cnt: fn fills the lanes, permutes and
// reads them. The last block of a piece has the fewest lanes of vecLanes
// that hold it, its other lanes holding what they held (their results
// are not read); fewer than vecMinLanes states left are given to fn one
// state at a time.
func (vp *vecPerm) blocks(n int, fn func(v vecView, lo, cnt int)) {
	k := vp.scratch.Get().(*vecBlock)
	defer vp.scratch.Put(k)
	lo := 0
	if vp.fast.b != 0 && vecFast {
		m := vp.w * vp.fast.b
		for ; n-lo >= vecMinLanes; lo += vp.fast.b {
			fn(vecView{vp: vp, k: k, bl: lanes{tab: &vp.fast, s: k.s[:m], t: k.t[:m], r: k.r[:m]}}, lo, min(vp.fast.b, n-lo))
		}
	}
	for n-lo >= vecMinLanes {
		cnt := n - lo
		t := 0
		for t+1 < len(vecLanes) && vecLanes[t+1] >= cnt {
			t++
		}
		tab := &vp.tabs[t]
		cnt = min(cnt, tab.b)
		m := vp.w * tab.b
		fn(vecView{vp: vp, k: k, bl: lanes{tab: tab, s: k.s[:m], t: k.t[:m], r: k.r[:m]}}, lo, cnt)
		lo += cnt
	}
	for ; lo < n; lo++ {
		fn(vecView{vp: vp, k: k, one: true}, lo, 1)
	}
}

// permuteMany permutes the states, Width canonical elements each one
// after another, in place: permute of each.
func (p *Permutation31) permuteMany(states []uint32) {
	vp := p.vectorised()
	w := vp.w
	vp.blocks(len(states)/w, func(v vecView, lo, cnt int) {
		s, offs := v.state()
		for l := range cnt {
			for i, x := range states[(lo+l)*w : (lo+l+1)*w] {
				s[offs[i]+l] = x
			}
		}
		v.monty(w)
		v.permute()
		out := v.canonical(w)
		for l := range cnt {
			st := states[(lo+l)*w : (lo+l+1)*w]
			for i := range st {
				st[i] = out[offs[i]+l]
			}
		}
	})
}

// merge8Many sets dst[i] to merge8 of pairs[i]'s two digests.
func (p *Permutation31) merge8Many(dst [][Digest31]uint32, pairs [][2 * Digest31]uint32) {
	vp := p.vectorised()
	vp.blocks(len(pairs), func(v vecView, lo, cnt int) {
		s, offs := v.state()
		for l := range cnt {
			for i, x := range &pairs[lo+l] {
				s[offs[i]+l] = x
			}
			for i := 2 * Digest31; i < vp.w; i++ {
				s[offs[i]+l] = 0
			}
		}
		v.monty(2 * Digest31)
		v.permute()
		readDigests(v, dst[lo:lo+cnt])
	})
}

// hash8Many sets dst[i] to hash8 of inputs[i·m : (i+1)·m].
func (p *Permutation31) hash8Many(dst [][Digest31]uint32, inputs []uint32, m int) {
	if m == 0 {
		clear(dst) // the sponge of nothing permutes never
		return
	}
	vp := p.vectorised()
	vp.blocks(len(dst), func(v vecView, lo, cnt int) {
		s, offs := v.state()
		for l := range cnt {
			for _, o := range offs {
				s[o+l] = 0
			}
		}
		for c := 0; c < m; c += Rate31 {
			n := min(Rate31, m-c)
			for l := range cnt {
				for i, x := range inputs[(lo+l)*m+c : (lo+l)*m+c+n] {
					s[offs[i]+l] = x
				}
			}
			v.monty(n)
			v.permute()
		}
		readDigests(v, dst[lo:lo+cnt])
	})
}

// readDigests sets each dst[l] to the first Digest31 elements of lane l.
func readDigests(v vecView, dst [][Digest31]uint32) {
	out := v.canonical(Digest31)
	_, offs := v.state()
	for l := range dst {
		d := &dst[l]
		for i := range d {
			d[i] = out[offs[i]+l]
		}
	}
}
