// Command gen writes pseudo-random inputs for the GPU runs in bench/results
// to stdout, from a fixed xorshift seed: "64 N" writes N uint64 below 2^63
// (canonical Goldilocks elements and digests), "31 N" N uint32 below 2^30
// (canonical BabyBear and KoalaBear elements), "raw N" N bytes. Bad
// arguments get a usage message.
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		usage()
	}
	kind := os.Args[1]
	n, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil || n < 0 || (kind != "64" && kind != "31" && kind != "raw") {
		usage()
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<22)
	defer w.Flush()
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	var b [8]byte
	switch kind {
	case "64":
		for i := int64(0); i < n; i++ {
			binary.LittleEndian.PutUint64(b[:], next()>>1)
			w.Write(b[:])
		}
	case "31":
		for i := int64(0); i < n; i++ {
			binary.LittleEndian.PutUint32(b[:4], uint32(next()>>34))
			w.Write(b[:4])
		}
	case "raw":
		for i := int64(0); i < n; i += 8 {
			binary.LittleEndian.PutUint64(b[:], next())
			w.Write(b[:min(8, n-i)])
		}
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gen 64|31|raw COUNT (COUNT uint64 below 2^63, uint32 below 2^30, or bytes)")
	os.Exit(2)
}
