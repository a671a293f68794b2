package ntt

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/consensys/gnark-crypto/field/babybear"
	bbfft "github.com/consensys/gnark-crypto/field/babybear/fft"
	"github.com/consensys/gnark-crypto/field/goldilocks"
	glfft "github.com/consensys/gnark-crypto/field/goldilocks/fft"
	"github.com/consensys/gnark-crypto/field/koalabear"
	kbfft "github.com/consensys/gnark-crypto/field/koalabear/fft"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/internal/base/par"
)

// transformCPU is the nil Context's transform: gnark-crypto's fft on each
// row, in its Montgomery form (data's, for form Montgomery, else
// converted in and out), the rows spread over the cores where they outnumber them and
// each FFT on all cores where they do not.
func transformCPU[E field.Element](fi fieldImpl, data []E, logN int, o Options, form Form) error {
	r, err := rootsOf(fi, logN, o)
	if err != nil {
		return err
	}
	n := 1 << logN
	rows := len(data) / n
	tasks := max(1, runtime.GOMAXPROCS(0)/rows)
	var run func(row []E)
	switch fi.Name() {
	case field.KoalaBear.Name():
		d := kbDomain(n, r, o)
		run = func(row []E) {
			a := unsafe.Slice((*koalabear.Element)(unsafe.Pointer(&row[0])), len(row))
			if form == Canonical {
				for i := range a {
					a[i].SetUint64(uint64(row[i]))
				}
			}
			gnarkRow(a, o, logN, d.FFT, d.FFTInverse, kbfft.DIF, kbfft.OnCoset(), kbfft.WithNbTasks(tasks))
			if form == Canonical {
				for i := range a {
					row[i] = E(a[i].Uint64())
				}
			}
		}
	case field.BabyBear.Name():
		d := bbDomain(n, r, o)
		run = func(row []E) {
			a := unsafe.Slice((*babybear.Element)(unsafe.Pointer(&row[0])), len(row))
			if form == Canonical {
				for i := range a {
					a[i].SetUint64(uint64(row[i]))
				}
			}
			gnarkRow(a, o, logN, d.FFT, d.FFTInverse, bbfft.DIF, bbfft.OnCoset(), bbfft.WithNbTasks(tasks))
			if form == Canonical {
				for i := range a {
					row[i] = E(a[i].Uint64())
				}
			}
		}
	case field.Goldilocks{}.Name():
		d := glDomain(n, r, o)
		run = func(row []E) {
			a := unsafe.Slice((*goldilocks.Element)(unsafe.Pointer(&row[0])), len(row))
			for i := range a {
				a[i].SetUint64(uint64(row[i]))
			}
			gnarkRow(a, o, logN, d.FFT, d.FFTInverse, glfft.DIF, glfft.OnCoset(), glfft.WithNbTasks(tasks))
			for i := range a {
				row[i] = E(a[i].Uint64())
			}
		}
	default:
		return fmt.Errorf("ntt: no CPU transform for %s", fi.Name())
	}
	par.For(rows, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			run(data[i*n : (i+1)*n])
		}
	})
	return nil
}

// gnarkRow runs one row through gnark-crypto's FFT or FFTInverse (fft,
// inv) as o says: DIF takes natural order to bit-reversed order, so the
// other orders reverse the row before or after it.
func gnarkRow[E any, D any, O any](a []E, o Options, logN int, fft, inv func([]E, D, ...O), dif D, coset, nb O) {
	if o.In == BitReversed {
		bitReverse(a, logN)
	}
	opts := []O{nb}
	if o.Coset {
		opts = append(opts, coset)
	}
	if o.Inverse {
		inv(a, dif, opts...)
	} else {
		fft(a, dif, opts...)
	}
	if o.Out == Natural {
		bitReverse(a, logN)
	}
}

// kbDomain returns gnark-crypto's KoalaBear domain of n with r's roots:
// precomputed where they are its defaults, else computed per call with
// the caller's root (Domain.Generator is what its FFT reads).
func kbDomain(n int, r roots, o Options) *kbfft.Domain {
	var g koalabear.Element
	g.SetUint64(r.g)
	if !o.Coset {
		g = kbfft.GeneratorFullMultiplicativeGroup()
	}
	if o.Root.IsZero() {
		return kbfft.NewDomain(uint64(n), kbfft.WithShift(g))
	}
	d := kbfft.NewDomain(uint64(n), kbfft.WithShift(g), kbfft.WithoutPrecompute())
	d.Generator.SetUint64(r.w)
	d.GeneratorInv.SetUint64(r.wInv)
	return d
}

// glDomain is kbDomain for Goldilocks.
func glDomain(n int, r roots, o Options) *glfft.Domain {
	var g goldilocks.Element
	g.SetUint64(r.g)
	if !o.Coset {
		g = glfft.GeneratorFullMultiplicativeGroup()
	}
	if o.Root.IsZero() {
		return glfft.NewDomain(uint64(n), glfft.WithShift(g))
	}
	d := glfft.NewDomain(uint64(n), glfft.WithShift(g), glfft.WithoutPrecompute())
	d.Generator.SetUint64(r.w)
	d.GeneratorInv.SetUint64(r.wInv)
	return d
}

// bbDomain is kbDomain for BabyBear.
func bbDomain(n int, r roots, o Options) *bbfft.Domain {
	var g babybear.Element
	g.SetUint64(r.g)
	if !o.Coset {
		g = bbfft.GeneratorFullMultiplicativeGroup()
	}
	if o.Root.IsZero() {
		return bbfft.NewDomain(uint64(n), bbfft.WithShift(g))
	}
	d := bbfft.NewDomain(uint64(n), bbfft.WithShift(g), bbfft.WithoutPrecompute())
	d.Generator.SetUint64(r.w)
	d.GeneratorInv.SetUint64(r.wInv)
	return d
}
