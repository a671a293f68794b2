package merklecmd

import (
	"testing"

	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
)

// wgbenchCLI is merkle, commit and open under wgbench's root, as the tests run it.
var wgbenchCLI = clitest.New(NewMerkle, NewCommit, NewOpen)

func TestMain(m *testing.M) { clitest.Main(m, wgbenchCLI) }

// How the tests run wgbench and check its files.
var wgbench, wgbenchIn, wgbenchOn, wgbenchWith, runCLI, requireInputError, wgbenchProcess, mustRead, requireFile, requireNoTemp = wgbenchCLI.Run, wgbenchCLI.In, wgbenchCLI.On, wgbenchCLI.With, wgbenchCLI.Exit, wgbenchCLI.RequireInputError, clitest.Process, clitest.MustRead, clitest.RequireFile, clitest.RequireNoTemp
