package hashcmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/algos/rescue"
)

// rescueCLI is 'wgbench rescue' as the shared CLI tests run it.
var rescueCLI = cliHash{name: "rescue", merge: rescue.Merge, hashElements: rescue.HashElements,
	seed: 7, variant: "vec4", lastVariant: "arkworkgroup"}

func TestRescueCLI(t *testing.T) { testElementHashCLI(t, rescueCLI) }

func TestRescueCLIVariant(t *testing.T) { testElementHashCLIVariant(t, rescueCLI) }

func TestRescueCLIBadInput(t *testing.T) { testElementHashCLIBadInput(t, rescueCLI) }
