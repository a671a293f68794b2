package hashcmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// wgbenchCLI is every hash command under wgbench's root, as the tests run it.
var wgbenchCLI = clitest.NewAll(New)

func TestMain(m *testing.M) { clitest.Main(m, wgbenchCLI) }

// How the tests run wgbench and check its files.
var wgbench, wgbenchOn, run, requireFile, requireNoTemp = wgbenchCLI.Run, wgbenchCLI.On, wgbenchCLI.Main, clitest.RequireFile, clitest.RequireNoTemp
