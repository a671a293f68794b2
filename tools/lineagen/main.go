// Command lineagen writes golden vectors of Linea's Vortex commitment
// (linea-monorepo's prover/crypto/vortex/vortex_koalabear) from Linea's own
// code: the roots, column hashes, trees and encoded matrices of
// CommitMerkleWithSIS and CommitMerkleWithoutSIS, and whole round proofs of
// Prove, each checked by Linea's Verify (and tampered copies rejected by it).
//
//	lineagen -out DIR     writes the vectors into DIR
//	lineagen -check DIR   recomputes them and compares with those in DIR
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
	flag.Parse()
	if (*out == "") == (*check == "") {
		fmt.Fprintln(os.Stderr, "lineagen: give one of -out DIR or -check DIR")
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
