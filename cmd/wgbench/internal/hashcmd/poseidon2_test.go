package hashcmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/poseidon2"
)

// poseidon2CLI is 'wgbench poseidon2' as the shared CLI tests run it.
var poseidon2CLI = cliHash{name: "poseidon2", merge: poseidon2.Merge, hashElements: poseidon2.HashElements,
	seed: 9, variant: "muldiag", lastVariant: "muldiag"}

func TestPoseidon2CLI(t *testing.T) { testElementHashCLI(t, poseidon2CLI) }

func TestPoseidon2CLIVariantAndDevices(t *testing.T) { testElementHashCLIVariant(t, poseidon2CLI) }

func TestPoseidon2CLIBadInput(t *testing.T) { testElementHashCLIBadInput(t, poseidon2CLI) }
