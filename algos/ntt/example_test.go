package ntt_test

import (
	"fmt"

	"github.com/consensys/gnark-crypto/field/koalabear"
	"github.com/wgcompute/wgcompute/algos/field"
	"github.com/wgcompute/wgcompute/algos/ntt"
	"github.com/wgcompute/wgcompute/wgpu"
)

// The transform of rows in host memory, on the GPU or (ctx nil) on the
// CPU: each row of 8 KoalaBear elements evaluated at the 8th roots of
// unity, in natural order.
func ExampleTransform() {
	rows := []uint32{1, 2, 3, 4, 0, 0, 0, 0}
	if err := ntt.Transform(nil, field.KoalaBear, rows, 3, ntt.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rows[0]) // the sum of the coefficients
	// Output: 10
}

// gnark-crypto's elements in and out, as they are in memory, and a
// gnark-crypto element as the coset's shift: the polynomial x evaluated
// on 5·<w>, w of order 8, whose first point is 5.
func ExampleTransformMonty() {
	rows := make([]koalabear.Element, 8)
	rows[1].SetOne() // x
	var g koalabear.Element
	g.SetUint64(5)
	err := ntt.TransformMonty(nil, field.KoalaBear, rows, 3, ntt.Options{Coset: true, Shift: ntt.KoalaBear(g)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rows[0].String())
	// Output: 5
}

// Reed-Solomon encoding of gnark-crypto's elements as its vortex
// Params.EncodeReedSolomon does it: at rate 2, the even places of the
// codeword are the row itself.
func ExampleEncodeReedSolomonMonty() {
	row := make([]koalabear.Element, 4)
	for i := range row {
		row[i].SetUint64(uint64(i + 1))
	}
	code := make([]koalabear.Element, 2*len(row))
	if err := ntt.EncodeReedSolomonMonty(nil, field.KoalaBear, code, row, 2, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(code[0].String(), code[2].String(), code[4].String(), code[6].String())
	// Output: 1 2 3 4
}

// Reed-Solomon encoding on the device, its codewords left there for the
// next kernels (a commitment's leaves): one upload, no read-back.
func ExampleExtender() {
	ctx, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	const logN, rows, rate = 10, 4, 2
	src := make([]uint32, rows<<logN) // canonical KoalaBear elements
	e, err := ntt.NewExtender(ctx, field.KoalaBear, logN, ntt.ExtendOptions{Rate: rate})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Release()
	in, _ := ctx.NewBuffer("polynomials", 4*uint64(len(src)))
	defer in.Release()
	out, _ := ctx.NewBuffer("codewords", 4*rate*uint64(len(src)))
	defer out.Release()
	if err := ctx.Upload(in, 0, wgpu.Bytes(src)); err != nil {
		fmt.Println(err)
		return
	}
	ds, err := e.Dispatches(wgpu.Bind(in), wgpu.Bind(out), rows, ntt.Canonical)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ctx.Run(ds...); err != nil {
		fmt.Println(err)
	}
	// out holds rows codewords of rate<<logN canonical elements.
}
