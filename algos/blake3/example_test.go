package blake3_test

import (
	"fmt"
	"log"

	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/wgpu"
)

// The README's example: open the default adapter and hash on the GPU.
func ExampleSum() {
	ctx, err := wgpu.Open(wgpu.Options{})
	if err != nil {
		log.Fatal(err) // says how to get an adapter when there is none
	}
	defer ctx.Close()

	sum, err := blake3.Sum(ctx, []byte("abc"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x\n", sum)
	fmt.Println(sum == blake3.Sum256([]byte("abc")))
	// Output:
	// 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85
	// true
}
