package selftestcmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// wgbenchCLI is selftest under wgbench's root, as the tests run it.
var wgbenchCLI = clitest.New(New)

func TestMain(m *testing.M) { clitest.Main(m, wgbenchCLI) }

// How the tests run wgbench and check its files.
var run = wgbenchCLI.Main
