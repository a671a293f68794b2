package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// openPTY returns the two ends of a new pseudo-terminal: what is written
// to the terminal end is read from the other.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("name the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

// TestProgress checks where progress goes: a terminal shows done/total,
// the rate and the time left, and nothing shows with --quiet, in a pipe or
// a file.
func TestProgress(t *testing.T) {
	ptmx, tty := openPTY(t)
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer f.Close()
	require.True(t, ShowProgress(tty, false))
	require.False(t, ShowProgress(tty, true), "--quiet")
	require.False(t, ShowProgress(f, false), "a file")
	require.False(t, ShowProgress(&bytes.Buffer{}, false), "not a file")

	cmd := &cobra.Command{}
	cmd.SetErr(tty)
	bar := NewMeter(cmd, &Globals{}, "rescue merge", 4000, "records")
	require.NotNil(t, bar)
	require.Nil(t, NewMeter(cmd, &Globals{Quiet: true}, "rescue merge", 4000, "records"))
	shown := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx) // until the terminal end is closed
		shown <- b
	}()
	err = InPieces(context.Background(), bar, 4000, 100, func(lo, hi int) error {
		time.Sleep(30 * time.Millisecond)
		return nil
	})
	require.NoError(t, err)
	tty.Close()
	out := string(<-shown)
	require.Contains(t, out, "rescue merge")
	require.Contains(t, out, "/4000", "done out of the total")
	require.Contains(t, out, "records/s", "the rate")
	require.Regexp(t, `\[\d+s:\d+s\]`, out, "the time taken and the time left")
}

// TestInPieces checks that the pieces cover the range once, in order, and
// that a cancelled context stops them before the next piece.
func TestInPieces(t *testing.T) {
	next := 0
	require.NoError(t, InPieces(context.Background(), nil, 100000, 7, func(lo, hi int) error {
		require.Equal(t, next, lo)
		require.Greater(t, hi, lo)
		next = hi
		return nil
	}))
	require.Equal(t, 100000, next)

	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := InPieces(ctx, nil, 100000, 7, func(lo, hi int) error {
		calls++
		cancel()
		return nil
	})
	require.ErrorIs(t, err, ErrInterrupted)
	require.Equal(t, 1, calls)
}

// TestMeterBeforeProgress: a meter of a known total that gets no report
// (a tree built in one submission) shows a turning spinner and the time
// taken, never a frozen "0% (0/N ...)"; a message's liveBars.stop clears
// its line first and nothing is drawn after it.
func TestMeterBeforeProgress(t *testing.T) {
	ptmx, tty := openPTY(t)
	shown := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx)
		shown <- b
	}()
	g := &Globals{}
	cmd := &cobra.Command{}
	cmd.SetErr(tty)
	m := NewBuildMeter(cmd, g, "merkle: blake3 tree", 1<<21)
	// Wait for a redraw by the meter's own ticker: the time taken moves
	// while nothing is reported.
	for {
		m.m.bar.mu.Lock()
		spin := m.m.bar.spin
		m.m.bar.mu.Unlock()
		if spin >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	g.Bars.stop()
	fmt.Fprintln(tty, "wgbench: interrupted")
	time.Sleep(250 * time.Millisecond) // a tick that must draw nothing
	m.Done()
	tty.Close()
	out := string(<-shown)
	require.Contains(t, out, "merkle: blake3 tree (2097151 merges) [0s]")
	require.NotContains(t, out, "0%", "no frozen share")
	require.Regexp(t, `\r {20,}\rwgbench: interrupted\r?\n$`, out, "the line is cleared before the message, and nothing follows it")
}
