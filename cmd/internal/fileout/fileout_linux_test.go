package fileout

import (
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewFileModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	for _, umask := range []int{0o022, 0o077, 0o002} {
		old := syscall.Umask(umask)
		p := filepath.Join(dir, "out.bin")
		err := WriteFile(p, []byte("x"))
		syscall.Umask(old)
		require.NoError(t, err)
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o666&^umask), fi.Mode().Perm(), "umask %03o", umask)
		require.NoError(t, os.Remove(p))
	}
}

// TestCharDevice writes to a /dev/null node made in a temporary directory
// (as root), so that a wrong rename would replace only that copy.
func TestCharDevice(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod needs root: %v", err)
	}
	require.NoError(t, WriteFile(p, []byte("discarded")))
	requireType(t, p, fs.ModeCharDevice, "the device node must not be replaced")
	requireOnly(t, dir, "null")

	// Through a link to it.
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("null", link))
	require.NoError(t, WriteFile(link, []byte("discarded")))
	requireType(t, p, fs.ModeCharDevice)
	requireOnly(t, dir, "null", "link")
}

func TestDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err := WriteFile("/dev/full", []byte("lost"))
	require.ErrorContains(t, err, "write /dev/full: no space left on device")
}

func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	require.NoError(t, WriteFile(p, []byte("through the pipe")))
	require.Equal(t, "through the pipe", <-got)
	requireType(t, p, fs.ModeNamedPipe, "the FIFO must stay a FIFO")
	requireOnly(t, dir, "fifo")
}

// TestWriteFailureLeavesNothing makes the write itself fail (a file size
// limit: EFBIG) and checks that the target is untouched, no temporary
// file is left, and the error names the path.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	require.NoError(t, os.WriteFile(p, []byte("before"), 0o644))

	signal.Ignore(syscall.SIGXFSZ) // EFBIG instead of the signal
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: old.Max}))
	err := WriteFile(p, make([]byte, 1<<20))
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))

	require.ErrorContains(t, err, "write "+p+": file too large")
	require.NotContains(t, err.Error(), ".tmp")
	requireContent(t, p, "before")
	requireOnly(t, dir, "out.bin")
}
