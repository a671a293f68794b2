package u64emu

// The model: a line-by-line Go transcription of wgsl/goldilocks.wgsl. Each
// function performs the same u32 operations, in the same order, as the WGSL
// function of the same name (glMul is goldilocks_mul, ...), so that tests of the
// model against the native reference vouch for the shader's arithmetic and
// a reader can check one against the other. Go's uint32 arithmetic wraps
// like WGSL's u32.

// vec2 is WGSL's vec2<u32>: x = low word, y = high word.
type vec2 struct{ x, y uint32 }

func toVec2(a uint64) vec2    { return vec2{uint32(a), uint32(a >> 32)} }
func (v vec2) uint64() uint64 { return uint64(v.y)<<32 | uint64(v.x) }

// b2u is WGSL's u32(bool).
func b2u(c bool) uint32 {
	if c {
		return 1
	}
	return 0
}

// sel is WGSL's select(f, t, cond).
func sel(f, t vec2, cond bool) vec2 {
	if cond {
		return t
	}
	return f
}

func glCanon(a vec2) vec2 {
	over := a.y == 0xffffffff && a.x != 0
	return sel(a, vec2{a.x - 1, 0}, over)
}

func glAdd(a, b vec2) vec2 {
	lo := a.x + b.x
	c := b2u(lo < a.x)
	hi := a.y + (b.y + c)
	over := hi < a.y || (hi == 0xffffffff && lo != 0)
	return sel(vec2{lo, hi}, vec2{lo - 1, hi + b2u(lo != 0)}, over)
}

func glSub(a, b vec2) vec2 {
	lo := a.x - b.x
	br := b2u(a.x < b.x)
	bh := b.y + br
	hi := a.y - bh
	return sel(vec2{lo, hi}, vec2{lo + 1, hi - b2u(lo != 0xffffffff)}, a.y < bh)
}

func glNeg(a vec2) vec2 {
	return glSub(vec2{0, 0}, a)
}

func glMul32(a, b uint32) vec2 {
	al := a & 0xffff
	ah := a >> 16
	bl := b & 0xffff
	bh := b >> 16
	t := al*bh + ((al * bl) >> 16)
	u := ah*bl + (t & 0xffff)
	hi := ah*bh + (t >> 16) + (u >> 16)
	return vec2{a * b, hi}
}

func glReduce96Lazy(lo, mid, hi uint32) vec2 {
	tx := 0 - hi
	ty := hi - b2u(hi != 0)
	x := lo + tx
	yadd := ty + b2u(x < lo)
	y := mid + yadd
	return sel(vec2{x, y}, vec2{x - 1, y + b2u(x != 0)}, y < mid)
}

func glReduce96(lo, mid, hi uint32) vec2 {
	return glCanon(glReduce96Lazy(lo, mid, hi))
}

func glReduce128Lazy(r0, r1, r2, r3 uint32) vec2 {
	x := r0 - r3
	b := b2u(r0 < r3)
	y := r1 - b
	under := b > r1
	t := sel(vec2{x, y}, vec2{x + 1, y - b2u(x != 0xffffffff)}, under)
	return glReduce96Lazy(t.x, t.y, r2)
}

func glReduce128(r0, r1, r2, r3 uint32) vec2 {
	return glCanon(glReduce128Lazy(r0, r1, r2, r3))
}

func glMulLazy(a, b vec2) vec2 {
	A := glMul32(a.x, b.x)
	B := glMul32(a.x, b.y)
	C := glMul32(a.y, b.x)
	D := glMul32(a.y, b.y)
	h := A.y + B.x
	r1 := h + C.x
	k := b2u(h < B.x) + b2u(r1 < C.x)
	m := B.y + C.y
	n := m + D.x
	r2 := n + k
	r3 := D.y + b2u(m < C.y) + b2u(n < D.x) + b2u(r2 < k)
	return glReduce128Lazy(A.x, r1, r2, r3)
}

func glMul(a, b vec2) vec2 {
	return glCanon(glMulLazy(a, b))
}

func glSquareLazy(a vec2) vec2 {
	A := glMul32(a.x, a.x)
	B := glMul32(a.x, a.y)
	D := glMul32(a.y, a.y)
	h := A.y + B.x
	r1 := h + B.x
	k := b2u(h < B.x) + b2u(r1 < B.x)
	m := B.y + B.y
	n := m + D.x
	r2 := n + k
	r3 := D.y + b2u(m < B.y) + b2u(n < D.x) + b2u(r2 < k)
	return glReduce128Lazy(A.x, r1, r2, r3)
}

func glSquare(a vec2) vec2 {
	return glCanon(glSquareLazy(a))
}

func glMulSmall(a vec2, c uint32) vec2 {
	A := glMul32(a.x, c)
	C := glMul32(a.y, c)
	mid := A.y + C.x
	hi := C.y + b2u(mid < C.x)
	return glReduce96(A.x, mid, hi)
}

func glPow7(a vec2) vec2 {
	a2 := glSquareLazy(a)
	a3 := glMulLazy(a2, a)
	a4 := glSquareLazy(a2)
	return glMul(a4, a3)
}

func glExpAccLazy(base vec2, m uint32, tail vec2) vec2 {
	r := base
	for i := uint32(0); i < m; i++ {
		r = glSquareLazy(r)
	}
	return glMulLazy(r, tail)
}

func glInvPow7(a vec2) vec2 {
	t1 := glSquareLazy(a)
	t2 := glSquareLazy(t1)
	t3 := glExpAccLazy(t2, 3, t2)
	t4 := glExpAccLazy(t3, 6, t3)
	t5 := glExpAccLazy(t4, 12, t4)
	t6 := glExpAccLazy(t5, 6, t3)
	t7 := glExpAccLazy(t6, 31, t6)
	x := glSquareLazy(glSquareLazy(glMulLazy(glSquareLazy(t7), t6)))
	y := glMulLazy(glMulLazy(t1, t2), a)
	return glMul(x, y)
}
