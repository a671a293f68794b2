package main

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/rescue"
)

// runRescue runs 'wgbench rescue args...' and returns stdout and the error
// RunE returned.
func runRescue(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	return rescueCLI.run(t, args...)
}

// rescueCLI is 'wgbench rescue' as the shared CLI tests run it.
var rescueCLI = cliHash{name: "rescue", merge: rescue.Merge, hashElements: rescue.HashElements,
	seed: 7, variant: "vec4", lastVariant: "arkworkgroup"}

// digestBytes is the reference output of 'wgbench rescue hash'.
func digestBytes(els []uint64, m int) []byte { return rescueCLI.digestBytes(els, m) }

func TestRescueCLI(t *testing.T) { testElementHashCLI(t, rescueCLI) }

func TestRescueCLIVariant(t *testing.T) { testElementHashCLIVariant(t, rescueCLI) }

func TestRescueCLIBadInput(t *testing.T) { testElementHashCLIBadInput(t, rescueCLI) }
