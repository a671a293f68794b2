package blake3_test

import (
	"fmt"
	"log"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
)

// The README's example: hash on the device of ctx (here nil, the CPU;
// wgpu.Open gives a GPU) with the same result as the reference.
func ExampleSum() {
	var ctx *wgpu.Context
	data := []byte("abc")

	sum, err := blake3.Sum(ctx, data) // BLAKE3 on the GPU, equal to blake3.Sum256(data)
	if err != nil {
		log.Fatal(err)
	}

	fmt.Printf("%x\n", sum)
	fmt.Println(sum == blake3.Sum256(data))
	// Output:
	// 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85
	// true
}

// Records of one size, each hashed on its own.
func ExampleSumMany() {
	var ctx *wgpu.Context
	records := make([]byte, 3*100)

	// Many inputs of one length, each its own BLAKE3 hash (one GPU invocation each).
	digests := make([][32]byte, len(records)/100)
	err := blake3.SumMany(ctx, digests, records, 100, blake3.Options{})
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println(len(digests), digests[2] == blake3.Sum256(records[200:300]))
	// Output:
	// 3 true
}
