// Command lineagen writes golden vectors of Linea's Vortex commitment
// (linea-monorepo's prover/crypto/vortex/vortex_koalabear) from Linea's own
// code: the roots, column hashes, trees and encoded matrices of
// CommitMerkleWithSIS and CommitMerkleWithoutSIS, and whole round proofs of
// Prove, each checked by Linea's Verify (and tampered copies rejected by it).
//
//	lineagen -out DIR     writes the vectors into DIR
//	lineagen -check DIR   recomputes them and compares with those in DIR
//	lineagen -bench ROWSxCOLS [-rate R] [-sis D,B] [-no-sis] [-reps N]
//	                      times Linea's own commit of random rows of that shape
//
// It lives outside the wgcompute module: Linea's prover and the gnark it
// pins are not served by any module proxy, so go.mod replaces them with
// source trees laid out by setup.sh (see README.md).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "", "folder to write the vectors into")
	check := flag.String("check", "", "folder whose vectors to recompute and compare")
	shape := flag.String("bench", "", "ROWSxCOLS: time Linea's commit of that shape")
	rate := flag.Int("rate", 2, "-bench: the code's inverse rate")
	sisFlag := flag.String("sis", "9,16", "-bench: the SIS log2 degree and log2 bound")
	noSIS := flag.Bool("no-sis", false, "-bench: commit without SIS")
	reps := flag.Int("reps", 3, "-bench: repetitions")
	flag.Parse()
	if *shape != "" {
		var rows, cols, d, b int
		if _, err := fmt.Sscanf(*shape, "%dx%d", &rows, &cols); err != nil {
			fmt.Fprintln(os.Stderr, "lineagen: -bench takes ROWSxCOLS, e.g. 512x65536:", err)
			os.Exit(2)
		}
		if _, err := fmt.Sscanf(*sisFlag, "%d,%d", &d, &b); err != nil {
			fmt.Fprintln(os.Stderr, "lineagen: -sis takes D,B, e.g. 9,16:", err)
			os.Exit(2)
		}
		if err := bench(rows, cols, *rate, d, b, *noSIS, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "lineagen:", err)
			os.Exit(1)
		}
		return
	}
	if (*out == "") == (*check == "") {
		fmt.Fprintln(os.Stderr, "lineagen: give one of -out DIR, -check DIR or -bench ROWSxCOLS")
		os.Exit(2)
	}
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lineagen:", err)
		os.Exit(1)
	}
	if *out != "" {
		err = write(*out, files)
	} else {
		err = compare(*check, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lineagen:", err)
		os.Exit(1)
	}
}
