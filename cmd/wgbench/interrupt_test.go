//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/b3sum"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/clitest"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// interruptPairs is a merge input that takes seconds on every adapter the
// tests run on (about 4 s on 2 cores, 3 s on lavapipe), so that a signal
// sent as the hashing starts arrives well before it ends.
const interruptPairs = 1 << 17

// TestInterrupt sends SIGINT to a wgbench process in the middle of a
// rescue merge, on the CPU backend and on each GPU backend, and SIGTERM on
// the CPU, and checks that it exits at once with 128 + the signal's
// number, saying so, with no output file and no temporary file left.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	// The leaves come through a named pipe: once the test has written
	// them all, the process is past its start-up (where the signal
	// handler is set) and reading or hashing them.
	fifo := filepath.Join(dir, "pairs")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	input := make([]byte, 64*interruptPairs)
	for i := range input {
		input[i] = byte(i * 7)
	}
	type run struct {
		backend string
		sig     syscall.Signal
		status  int
	}
	runs := []run{{"cpu", syscall.SIGTERM, 143}}
	for _, b := range append([]string{"cpu"}, gputest.Backends()...) {
		runs = append(runs, run{b, syscall.SIGINT, cli.ExitInterrupted})
	}
	for _, r := range runs {
		backend := r.backend
		t.Run(backend+"/"+r.sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "digests-"+backend)
			cmd := wgbenchProcess(t, "", "--backend", backend, "rescue", "merge", "--in", fifo, "--out", out)
			mark := filepath.Join(t.TempDir(), "stuck")
			cmd.Env = append(cmd.Env, clitest.StuckMarkEnv+"="+mark)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = w.Write(input)
			require.NoError(t, err)
			require.NoError(t, w.Close())
			sent := time.Now()
			require.NoError(t, cmd.Process.Signal(r.sig))
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
			require.Equal(t, r.status, ee.ExitCode(), "stderr: %s", stderr.String())
			// The command stopped itself at its next piece: the grace
			// timer, which would end a command stuck in a call, did not
			// fire. (A bound on the time flaked on a loaded machine.)
			_, err = os.Stat(mark)
			require.True(t, os.IsNotExist(err), "the command must stop by itself, not by the grace timer, after %v", time.Since(sent))
			require.Equal(t, "wgbench: interrupted\n", stderr.String())
			_, err = os.Stat(out)
			require.True(t, os.IsNotExist(err), "an interrupted run must not write %s", out)
			requireNoTemp(t, dir)
		})
	}
}

// TestInterruptReleases cancels a rescue merge in-process after its first
// piece (an H200 merges the whole input in a few milliseconds, so a timer
// would come too late), and checks that the command says it was
// interrupted, stopped part way, and leaves no device buffer alive.
func TestInterruptReleases(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "pairs"), filepath.Join(dir, "digests")
	input := make([]byte, 64*interruptPairs)
	for i := range input {
		input[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(in, input, 0o600))
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := gputest.Context(t, backend)
			grp, err := sched.NewGroup(ctx)
			require.NoError(t, err)
			before := ctx.LiveBuffers()
			g := &cli.Globals{Args: []string{"rescue", "merge", "--in", in, "--out", out}, Group: grp}
			root := newRoot(g)
			root.SetArgs(g.Args)
			var stdout, stderr bytes.Buffer
			root.SetOut(&stdout)
			root.SetErr(&stderr)
			cancelled, cancel := context.WithCancel(context.Background())
			defer cancel()
			var done int
			cli.TestHookPiece = func(n int) {
				done = n
				cancel()
			}
			defer func() { cli.TestHookPiece = nil }()
			err = root.ExecuteContext(cancelled)
			require.ErrorIs(t, err, cli.ErrInterrupted)
			require.Less(t, done, interruptPairs, "the merge stopped after its last piece, not part way")
			require.Equal(t, before, ctx.LiveBuffers(), "an interrupted run must release its buffers")
			_, err = os.Stat(out)
			require.True(t, os.IsNotExist(err), "an interrupted run must not write %s", out)
		})
	}
}

