package main

import "testing"

// TestVectors recomputes every vector from Linea's code and compares it
// with the committed ones. Run it under both module files: go.mod builds
// Linea's code against gnark-crypto v0.22.0 (what a module importing
// wgcompute gets), go.pinned.mod against the pre-release Linea's prover
// pins; both must give the same vectors.
func TestVectors(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := compare("../../testdata/linea", files); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d vector files agree, gnark-crypto %s", len(files), gnarkCryptoVersion())
}
