// Command wgbench runs wgcompute's kernels from the command line: hashing,
// Merkle trees, the eigenvalue solver, and the benchmark suite.
//
// main only wires the command tree: each command group is a package of
// cmd/wgbench/internal, whose constructors take the globals the root's
// persistent flags fill in (package cli, which also runs the tree). Nothing
// lives in package-level variables, so each test builds a fresh tree.
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/b3sum"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/bench"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/devices"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/eigencmd"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/hashcmd"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/merklecmd"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/nttcmd"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/selftestcmd"
)

// b3sumAlone reports whether args run b3sum with no global flag before
// it: such a run gets a tree of b3sum alone, and catches Ctrl-C late.
func b3sumAlone(args []string) bool { return len(args) > 0 && args[0] == "b3sum" }

// newRoot builds the wgbench command tree on the globals g.
func newRoot(g *cli.Globals) *cobra.Command {
	root := cli.NewRoot(g)
	if b3sumAlone(g.Args) {
		// b3sum alone: its help, usage errors and flags show nothing of
		// its sibling commands, and building theirs cost a few percent
		// of a b3sum of a small file (bench/results/HISTORY.md,
		// "Start-up on the 2-core CI machine"). A b3sum after a global
		// flag gets the whole tree, the same command.
		root.AddCommand(b3sum.New(g))
		return root
	}
	root.AddCommand(hashcmd.New(g)...)
	root.AddCommand(devices.New(g), b3sum.New(g), merklecmd.NewMerkle(g), merklecmd.NewCommit(g), merklecmd.NewOpen(g), eigencmd.New(g), bench.New(g), selftestcmd.New(g), nttcmd.NewNTT(g), nttcmd.NewEncode(g))
	return root
}

// globalsOf are the globals of a run of args.
func globalsOf(args []string) *cli.Globals {
	g := &cli.Globals{Args: args}
	if b3sumAlone(args) {
		g.CatchDelay = b3sum.CatchDelay
	}
	return g
}

// run runs wgbench with args and the given standard streams and returns
// the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(globalsOf(args), newRoot, stdin, stdout, stderr)
}

// runProcess is run as the whole process, which exits with the status
// returned: main, and the tests' wgbench processes.
func runProcess(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.RunProcess(globalsOf(args), newRoot, stdin, stdout, stderr)
}

func main() {
	os.Exit(runProcess(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