// TestInterruptMerkle cancels a Rescue tree of 2^18 leaves on the CPU
// backend, two goroutines (seconds of merges, whatever the machine's
// cores), part way through, in-process, and checks that the build stops
// at its next report, well before it would end, and writes nothing.
func TestInterruptMerkle(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "leaves"), filepath.Join(dir, "nodes")
	leaves := make([]byte, 32<<18)
	for i := 0; i < len(leaves)/32; i++ {
		leaves[32*i] = byte(i)
		leaves[32*i+1] = byte(i >> 8)
	}
	require.NoError(t, os.WriteFile(in, leaves, 0o600))
	g := &cli.Globals{Args: []string{"--backend", "cpu", "merkle", "--hash", "rescue", "--in", in, "--out", out}}
	root := newRoot(g)
	root.SetArgs(g.Args)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled at the build's first report; the reports after it see
	// the cancellation, and the last must be short of the whole tree
	// (a bound on the time flaked on a loaded machine).
	var reports, last int
	cli.TestHookPiece = func(done int) {
		reports++
		last = done
		cancel()
	}
	defer func() { cli.TestHookPiece = nil }()
	err := root.ExecuteContext(ctx)
	require.ErrorIs(t, err, cli.ErrInterrupted)
	require.Positive(t, reports, "the build reports its progress")
	require.Less(t, last, len(leaves)/32-1, "the build stops at its next report, not at the end")
	_, err = os.Stat(out)
	require.True(t, os.IsNotExist(err), "an interrupted build must not write %s", out)
	require.Empty(t, stdout.String())
}

// TestInterruptStuck sends SIGINT to a wgbench process building a mixed
// tree on the CPU backend with two goroutines, one library call that
// reports no progress (seconds of Rescue merges on any machine), and checks that the process still exits 130
// once interruptGrace has passed, long before the build would end, saying
// so, with no output file.
func TestInterruptStuck(t *testing.T) {
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "leaves"), filepath.Join(dir, "nodes")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// 2^21 Rescue merges: 13 s on two cores of the H200 host, whose Rescue
	// is among the fastest measured (13 µs a merge).
	leaves := make([]byte, 32<<22)
	for i := range leaves {
		leaves[i] = byte(i * 13)
	}
	cmd := wgbenchProcess(t, "", "--backend", "cpu", "merkle", "--hash", "blake3:1,rescue", "--in", fifo, "--out", out)
	mark := filepath.Join(dir, "stuck")
	cmd.Env = append(cmd.Env, "GOMAXPROCS=2", clitest.StuckMarkEnv+"="+mark)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = w.Write(leaves)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	// Let the build start: the leaves are read and checked first.
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
	require.Equal(t, cli.ExitInterrupted, ee.ExitCode(), "stderr: %s", stderr.String())
	require.Equal(t, "wgbench: interrupted\n", stderr.String())
	require.GreaterOrEqual(t, took, cli.InterruptGrace, "the build had its grace")
	// The grace timer ended the process, not the build's end: the
	// mechanism, not a wall-clock bound (3.1 s against a 3 s bound on a
	// loaded 2-core machine).
	_, err = os.Stat(mark)
	require.NoError(t, err, "the grace timer must have ended the process (after %v)", took)
	_, err = os.Stat(out)
	require.True(t, os.IsNotExist(err), "an interrupted build must not write %s", out)
}

// TestInterruptB3sumCaughtLate: b3sum catches Ctrl-C only from
// b3sum.CatchDelay on. A b3sum blocked reading a pipe long after that
// stops with the message and status 130 once the grace has passed (the
// read never returns to look); one signalled before that ends by the
// signal, as b3sum itself does.
func TestInterruptB3sumCaughtLate(t *testing.T) {
	for _, c := range []struct {
		name  string
		after time.Duration
	}{{"late", 10 * b3sum.CatchDelay}, {"early", 0}} {
		t.Run(c.name, func(t *testing.T) {
			cmd := wgbenchProcess(t, "", "b3sum", "--device", "cpu")
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer w.Close()
			cmd.Stdin = r
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			r.Close()
			time.Sleep(c.after)
			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			err = cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			if c.after > b3sum.CatchDelay {
				require.Equal(t, cli.ExitInterrupted, ee.ExitCode(), "stderr: %s", stderr.String())
				require.Equal(t, "wgbench: interrupted\n", stderr.String())
				return
			}
			status, ok := ee.Sys().(syscall.WaitStatus)
			require.True(t, ok)
			require.True(t, status.Signaled(), "stderr: %s", stderr.String())
			require.Equal(t, syscall.SIGINT, status.Signal())
		})
	}
}
