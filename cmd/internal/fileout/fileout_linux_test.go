package fileout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
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

// childEnv, set to a path, makes the test binary a process that writes
// childData there with WriteFile and exits 0, or prints the error and
// exits 1: the tests of standard output and of another user need a
// process of their own.
const childEnv = "FILEOUT_TEST_WRITE"

const childData = "from the child\n"

// hangEnv, set to a path, makes the test binary a process that starts
// writing there, says "writing" on standard output, and waits to be
// killed.
const hangEnv = "FILEOUT_TEST_HANG"

func TestMain(m *testing.M) {
	if p := os.Getenv(hangEnv); p != "" {
		f, err := Create(p)
		if err == nil {
			_, err = f.Write([]byte(childData))
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("writing\n")
		select {}
	}
	if p := os.Getenv(childEnv); p != "" {
		if err := WriteFile(p, []byte(childData)); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child runs the test binary as a writer of path, its standard output
// stdout.
func child(t *testing.T, exe, path string, stdout *os.File) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	cmd.Stdout = stdout
	return cmd
}

// TestStdoutAppends: "-" and /dev/stdout, with standard output a file
// opened for appending (>>), write through the descriptor: the file's
// earlier bytes stay (a rename over /proc/self/fd/1's target dropped
// them), and nothing is created beside it.
func TestStdoutAppends(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, name := range []string{"-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"} {
		dir := t.TempDir()
		log := filepath.Join(dir, "app.log")
		require.NoError(t, os.WriteFile(log, []byte("earlier\n"), 0o644))
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		cmd := child(t, exe, name, f)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err = cmd.Run()
		f.Close()
		require.NoError(t, err, "%s: %s", name, stderr.String())
		requireContent(t, log, "earlier\n"+childData, name)
		requireOnly(t, dir, "app.log")
	}
}

// TestStdoutPipe: /dev/stdout as a pipe is written into it (the link
// /proc/self/fd/1 -> pipe:[N] was followed to a temporary file in
// /proc/self/fd, which failed).
func TestStdoutPipe(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, name := range []string{"-", "/dev/stdout"} {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"="+name)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output() // a pipe
		require.NoError(t, err, "%s: %s", name, stderr.String())
		require.Equal(t, childData, string(out), name)
	}
}

// TestFDInPlace writes to descriptors by number in this process: a pipe,
// and a file opened with O_APPEND, whose earlier bytes stay; the
// descriptor stays open.
func TestFDInPlace(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.NoError(t, WriteFile(fmt.Sprintf("/dev/fd/%d", w.Fd()), []byte("piped")))
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "piped", string(buf[:n]))

	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	require.NoError(t, os.WriteFile(log, []byte("earlier\n"), 0o644))
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	name := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	require.NoError(t, WriteFile(name, []byte("one\n")))
	require.NoError(t, Check(name))
	require.NoError(t, WriteFile(name, []byte("two\n")))
	requireContent(t, log, "earlier\none\ntwo\n")
	requireOnly(t, dir, "app.log")
}

// TestHardLinkKept: a file with another name is written in place, so
// both names see the new bytes (a rename split them: the other name kept
// the old ones); a failed fill leaves both untouched.
func TestHardLinkKept(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("old bytes, longer than the new"), 0o640))
	require.NoError(t, os.Link(a, b))
	require.NoError(t, WriteFile(a, []byte("new")))
	requireContent(t, a, "new")
	requireContent(t, b, "new", "the other name must see the new bytes")
	fa, err := os.Stat(a)
	require.NoError(t, err)
	fb, err := os.Stat(b)
	require.NoError(t, err)
	require.True(t, os.SameFile(fa, fb), "the names must stay one file")
	require.Equal(t, fs.FileMode(0o640), fa.Mode().Perm())
	requireOnly(t, dir, "a", "b")

	err = Write(a, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("failed")
	})
	require.EqualError(t, err, "failed")
	requireContent(t, b, "new")
	requireOnly(t, dir, "a", "b")
}

// TestNotWritableRefused: a file of mode 0444 that the user does not own,
// in a directory the user may write, is refused as the shell's > refuses
// it, and kept (a rename replaced it). As root, the writer runs as
// nobody.
func TestNotWritableRefused(t *testing.T) {
	dir, err := os.MkdirTemp("", "fileout-perm")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o777))
	p := filepath.Join(dir, "readonly")
	require.NoError(t, os.WriteFile(p, []byte("keep me"), 0o444))
	require.NoError(t, os.Chmod(p, 0o444))

	if os.Geteuid() != 0 {
		// The owner may not write a 0444 file with > either.
		err := WriteFile(p, []byte("lost"))
		require.ErrorContains(t, err, "write "+p+": permission denied")
		require.ErrorContains(t, Check(p), "permission denied")
		requireContent(t, p, "keep me")
		requireOnly(t, dir, "readonly")
		return
	}
	// A copy of the test binary that nobody may run.
	exe, err := os.Executable()
	require.NoError(t, err)
	bin, err := os.ReadFile(exe)
	require.NoError(t, err)
	copyExe := filepath.Join(dir, "fileout.test")
	require.NoError(t, os.WriteFile(copyExe, bin, 0o755))
	cmd := exec.Command(copyExe)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"="+p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	require.Contains(t, string(out), "write "+p+": permission denied")
	requireContent(t, p, "keep me")
	requireOnly(t, dir, "readonly", "fileout.test")
}

// TestStaleTempRemoved kills a writer with SIGKILL while it writes, which
// leaves its temporary file behind, and writes the same path again: the
// next write removes the first's temporary file (it stayed for ever), and
// a write leaves alone that of a writer still alive.
func TestStaleTempRemoved(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	writer := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), hangEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line := make([]byte, len("writing\n"))
		_, err = io.ReadFull(stdout, line)
		require.NoError(t, err)
		return cmd
	}
	temps := func() []string {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".out.tmp") {
				names = append(names, e.Name())
			}
		}
		return names
	}
	killed := writer()
	require.NoError(t, killed.Process.Kill())
	require.Error(t, killed.Wait())
	stale := temps()
	require.Len(t, stale, 1, "the killed writer's temporary file")

	live := writer()
	defer func() {
		live.Process.Kill()
		live.Wait()
	}()
	// The second writer removed the killed one's file as it started.
	own := temps()
	require.Len(t, own, 1, "the live writer's temporary file alone")
	require.NotEqual(t, stale[0], own[0])
	require.NoError(t, WriteFile(path, []byte("new\n")))
	requireContent(t, path, "new\n")
	require.Equal(t, own, temps(), "the live writer's temporary file stays")
}
