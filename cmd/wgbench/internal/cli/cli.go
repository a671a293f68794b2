// Package cli is what wgbench's commands share: the globals the root's
// persistent flags fill in (Globals), opening the devices they choose,
// reading inputs and writing outputs, progress bars, Ctrl-C, the
// address-space checks, and the root command that runs a tree of them
// (NewRoot, Run). Each command group is a package beside it that imports
// it and no other command's.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/internal/base/procstart"
	"github.com/wgcompute/wgcompute/internal/base/trace"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/envopts"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// Globals is the configuration every subcommand shares.
type Globals struct {
	// GPU holds --backend, --adapter and --devices, and what the
	// WGCOMPUTE_* variables set (FromEnv).
	GPU wgpu.Options
	// Trace is --trace: print where the time went on standard error.
	Trace bool
	// Args are the command-line arguments, for the Command line of bench
	// results.
	Args []string
	// Memory is how many bytes of host memory a command may fill with its
	// input and results; 0 means what the host has available now.
	Memory int64
	// Group, when set, is the devices of every command that --devices
	// would open, left open: tests split work over one device several
	// times, which --devices (an adapter named once) cannot ask for.
	Group *sched.Group
	// Quiet is --quiet: no progress bars on standard error.
	Quiet bool
	// Bars are the progress bars drawn now, cleared before a message.
	Bars LiveBars
	// Process is set by RunProcess alone: wgbench is the whole process,
	// which exits when the command returns (see Opening.Close).
	Process bool
	// CatchDelay is how long the command runs before Ctrl-C is caught
	// (interruptible); 0: from the start.
	CatchDelay time.Duration
}

// HostMemory is the bound on what a command holds in host memory.
func (g *Globals) HostMemory() int64 {
	if g.Memory == 0 {
		g.Memory = AvailableMemory()
	}
	return g.Memory
}

// FromEnv fills in, from the WGCOMPUTE_* variables (envopts.Load, the
// one place wgbench reads them), the settings the flags leave open: a
// flag given wins over its variable. It is run before every command, so
// that a command that opens no device refuses a bad variable as one that
// does.
func (g *Globals) FromEnv() error {
	env, err := envopts.Load()
	if err != nil {
		return err
	}
	flags := g.GPU
	g.GPU = env.Options
	for _, f := range []struct{ flag, field *string }{
		{&flags.Backend, &g.GPU.Backend}, {&flags.Adapter, &g.GPU.Adapter}, {&flags.Devices, &g.GPU.Devices},
	} {
		if *f.flag != "" {
			*f.field = *f.flag
		}
	}
	return nil
}

// OpenContext opens the adapter the global flags choose, as OpenAdapter
// does.
func (g *Globals) OpenContext() (*wgpu.Context, error) {
	if err := g.GPUSpaceError(g.GPU); err != nil {
		return nil, err
	}
	return OpenAdapter(g.GPU)
}

// Opening is the devices of a command being opened on another goroutine while
// the command reads its input: the driver's set-up, a large part of a
// one-shot command (wgbench --trace merkle; bench/results/HISTORY.md,
// "One-shot commands"), then overlaps the read instead of following it. It is
// a Group: the GPUs --devices names, or a Group of the one adapter the flags
// choose (nil for the CPU backend), which every library call on a Group takes
// as that one device.
type Opening struct {
	done chan struct{}
	grp  *sched.Group
	err  error
	// exits: the process ends after the command (Globals.Process), so
	// Close leaves the devices to the exit (see there).
	exits bool
}

// ExtraDevicesCost is what opening more devices than one adds to a
// command that opens them for one piece of work: requesting the devices,
// their staging, and the exit, which frees every device's memory and
// grows with the devices. Measured on two H200s (BENCHMARKS.md, "Several
// GPUs, one instance"), a second device paid only where it saved more
// than this.
const ExtraDevicesCost = 250 * time.Millisecond

// OpenSoon starts opening what the global flags choose (wgpu.Choose) for
// work that one device would finish in about work (0: unknown, or work
// the command runs on one device): several GPUs only where splitting the
// work over them saves more than opening them costs (wgpu.Choice.Fit),
// so that --devices all is never slower than one GPU by its set-up.
func (g *Globals) OpenSoon(work time.Duration) *Opening {
	o := &Opening{done: make(chan struct{}), exits: g.Process}
	go func() {
		defer close(o.done)
		if g.Group != nil {
			o.grp = g.Group
			return
		}
		if o.err = g.GPUSpaceError(g.GPU); o.err != nil {
			return
		}
		ch, err := wgpu.Choose(g.GPU)
		if err != nil {
			o.err = err
			return
		}
		o.grp, o.err = sched.Open(ch.Fit(work, ExtraDevicesCost))
	}()
	return o
}

// UploadRate is the host-to-GPU rate a one-shot command's input goes up
// at, end to end, staging included: measured with wgbench --trace merkle
// on NVIDIA (BENCHMARKS.md, "Transfers"; the run in
// bench/results/HISTORY.md, "Figures moved from code comments").
const UploadRate = 13e9

