package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"golang.org/x/term"
)

// ErrInterrupted is what a command returns when Ctrl-C (SIGINT) or
// SIGTERM stopped it: the process exits with interruptStatus, and no
// output file is written (every output is written whole or not at all,
// through cmd/internal/fileout, after the work), except bench's JSON file,
// which keeps what was measured.
var ErrInterrupted = errors.New("interrupted")

// ExitInterrupted is the exit status of a run stopped by Ctrl-C, the
// shell's 128 + SIGINT.
const ExitInterrupted = 130

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
	return ExitInterrupted
}

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "stopped by " + s.sig.String() }

// InterruptGrace is how long a command may take to stop after Ctrl-C
// before the process exits without it: one that is inside a long library
// call (a Merkle tree built in one call) checks only once the call
// returns.
const InterruptGrace = 2 * time.Second

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM. After that signal the default action is restored, so a second
// Ctrl-C ends the process at once, and stuck is called with the signal's
// exit status if the command has not stopped within interruptGrace. stop
// releases the signals; call it when the command returns. With a delay,
// the signals are caught only from delay after the call: before that
// they end the process at once, as they end a program that catches none,
// and a command that ends sooner never pays for catching them.
func interruptible(stuck func(status int), delay time.Duration) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	returned := make(chan struct{})
	watch := func() {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
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
			case <-time.After(InterruptGrace):
				stuck(interruptStatus(signalCause{sig}))
			case <-returned:
			}
		}()
	}
	var mu sync.Mutex // orders a delayed watch against stop
	stopped := false
	var timer *time.Timer
	if delay <= 0 {
		watch()
	} else {
		timer = time.AfterFunc(delay, func() {
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				watch()
			}
		})
	}
	return ctx, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
		signal.Stop(sigs)
		close(returned)
		cancel(nil)
	}
}

// Interrupted returns ErrInterrupted once ctx is cancelled, else nil: the
// check long loops make between their pieces of work.
func Interrupted(ctx context.Context) error {
	if ctx != nil && ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// ShowProgress reports whether a progress bar goes to w: only a terminal
// shows one, and never with --quiet, so that a log, a pipe or a script
// capturing standard error gets none of its control characters.
func ShowProgress(w io.Writer, quiet bool) bool {
	f, ok := w.(*os.File)
	return !quiet && ok && term.IsTerminal(int(f.Fd()))
}

// Meter shows the progress of one piece of work on standard error: done
// out of total, the rate, and the time left. A nil Meter shows nothing,
// so callers need not ask whether there is one.
type Meter struct {
	bar *Bar
	// The ticker that redraws the bar ends when stop is closed, and
	// closes stopped.
	stop, stopped chan struct{}
	// bars holds the bar while it is drawn.
	bars *LiveBars
}

// NewMeter returns the meter of total units of work (records, leaves;
// bytes with unit "B", shown as KiB, MiB...) described by desc, or nil
// where ShowProgress says no. Until the first units are done it shows a
// spinner and the time taken, not a 0% that would not move while one
// library call does the whole work (a Merkle tree built in one
// submission).
func NewMeter(cmd *cobra.Command, g *Globals, desc string, total int64, unit string) *Meter {
	w := cmd.ErrOrStderr()
	if !ShowProgress(w, g.Quiet) || total <= 0 {
		return nil
	}
	// The clock starts now, not at the first piece's end: the rate and
	// the time left count the whole work.
	return startMeter(g, NewBar(w, desc, total, unit))
}

// NewSpinner returns a meter of work whose size is not known as it goes
// (a Merkle tree built in one library call): it shows that the work goes
// on, and for how long, or nil where ShowProgress says no.
func NewSpinner(cmd *cobra.Command, g *Globals, desc string) *Meter {
	w := cmd.ErrOrStderr()
	if !ShowProgress(w, g.Quiet) {
		return nil
	}
	return startMeter(g, NewBar(w, desc, -1, ""))
}

// startMeter draws b, and redraws it on its own while the work it stands
// for runs (the time taken moves, and the spinner turns, between the
// reports of work done); g's bars hold it until done, so that a message
// clears its line first.
func startMeter(g *Globals, b *Bar) *Meter {
	g.Bars.Add(b)
	b.Add(0)
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
				b.Add(0)
			}
		}
	}()
	return &Meter{bar: b, stop: stop, stopped: stopped, bars: &g.Bars}
}

