package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// errInterrupted is what a command returns when Ctrl-C (SIGINT) or
// SIGTERM stopped it: the process exits with interruptStatus, and no
// output file is written (every output is written whole or not at all,
// through cmd/internal/fileout, after the work), except bench's JSON file,
// which keeps what was measured.
var errInterrupted = errors.New("interrupted")

// exitInterrupted is the exit status of a run stopped by Ctrl-C, the
// shell's 128 + SIGINT.
const exitInterrupted = 130

// interruptStatus is the exit status of a run the signal that cause
// holds stopped, as a shell reports it: 128 + the signal's number (130
// for SIGINT, 143 for SIGTERM).
func interruptStatus(cause error) int {
	var s signalCause
	if errors.As(cause, &s) {
		if n, ok := s.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return exitInterrupted
}

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "stopped by " + s.sig.String() }

// interruptGrace is how long a command may take to stop after Ctrl-C
// before the process exits without it: one that is inside a long library
// call (a Merkle tree built in one call) checks only once the call
// returns.
const interruptGrace = 2 * time.Second

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM. After that signal the default action is restored, so a second
// Ctrl-C ends the process at once, and stuck is called with the signal's
// exit status if the command has not stopped within interruptGrace. stop
// releases the signals; call it when the command returns.
func interruptible(stuck func(status int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	returned := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-returned:
			return
		}
		signal.Stop(sigs)
		cancel(signalCause{sig})
		select {
		case <-time.After(interruptGrace):
			stuck(interruptStatus(signalCause{sig}))
		case <-returned:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(returned)
		cancel(nil)
	}
}

// interrupted returns errInterrupted once ctx is cancelled, else nil: the
// check long loops make between their pieces of work.
func interrupted(ctx context.Context) error {
	if ctx != nil && ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// showProgress reports whether a progress bar goes to w: only a terminal
// shows one, and never with --quiet, so that a log, a pipe or a script
// capturing standard error gets none of its control characters.
func showProgress(w io.Writer, quiet bool) bool {
	f, ok := w.(*os.File)
	return !quiet && ok && term.IsTerminal(int(f.Fd()))
}

// meter shows the progress of one piece of work on standard error: done
// out of total, the rate, and the time left. A nil meter shows nothing,
// so callers need not ask whether there is one.
type meter struct {
	bar *progressbar.ProgressBar
	// A spinner's ticker ends when stop is closed, and closes stopped.
	stop, stopped chan struct{}
}

// newMeter returns the meter of total units of work (records, leaves;
// bytes with unit "B", shown as KiB, MiB...) described by desc, or nil
// where showProgress says no.
func newMeter(cmd *cobra.Command, g *globals, desc string, total int64, unit string) *meter {
	w := cmd.ErrOrStderr()
	if !showProgress(w, g.quiet) || total <= 0 {
		return nil
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
	}
	if unit == "B" {
		opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true))
	} else {
		opts = append(opts, progressbar.OptionSetItsString(unit))
	}
	bar := progressbar.NewOptions64(total, opts...)
	// The clock starts now, not at the first piece's end: the rate and
	// the time left count the whole work.
	bar.RenderBlank()
	return &meter{bar: bar}
}

// newSpinner returns a meter of work whose size is not known as it goes
// (a Merkle tree built in one library call): it shows that the work goes
// on, and for how long, or nil where showProgress says no.
func newSpinner(cmd *cobra.Command, g *globals, desc string) *meter {
	w := cmd.ErrOrStderr()
	if !showProgress(w, g.quiet) {
		return nil
	}
	bar := progressbar.NewOptions64(-1, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
		progressbar.OptionSpinnerType(14), progressbar.OptionSetElapsedTime(true), progressbar.OptionClearOnFinish())
	// The spinner turns on its own while the call it stands for runs.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				bar.Add(0)
			}
		}
	}()
	return &meter{bar: bar, stop: stop, stopped: stopped}
}

// buildMeter is the Options.Progress of a Merkle build: it shows the
// merges done on a meter, and stops the build with errInterrupted on
// Ctrl-C.
type buildMeter struct {
	cmd  *cobra.Command
	m    *meter
	last int
}

// newBuildMeter returns the buildMeter of a tree of n leaves: n-1 merges.
func newBuildMeter(cmd *cobra.Command, g *globals, desc string, n int) *buildMeter {
	return &buildMeter{cmd: cmd, m: newMeter(cmd, g, desc, int64(n-1), "merges")}
}

func (b *buildMeter) progress(done, total int) error {
	if err := interrupted(b.cmd.Context()); err != nil {
		return err
	}
	b.m.add(done - b.last)
	b.last = done
	return nil
}

// done clears the meter.
func (b *buildMeter) done() { b.m.done() }

// add counts n more units done.
func (m *meter) add(n int) {
	if m != nil {
		m.bar.Add64(int64(n))
	}
}

// done clears the bar, so that what the command prints next starts on a
// clean line.
func (m *meter) done() {
	if m != nil {
		if m.stop != nil {
			close(m.stop)
			<-m.stopped
		}
		m.bar.Finish()
		m.bar.Clear()
	}
}

// pieceTime is how long inPieces aims for each piece to take: short enough
// that a progress bar moves and Ctrl-C is answered within about a second,
// long enough that a device stays busy between calls.
const pieceTime = 250 * time.Millisecond

// inPieces runs fn over [0, total) in consecutive ranges [lo, hi), growing
// the ranges from minPiece while a range takes less than pieceTime, and
// counting each finished range on m. It stops with errInterrupted when ctx
// is cancelled, checked before each range.
// testHookPiece, when not nil, is called with the records done after each
// piece: the interrupt tests cancel there, part way through on any device.
var testHookPiece func(done int)

func inPieces(ctx context.Context, m *meter, total, minPiece int, fn func(lo, hi int) error) error {
	defer m.done()
	per := max(minPiece, 1)
	for lo := 0; lo < total; {
		if err := interrupted(ctx); err != nil {
			return err
		}
		hi := lo + min(per, total-lo)
		start := time.Now()
		if err := fn(lo, hi); err != nil {
			return err
		}
		m.add(hi - lo)
		if testHookPiece != nil {
			testHookPiece(hi)
		}
		if time.Since(start) < pieceTime/2 && per < total/2 {
			per *= 2
		}
		lo = hi
	}
	return nil
}