// OneDeviceWork estimates the time one GPU takes for the input file in
// of hash h, per bytes per permutation (a leaf: 32 bytes; a
// record of field elements: its bytes over the 8 a permutation absorbs):
// its upload and its permutations at the hash's measured rate
// (registry.Hash.PermuteNanos). Zero when the file or the rate is
// unknown; the command then opens one device.
func OneDeviceWork(h registry.Hash, in string, bytesPerPermutation float64) time.Duration {
	fi, err := os.Stat(in)
	if err != nil || h.PermuteNanos == 0 || bytesPerPermutation <= 0 {
		return 0
	}
	size := float64(fi.Size())
	return time.Duration(size/UploadRate*1e9 + size/bytesPerPermutation*h.PermuteNanos)
}

// Wait returns the opened Group.
func (o *Opening) Wait() (*sched.Group, error) {
	<-o.done
	return o.grp, o.err
}

// Close closes what was opened, waiting for the opening to end (a Group of
// Globals.Group is left open: sched.NewGroup's Close does nothing). In a
// process that exits next it closes nothing: Close waits for the device to go
// idle and releases the staging ring and the pooled buffers one by one, which
// takes tens of milliseconds after merkle (bench/results/HISTORY.md, "Figures
// moved from code comments"), all of which the exit frees at once. The
// command's results have been read back by then.
func (o *Opening) Close() {
	<-o.done
	if o.exits {
		LeftToExit()
		return
	}
	o.grp.Close()
}

// CloseContext closes ctx as Opening.Close does: not in a process that
// exits next.
func (g *Globals) CloseContext(ctx *wgpu.Context) {
	if g.Process {
		LeftToExit()
		return
	}
	ctx.Close()
}

// LeftToExit marks in the trace where a command would have closed its
// devices.
func LeftToExit() { wgpu.Span("close: left to the process exit")(0) }

// OpenAdapter opens the adapter o chooses. The CPU backend (--backend cpu,
// or WGCOMPUTE_BACKEND=cpu) is a nil Context, which every library call
// takes as the CPU: the plain-Go code on all cores. Close is safe on it.
func OpenAdapter(o wgpu.Options) (*wgpu.Context, error) {
	ctx, err := wgpu.Open(o)
	if errors.Is(err, wgpu.ErrCPUBackend) {
		return nil, nil
	}
	return ctx, err
}

// Tree builds a wgbench command tree on the globals g: NewRoot and the
// commands under it.
type Tree func(g *Globals) *cobra.Command

