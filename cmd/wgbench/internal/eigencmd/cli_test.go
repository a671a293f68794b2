package eigencmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// wgbenchCLI is eigen under wgbench's root, as the tests run it.
var wgbenchCLI = clitest.New(New)

func TestMain(m *testing.M) { clitest.Main(m, wgbenchCLI) }

// How the tests run wgbench and check its files.
var wgbench, requireInputError = wgbenchCLI.Run, wgbenchCLI.RequireInputError