// LiveBars are the bars on the terminal now. A message that a command
// or main prints on standard error while one is drawn clears it first
// (stop), or it would follow the bar on the bar's line.
type LiveBars struct {
	mu   sync.Mutex
	bars []*Bar
}

func (l *LiveBars) Add(b *Bar) {
	l.mu.Lock()
	l.bars = append(l.bars, b)
	l.mu.Unlock()
}

func (l *LiveBars) remove(b *Bar) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.bars {
		if x == b {
			l.bars = append(l.bars[:i], l.bars[i+1:]...)
			return
		}
	}
}

// stop clears every live bar's line and keeps it from being drawn again:
// what is printed next starts on a clean line.
func (l *LiveBars) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range l.bars {
		b.stop()
	}
}

// Bar is one line of progress on a terminal, redrawn in place: for a
// known total, the description, the share done, a bar, done out of total
// with the rate, and the time taken and left, as
//
//	rescue merge  37% |███████████                   | (1480/4000, 1234 records/s) [1s:2s]
//
// and for an unknown total (below 0) a turning spinner, the description,
// the count of steps where there were any, and the time taken. It is what
// github.com/schollz/progressbar drew for wgbench, written here because
// that package links net/http, whose initializers every command paid at
// start-up (BENCHMARKS.md, "Start-up on the 2-core CI machine"). A Bar is
// safe for use by several goroutines.
type Bar struct {
	mu           sync.Mutex
	w            io.Writer
	desc, unit   string
	total, done  int64
	start, shown time.Time
	spin         int
	// width is the widest line drawn since the last clear, which the next
	// line and clear overwrite with spaces.
	width int
	// stopped: cleared for a message, never drawn again.
	stopped bool
}

// barWidth is the bar's width in characters; barThrottle is how often a
// Bar of a known total is redrawn at most (a spinner is redrawn at each
// add, which its ticker calls).
const (
	barWidth    = 30
	barThrottle = 100 * time.Millisecond
)

// spinnerFrames are the spinner's turns.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// NewBar returns the bar of total units (bytes where unit is "B"; below
// 0: unknown) described by desc, written on w, its clock started.
func NewBar(w io.Writer, desc string, total int64, unit string) *Bar {
	return &Bar{w: w, desc: desc, total: total, unit: unit, start: time.Now()}
}

// Add counts n more units done and redraws the line (a known total's at
// most every barThrottle, and always at its end).
func (b *Bar) Add(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	now := time.Now()
	if b.total >= 0 && !b.shown.IsZero() && now.Sub(b.shown) < barThrottle && b.done < b.total {
		return
	}
	b.shown = now
	b.draw(b.line(now))
}

// Describe changes the description, shown from the next add.
func (b *Bar) Describe(desc string) {
	b.mu.Lock()
	b.desc = desc
	b.mu.Unlock()
}

// Clear blanks the line, so that what is printed next starts on a clean
// one; the next add draws the bar again.
func (b *Bar) Clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.width > 0 {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.width))
		b.width = 0
	}
}

// stop clears the line and draws nothing more.
func (b *Bar) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Stopped in the same hold of the lock as the line is cleared, so that
	// no add or tick between the two draws the bar again.
	b.stopped = true
	if b.width > 0 {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.width))
		b.width = 0
	}
}

// draw writes line over the one drawn before.
func (b *Bar) draw(line string) {
	if b.stopped {
		return
	}
	n := utf8.RuneCountInString(line)
	pad := max(b.width-n, 0)
	fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
	b.width = max(b.width, n)
}

