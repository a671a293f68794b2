package ntt

import (
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/sched"
	"github.com/wgcompute/wgcompute/wgsl"
)

// kernelFiles maps a field's WGSL library (field.Field.Library) to the
// file that adapts ntt.wgsl to it: the element's form in the kernels and
// its butterflies. A field is transformed on the GPU once its library has
// an entry here.
var kernelFiles = map[string]string{
	field.BabyBear.Library():     "ntt_monty31.wgsl",
	field.Goldilocks{}.Library(): "ntt_goldilocks.wgsl",
}

// fieldImpl is a field as the transform's tables, references and kernels
// use it, on uint64 values (every element fits one).
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
	// fromMonty returns the canonical value of w, a Montgomery word below
	// p, and false for a field that has no Montgomery form here.
	fromMonty(w uint64) (uint64, bool)
	elemBytes() int
	// module returns the field's file for ntt.wgsl and its constants.
	module() (string, []wgsl.Const)
}

// over is the fieldImpl of a field.Field: its arithmetic, its two-adic
// generators (gnark-crypto's fft.Generator and
// GeneratorFullMultiplicativeGroup, bit for bit) and its WGSL library.
type over[E field.Element] struct{ f field.Field[E] }

// montyForm is a field whose kernels hold elements in Montgomery form
// (field.Monty31).
type montyForm interface {
	ToMonty(a uint32) uint32
	FromMonty(w uint32) uint32
}

func (o over[E]) Name() string           { return o.f.Name() }
func (o over[E]) modulus() uint64        { return o.f.Modulus() }
func (o over[E]) mul(a, b uint64) uint64 { return uint64(o.f.Mul(E(a), E(b))) }
func (o over[E]) exp(a, e uint64) uint64 { return uint64(o.f.Exp(E(a), e)) }
func (o over[E]) twoAdicity() int        { return o.f.TwoAdicity() }
func (o over[E]) defaultRoot(k int) uint64 {
	w, _ := o.f.TwoAdicGenerator(k) // k is checked against twoAdicity first
	return uint64(w)
}
func (o over[E]) defaultShift() uint64 { return uint64(o.f.Generator()) }
func (o over[E]) kernel(a uint64) (uint32, uint32) {
	if m, ok := o.f.(montyForm); ok {
		return m.ToMonty(uint32(a)), 0
	}
	return uint32(a), uint32(a >> 32)
}
func (o over[E]) fromMonty(w uint64) (uint64, bool) {
	if m, ok := o.f.(montyForm); ok {
		return uint64(m.FromMonty(uint32(w))), true
	}
	return 0, false
}
func (o over[E]) elemBytes() int { return field.ElementSize[E]() }
func (o over[E]) module() (string, []wgsl.Const) {
	return kernelFiles[o.f.Library()], o.f.Consts()
}

// implOf returns f's fieldImpl, or an error for a field the transform has
// no kernels for.
func implOf[E field.Element](f field.Field[E]) (fieldImpl, error) {
	if f == nil {
		return nil, fmt.Errorf("ntt: no field given: the fields are babybear, koalabear and goldilocks")
	}
	if _, ok := kernelFiles[f.Library()]; !ok {
		return nil, fmt.Errorf("ntt: no transform over %s: the fields are babybear, koalabear and goldilocks", f.Name())
	}
	return over[E]{f}, nil
}

// deviceAndField returns t's one device (nil for the CPU) and f's
// fieldImpl for an entry point that what names in its errors ("Transform",
// "a Plan").
func deviceAndField[E field.Element](t wgpu.Target, f field.Field[E], what string) (*wgpu.Context, fieldImpl, error) {
	ctx, err := sched.OneDevice(t)
	if err != nil {
		return nil, nil, fmt.Errorf("ntt: %s %w", what, err)
	}
	fi, err := implOf(f)
	if err != nil {
		return nil, nil, err
	}
	return ctx, fi, nil
}

// inverse returns a^-1 for a nonzero a.
func inverse(fi fieldImpl, a uint64) uint64 {
	return fi.exp(a, fi.modulus()-2)
}
