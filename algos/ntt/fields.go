package ntt

import (
	"fmt"

	glfft "github.com/consensys/gnark-crypto/field/goldilocks/fft"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/u64emu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// Field is a field the transform runs over: field.BabyBear and
// field.KoalaBear (field.Monty31, uint32 elements), or Goldilocks (uint64
// elements).
type Field interface {
	Name() string
}

// Element is the Go type of a field's elements: uint32 for the 31-bit
// fields, uint64 for Goldilocks.
type Element interface {
	~uint32 | ~uint64
}

// GoldilocksField is the type of Goldilocks, p = 2^64 - 2^32 + 1.
type GoldilocksField struct{}

// Name returns "goldilocks".
func (GoldilocksField) Name() string { return "goldilocks" }

// Goldilocks is the field of p = 2^64 - 2^32 + 1, its elements uint64
// values below p, canonical on the device too.
var Goldilocks GoldilocksField

// ParseField returns the field named name: babybear, koalabear or
// goldilocks.
func ParseField(name string) (Field, error) {
	if name == Goldilocks.Name() {
		return Goldilocks, nil
	}
	f, err := field.ParseField(name)
	if err != nil {
		return nil, fmt.Errorf("ntt: no field %q: accepted are babybear, koalabear and goldilocks", name)
	}
	return f, nil
}

// fieldImpl is what the transform needs of a field, on uint64 values
// (every element fits one): the Go arithmetic of the tables and the
// references, gnark-crypto's defaults, and the kernels' form and files.
type fieldImpl interface {
	Name() string
	modulus() uint64
	mul(a, b uint64) uint64
	exp(a, e uint64) uint64
	twoAdicity() int
	defaultRoot(logN int) uint64
	defaultShift() uint64
	// kernel returns a canonical element in the kernels' form, as words.
	kernel(a uint64) (lo, hi uint32)
	elemBytes() int
	// module returns the field's file for ntt.wgsl and its constants.
	module() (string, []wgsl.Const)
}

// impl returns f's fieldImpl.
func impl(f Field) (fieldImpl, error) {
	switch g := f.(type) {
	case field.Monty31:
		return monty{g}, nil
	case GoldilocksField:
		return gold{}, nil
	}
	return nil, fmt.Errorf("ntt: no transform over %v: the fields are babybear, koalabear and goldilocks", f)
}

// implOf returns f's fieldImpl, checking that E is its elements' type.
func implOf[E Element](f Field) (fieldImpl, error) {
	var e E
	fi, err := impl(f)
	if err != nil {
		return nil, err
	}
	if size := bytesOf(e); size != fi.elemBytes() {
		return nil, fmt.Errorf("ntt: %s elements are %d bytes, not %d", fi.Name(), fi.elemBytes(), size)
	}
	return fi, nil
}

// bytesOf returns the size of an E.
func bytesOf[E Element](e E) int {
	if uint64(^E(0)) == 1<<32-1 {
		return 4
	}
	return 8
}

// inverse returns a^-1 for a nonzero a.
func inverse(fi fieldImpl, a uint64) uint64 {
	return fi.exp(a, fi.modulus()-2)
}

// monty is the fieldImpl of BabyBear and KoalaBear.
type monty struct{ f field.Monty31 }

func (m monty) Name() string             { return m.f.Name() }
func (m monty) modulus() uint64          { return uint64(m.f.P()) }
func (m monty) mul(a, b uint64) uint64   { return uint64(m.f.Mul(uint32(a), uint32(b))) }
func (m monty) exp(a, e uint64) uint64   { return uint64(m.f.Exp(uint32(a), e)) }
func (m monty) twoAdicity() int          { return TwoAdicity(m.f) }
func (m monty) defaultRoot(k int) uint64 { return uint64(defaultRoot(m.f, k)) }
func (m monty) defaultShift() uint64     { return uint64(defaultShift(m.f)) }
func (m monty) kernel(a uint64) (uint32, uint32) {
	return m.f.ToMonty(uint32(a)), 0
}
func (m monty) elemBytes() int { return 4 }
func (m monty) module() (string, []wgsl.Const) {
	return "ntt_monty31.wgsl", m.f.Consts()
}

// gold is the fieldImpl of Goldilocks, on u64emu's arithmetic.
type gold struct{}

func (gold) Name() string           { return Goldilocks.Name() }
func (gold) modulus() uint64        { return u64emu.P }
func (gold) mul(a, b uint64) uint64 { return u64emu.Mul(a, b) }
func (gold) exp(a, e uint64) uint64 { return u64emu.Exp(a, e) }
func (gold) twoAdicity() int        { return 32 }
func (gold) defaultRoot(k int) uint64 {
	w, _ := glfft.Generator(uint64(1) << k)
	return w.Uint64()
}
func (gold) defaultShift() uint64 {
	g := glfft.GeneratorFullMultiplicativeGroup()
	return g.Uint64()
}
func (gold) kernel(a uint64) (uint32, uint32) { return uint32(a), uint32(a >> 32) }
func (gold) elemBytes() int                   { return 8 }
func (gold) module() (string, []wgsl.Const)   { return "ntt_goldilocks.wgsl", nil }