// NewRoot returns the wgbench root command on the globals g, its
// persistent flags and what they set before every command, without its
// subcommands, which the caller adds.
func NewRoot(g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "wgbench",
		Short: "GPU hashing, Merkle trees, NTT, Reed-Solomon, Vortex and an eigenvalue solver through WebGPU",
		Long: `wgbench runs wgcompute's WebGPU kernels on any Vulkan, Metal, D3D12 or GL
GPU: BLAKE3, Rescue Prime (Rp64_256 and RPO256) and Poseidon2 (Goldilocks,
BabyBear, KoalaBear, and gnark-crypto's), Merkle trees and matrix
commitments of them (merkle, commit); the number-theoretic transform over
BabyBear, KoalaBear and Goldilocks (ntt) and Reed-Solomon encoding
(encode); gnark-crypto's Vortex commitment over KoalaBear (commit --scheme
vortex); and the dominant eigenpair of a positive matrix (eigen). bench
times each, selftest checks each against the CPU reference.

The adapter is chosen by --backend and --adapter, or by the environment
variables WGCOMPUTE_BACKEND and WGCOMPUTE_ADAPTER; by default the
high-performance adapter is used. 'wgbench devices' lists them.

Exit status: 0 on success; 1 when the result is negative (eigen did not
converge, a Merkle proof does not verify), and for every error of b3sum, as
b3sum does; 2 for any other error (usage, input, reading or writing), with
a message on standard error; 130 when Ctrl-C (SIGINT) stopped it, 143 for
SIGTERM, leaving no output file (a second Ctrl-C stops it at once).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
		// Suggestions for a mistyped command ("merkel": did you mean
		// merkle?), at the distance cobra's default finds typos.
		SuggestionsMinimumDistance: 2,
	}
	root.SetVersionTemplate("wgbench {{.Version}}\n")
	root.SetFlagErrorFunc(suggestFlag)
	root.Flags().BoolP("version", "V", false, "print wgbench's version and commit")
	pf := root.PersistentFlags()
	pf.StringVar(&g.GPU.Backend, "backend", "", "backend: vulkan, gl, metal, dx12, or cpu for the plain-Go code on all cores, no GPU (default: any; env WGCOMPUTE_BACKEND)")
	pf.StringVar(&g.GPU.Adapter, "adapter", "", "adapter index or name substring (env WGCOMPUTE_ADAPTER)")
	pf.StringVar(&g.GPU.Devices, "devices", "", `several GPUs at once, for b3sum, rescue, rpo, poseidon2, merkle and commit: "all", a count N, or adapter indices "0,1" (env WGCOMPUTE_DEVICES)`)
	pf.BoolVar(&g.Quiet, "quiet", false, "no progress bars on standard error (they show only on a terminal)")
	pf.BoolVar(&g.Trace, "trace", false, "print where the time went (device set-up, compiles, transfers, kernels) on standard error at exit (env WGCOMPUTE_TRACE=1)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := g.FromEnv(); err != nil {
			return err
		}
		if g.Trace {
			trace.Enable(true)
		}
		if g.Process {
			// Everything before the command: the runtime, every linked
			// package's initializers, building the command tree, flags.
			trace.SpanAt("start-up: initializers and flags", procstart.Time)(0)
		}
		// Every command, whether it opens a device or not (b3sum on the
		// CPU, combine, verify), refuses the same settings with the same
		// words.
		return g.GPU.Check()
	}
	return root
}

// ExitError carries a process exit code through cobra without printing.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitOnError is the annotation of a command whose errors exit with that
// status instead of 2 (b3sum's exit 1).
const ExitOnError = "wgbench.exit-on-error"

// NoArgs rejects arguments; under a command with subcommands, an argument
// is a mistyped subcommand, and the message lists the real ones.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("unknown command %q for %q: it takes no arguments", args[0], cmd.CommandPath())
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Errorf("unknown command %q for %q: choose from %s (did you mean %s?)", args[0], cmd.CommandPath(), strings.Join(names, ", "), strings.Join(s, " or "))
	}
	return fmt.Errorf("unknown command %q for %q: choose from %s", args[0], cmd.CommandPath(), strings.Join(names, ", "))
}

// suggestFlag is the root's flag error function: to "unknown flag: --hsh"
// it adds the flags of the command that are near ("did you mean
// --hash?"), by edit distance or as a prefix, or where to find them.
func suggestFlag(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var near []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && (editDistance(name, f.Name) <= 2 || strings.HasPrefix(f.Name, name)) {
			near = append(near, "--"+f.Name)
		}
	})
	if len(near) == 0 {
		return fmt.Errorf("%w ('%s --help' lists the flags)", err, c.CommandPath())
	}
	return fmt.Errorf("%w: did you mean %s?", err, strings.Join(near, " or "))
}

// editDistance is the Levenshtein distance between a and b, in bytes,
// ignoring case.
func editDistance(a, b string) int {
	a, b = strings.ToLower(a), strings.ToLower(b)
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// CheckedWriter passes writes on and keeps the first error, so that output
// lost to a full disk or a closed pipe fails the command even where it
// printed with fmt.Fprint and did not look.
type CheckedWriter struct {
	W   io.Writer
	Err error
}

func (c *CheckedWriter) Write(p []byte) (int, error) {
	if c.Err != nil {
		return 0, c.Err
	}
	n, err := c.W.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.Err = err
	return n, err
}

// Run runs the command g.Args of the tree tree on the globals g with the
// given standard streams and returns the process exit status. Commands
// see Ctrl-C and SIGTERM as their cobra Context's cancellation.
func Run(g *Globals, tree Tree, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := interruptible(func(status int) {
		// Output files are renamed into place only when whole, so
		// leaving now leaves none at its name (a temporary file being
		// written may stay beside it, until the next write of the name
		// removes it); the system frees the devices.
		g.Bars.stop()
		fmt.Fprintln(stderr, "wgbench:", ErrInterrupted)
		if TestHookStuck != nil {
			TestHookStuck()
		}
		os.Exit(status)
	}, g.CatchDelay)
	defer stop()
	out := &CheckedWriter{W: stdout}
	root := tree(g)
	root.SetArgs(g.Args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if errors.Is(err, context.Canceled) && !errors.Is(err, ErrInterrupted) {
		err = ErrInterrupted
	}
	// A bar a command left drawn is cleared before its message.
	g.Bars.stop()
	if errors.Is(err, ErrInterrupted) {
		fmt.Fprintln(stderr, "wgbench:", err)
		return interruptStatus(context.Cause(ctx))
	}
	if trace.On() {
		trace.Write(stderr)
	}
	if out.Err != nil {
		// Whatever else failed followed from the lost output.
		err = fmt.Errorf("write standard output: %w", fileout.Bare(out.Err))
	}
	if err == nil {
		return 0
	}
	var ee ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	fmt.Fprintln(stderr, "wgbench:", err)
	if cmd != nil {
		if code, err := strconv.Atoi(cmd.Annotations[ExitOnError]); err == nil {
			return code
		}
	}
	return 2
}

// RunProcess is Run as the whole process, which exits with the status
// returned: main, and the tests' wgbench processes.
func RunProcess(g *Globals, tree Tree, stdin io.Reader, stdout, stderr io.Writer) int {
	// First, before the threads and the heap that the command would start
	// and the runtime would abort on, where the address space is too
	// small for them.
	if err := spaceError(false); err != nil {
		fmt.Fprintln(stderr, "wgbench:", err)
		return 2
	}
	g.Process = true
	return Run(g, tree, stdin, stdout, stderr)
}
