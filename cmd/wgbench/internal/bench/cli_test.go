package bench

import (
	"testing"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// wgbenchCLI is bench under wgbench's root, as the tests run it.
var wgbenchCLI = clitest.New(New)

func TestMain(m *testing.M) { clitest.Main(m, wgbenchCLI) }

// How the tests run wgbench and check its files.
var wgbench, mustRead, requireNoTemp = wgbenchCLI.Run, clitest.MustRead, clitest.RequireNoTemp