// line is the bar's text at now.
func (b *Bar) line(now time.Time) string {
	elapsed := now.Sub(b.start)
	if b.total >= 0 && b.done == 0 {
		// Nothing reported yet: the work and the time it has taken, with
		// a spinner, not a 0% that might stand for the whole work.
		b.spin = (b.spin + 1) % len(spinnerFrames)
		size := fmt.Sprintf("%d %s", b.total, b.unit)
		if b.unit == "B" {
			size = bytesize.Format(b.total)
		}
		return fmt.Sprintf("%s %s (%s) [%s]", spinnerFrames[b.spin], b.desc, size, seconds(elapsed))
	}
	if b.total < 0 {
		b.spin = (b.spin + 1) % len(spinnerFrames)
		count := ""
		if b.done > 0 {
			count = fmt.Sprintf(" (%d)", b.done)
		}
		return fmt.Sprintf("%s %s%s [%s]", spinnerFrames[b.spin], b.desc, count, seconds(elapsed))
	}
	done := min(b.done, b.total)
	filled := int(int64(barWidth) * done / max(b.total, 1))
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	var counts string
	if b.unit == "B" {
		counts = fmt.Sprintf("%s/%s, %s/s", bytesize.Format(done), bytesize.Format(b.total), bytesize.Format(int64(rate)))
	} else {
		counts = fmt.Sprintf("%d/%d, %.0f %s/s", done, b.total, rate, b.unit)
	}
	left := time.Duration(0)
	if done > 0 {
		left = time.Duration(float64(elapsed) * float64(b.total-done) / float64(done))
	}
	return fmt.Sprintf("%s %3d%% |%s%s| (%s) [%s:%s]", b.desc, 100*done/max(b.total, 1),
		strings.Repeat("█", filled), strings.Repeat(" ", barWidth-filled), counts, seconds(elapsed), seconds(left))
}

// seconds writes d in whole seconds, as time.Duration does ("45s",
// "2m5s").
func seconds(d time.Duration) string { return d.Round(time.Second).String() }

// BuildMeter is the Options.Progress of a Merkle build: it shows the
// merges done on a meter, and stops the build with ErrInterrupted on
// Ctrl-C.
type BuildMeter struct {
	cmd  *cobra.Command
	m    *Meter
	last int
}

// NewBuildMeter returns the buildMeter of a tree of n leaves: n-1 merges.
func NewBuildMeter(cmd *cobra.Command, g *Globals, desc string, n int) *BuildMeter {
	return &BuildMeter{cmd: cmd, m: NewMeter(cmd, g, desc, int64(n-1), "merges")}
}

func (b *BuildMeter) Progress(done, total int) error {
	if TestHookPiece != nil {
		TestHookPiece(done)
	}
	if err := Interrupted(b.cmd.Context()); err != nil {
		return err
	}
	b.m.Add(done - b.last)
	b.last = done
	return nil
}

// Done clears the meter.
func (b *BuildMeter) Done() { b.m.Done() }

// Add counts n more units done.
func (m *Meter) Add(n int) {
	if m != nil {
		m.bar.Add(int64(n))
	}
}

// Done clears the bar, so that what the command prints next starts on a
// clean line.
func (m *Meter) Done() {
	if m != nil {
		if m.stop != nil {
			close(m.stop)
			<-m.stopped
		}
		m.bar.Clear()
		if m.bars != nil {
			m.bars.remove(m.bar)
		}
	}
}

// pieceTime is how long InPieces aims for each piece to take: short enough
// that a progress bar moves and Ctrl-C is answered within about a second,
// long enough that a device stays busy between calls.
const pieceTime = 250 * time.Millisecond

// TestHookPiece, when not nil, is called with the records done after each
// piece, and with the merges done at each report of a tree's build: the
// interrupt tests cancel there, part way through on any device, and see
// where the work stopped.
var TestHookPiece func(done int)

// TestHookStuck, when not nil, is called when a command did not stop
// within interruptGrace of Ctrl-C, before the process exits: the tests
// see that the grace timer ended it, not the command.
var TestHookStuck func()

// InPieces runs fn over [0, total) in consecutive ranges [lo, hi), growing
// the ranges from minPiece while a range takes less than pieceTime, and
// counting each finished range on m. It stops with ErrInterrupted when ctx
// is cancelled, checked before each range.
func InPieces(ctx context.Context, m *Meter, total, minPiece int, fn func(lo, hi int) error) error {
	defer m.Done()
	per := max(minPiece, 1)
	for lo := 0; lo < total; {
		if err := Interrupted(ctx); err != nil {
			return err
		}
		hi := lo + min(per, total-lo)
		start := time.Now()
		if err := fn(lo, hi); err != nil {
			return err
		}
		m.Add(hi - lo)
		if TestHookPiece != nil {
			TestHookPiece(hi)
		}
		if time.Since(start) < pieceTime/2 && per < total/2 {
			per *= 2
		}
		lo = hi
	}
	return nil
}
