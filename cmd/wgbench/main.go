// Command wgbench runs wgcompute's kernels from the command line: hashing,
// Merkle trees, the eigenvalue solver, and the benchmark suite.
//
// Subcommands live one per file and register themselves on rootCmd in an
// init function.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/wgpu"
)

// globalOpts are the persistent flags every subcommand shares.
var globalOpts wgpu.Options

var rootCmd = &cobra.Command{
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

func init() {
	rootCmd.PersistentFlags().StringVar(&globalOpts.Backend, "backend", "", "backend: vulkan, gl, metal or dx12 (default: any; env WGCOMPUTE_BACKEND)")
	rootCmd.PersistentFlags().StringVar(&globalOpts.Adapter, "adapter", "", "adapter index or name substring (env WGCOMPUTE_ADAPTER)")
}

// openContext opens the adapter the global flags choose.
func openContext() (*wgpu.Context, error) {
	return wgpu.Open(globalOpts)
}

// exitError carries a process exit code through cobra without printing.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	if err := rootCmd.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "wgbench:", err)
		os.Exit(2)
	}
}
