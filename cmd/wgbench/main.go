// Command wgbench runs wgcompute's kernels from the command line: hashing,
// Merkle trees, the eigenvalue solver, and the benchmark suite.
//
// newRootCmd builds the command tree: every subcommand comes from a
// newXxxCmd constructor, one per file, that takes the globals the root's
// persistent flags fill in. Nothing lives in package-level variables, so
// each test builds a fresh tree.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/wgpu"
)

// globals is the configuration every subcommand shares.
type globals struct {
	// gpu holds --backend and --adapter.
	gpu wgpu.Options
	// args are the command-line arguments, for the Command line of bench
	// results.
	args []string
}

// openContext opens the adapter the global flags choose.
func (g *globals) openContext() (*wgpu.Context, error) {
	return wgpu.Open(g.gpu)
}

// newRootCmd builds the wgbench command tree with its own globals.
func newRootCmd() *cobra.Command {
	return newRoot(&globals{})
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "wgbench",
		Short: "GPU hashing, Merkle trees and an eigenvalue solver through WebGPU",
		Long: `wgbench runs wgcompute's WebGPU kernels: BLAKE3, Rescue Prime, Merkle trees and
the dominant eigenpair of a positive matrix, on any Vulkan, Metal, D3D12 or GL GPU.

The adapter is chosen by --backend and --adapter, or by the environment
variables WGCOMPUTE_BACKEND and WGCOMPUTE_ADAPTER; by default the
high-performance adapter is used. 'wgbench devices' lists them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.gpu.Backend, "backend", "", "backend: vulkan, gl, metal, dx12, or cpu for the plain-Go reference (default: any; env WGCOMPUTE_BACKEND)")
	pf.StringVar(&g.gpu.Adapter, "adapter", "", "adapter index or name substring (env WGCOMPUTE_ADAPTER)")
	root.AddCommand(newDevicesCmd(g), newB3sumCmd(g), newRescueCmd(g), newMerkleCmd(g), newEigenCmd(g), newBenchCmd(g))
	return root
}

// exitError carries a process exit code through cobra without printing.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// run runs wgbench with args and the given standard streams and returns
// the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(&globals{args: args})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(stderr, "wgbench:", err)
	return 2
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
