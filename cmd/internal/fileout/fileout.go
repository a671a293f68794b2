// Package fileout writes output files the way a careful command should:
// the path never holds a partial result, and what the path is stays what
// it was.
//
//   - A missing path or a regular file is written through a temporary file
//     in the same directory, renamed over the path only once everything was
//     written and synced; on any error the temporary file is removed and
//     the path is untouched.
//   - A symbolic link is followed: its target is written (or created), and
//     the link stays a link.
//   - A device, a named pipe or a socket is written in place, as a shell
//     redirection would: a rename would replace /dev/null by a regular file.
//   - "-" is standard output, and /dev/stdout, /dev/stderr, /dev/fd/N and
//     /proc/self/fd/N are the process's open file N, written through that
//     descriptor as bash writes them: a pipe stays a pipe, and a file
//     opened with >> is appended to, its earlier bytes kept.
//   - A file that cannot be opened for writing is refused, as the shell's
//     > refuses it ("permission denied"), though a rename in a writable
//     directory could replace it.
//   - A file with other names (hard links) or another owner is written in
//     place once the whole output is ready in the temporary file: every
//     name sees the new bytes and the owner stays, as with > and as git
//     and b3sum users expect; only a failure while copying the finished
//     output in can leave it partial.
//   - A new file gets the mode the umask gives (0666 &^ umask); a replaced
//     file keeps its mode, so writing over the input does not change it.
//   - Errors name the path the caller gave, never the temporary file.
//   - A temporary file is named .NAME.tmp-HOST-PID-RANDOM beside NAME
//     (HOST a hash of the host's name, PID the writer's process id). A
//     writer killed before it could remove its own (kill -9, a crash, a
//     power cut) leaves it behind; the next Create or Check of NAME on the
//     same host removes every such file of NAME whose process is gone.
package fileout

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is an output being written. Write to it, then Commit; Abort, safe
// to defer, discards what was written unless Commit succeeded.
type File struct {
	name   string   // the caller's path, for messages
	f      *os.File // the temporary file, or the path itself when in place
	target string   // the path the temporary file is renamed over
	tmp    string   // the temporary file's name; empty when in place
	// copyIn: Commit copies the temporary file into target instead of
	// renaming it (hard links, another owner).
	copyIn bool
	err    error // the first write error
	done   bool
}

// Create starts writing name. It fails at once when name cannot be
// written: a directory, a missing directory, a file the user may not
// write, no permission to create the temporary file beside the target.
func Create(name string) (*File, error) {
	if fd, ok := openFD(name); ok {
		f, err := dupFD(fd)
		if err != nil {
			return nil, pathError(name, err)
		}
		return &File{name: name, f: f, target: name}, nil
	}
	target, fi, err := stat(name)
	if err != nil {
		return nil, err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		// A device, a pipe or a socket: written in place, never replaced.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, pathError(name, err)
		}
		return &File{name: name, f: f, target: target}, nil
	}
	if err := checkWritable(name, target, fi); err != nil {
		return nil, err
	}
	f, tmp, err := createTemp(target)
	if err != nil {
		return nil, pathError(name, fmt.Errorf("create a temporary file in %s: %w", filepath.Dir(target), Bare(err)))
	}
	out := &File{name: name, f: f, target: target, tmp: tmp}
	if fi != nil {
		out.copyIn = shared(fi)
		// The kernel gave the new file 0666 &^ umask; a replaced file
		// keeps its own mode.
		keep := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		if err := f.Chmod(keep); err != nil && !out.copyIn {
			out.Abort()
			return nil, pathError(name, err)
		}
	}
	return out, nil
}

// Check returns the error Create would return for name, without writing
// anything there: for a missing or regular file, a temporary file is
// created beside it and removed. A device or pipe is not opened (opening
// a FIFO waits for a reader).
func Check(name string) error {
	if _, ok := openFD(name); ok {
		return nil
	}
	target, fi, err := stat(name)
	if err != nil || (fi != nil && !fi.Mode().IsRegular()) {
		return err
	}
	if err := checkWritable(name, target, fi); err != nil {
		return err
	}
	f, tmp, err := createTemp(target)
	if err != nil {
		return pathError(name, fmt.Errorf("create a temporary file in %s: %w", filepath.Dir(target), Bare(err)))
	}
	f.Close()
	os.Remove(tmp)
	return nil
}

// checkWritable refuses an existing file that cannot be opened for
// writing, as the shell's > does: opening it, without truncating, and
// closing it changes nothing.
func checkWritable(name, target string, fi fs.FileInfo) error {
	if fi == nil {
		return nil
	}
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return pathError(name, err)
	}
	f.Close()
	return nil
}

// openFD returns the descriptor name stands for: "-" is standard output,
// /dev/stdout and /dev/stderr are 1 and 2, /dev/fd/N and /proc/self/fd/N
// are N.
func openFD(name string) (int, bool) {
	if name == "-" {
		return 1, true
	}
	switch p := filepath.Clean(name); p {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	default:
		for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
			if rest, ok := strings.CutPrefix(p, dir); ok {
				if fd, err := strconv.Atoi(rest); err == nil && fd >= 0 && strconv.Itoa(fd) == rest {
					return fd, true
				}
			}
		}
	}
	return 0, false
}

// stat resolves name's links and returns the path to write and its
// FileInfo, nil when it does not exist. A directory is an error.
func stat(name string) (string, fs.FileInfo, error) {
	target, err := resolve(name)
	if err != nil {
		return "", nil, pathError(name, err)
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, pathError(name, err)
	case fi.IsDir():
		return "", nil, pathError(name, errors.New("is a directory"))
	}
	return target, fi, nil
}

// Write writes p; after the first error every Write returns it.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, pathError(f.name, os.ErrClosed)
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = pathError(f.name, err)
	}
	return n, f.err
}

// Commit finishes the file: the temporary file is synced, closed and
// renamed over the target; a file written in place is closed. After an
// error nothing of the output is left behind (in place, what was written
// stays written).
func (f *File) Commit() error {
	if f.done {
		return pathError(f.name, os.ErrClosed)
	}
	if f.err != nil {
		f.Abort()
		return f.err
	}
	f.done = true
	if f.tmp == "" {
		if err := f.close(); err != nil {
			return pathError(f.name, err)
		}
		return nil
	}
	var err error
	if f.copyIn {
		err = f.copyInto()
	} else {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !f.copyIn {
		err = os.Rename(f.tmp, f.target)
	}
	os.Remove(f.tmp)
	if err != nil {
		return pathError(f.name, err)
	}
	return nil
}

// copyInto copies the finished temporary file into the target, truncated
// and written in place, and syncs it.
func (f *File) copyInto() error {
	if _, err := f.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dst, err := os.OpenFile(f.target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, f.f)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// close closes the file, but never the process's own standard output or
// error.
func (f *File) close() error {
	if f.f == os.Stdout || f.f == os.Stderr {
		return nil
	}
	return f.f.Close()
}

// Abort discards the output: the temporary file is closed and removed. It
// does nothing after Commit or a previous Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// Write creates or replaces name with what fill writes, as Create and
// Commit do; when fill returns an error, nothing is left behind and that
// error is returned.
func Write(name string, fill func(w io.Writer) error) error {
	f, err := Create(name)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile creates or replaces name with data.
func WriteFile(name string, data []byte) error {
	return Write(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve follows name's symbolic links to the path to write: an existing
// file, or the missing file that name (or the last link) points to.
func resolve(name string) (string, error) {
	p := name
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			return resolved, nil
		}
		// A dangling link: write the file it names.
		if hops == maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
}

// tempPrefix is the start of the names of target's temporary files
// written on this host: .NAME.tmp-HOST-, which the writer's process id,
// a dash and a random number follow.
func tempPrefix(target string) string {
	h := fnv.New32a()
	name, _ := os.Hostname()
	h.Write([]byte(name))
	return "." + filepath.Base(target) + ".tmp-" + strconv.FormatUint(uint64(h.Sum32()), 36) + "-"
}

// removeStale removes the temporary files of target that processes of
// this host, gone now, left behind: killed while writing, they could not
// remove their own. A file of a live process, of another host, of
// another user or not a regular file is left alone.
func removeStale(target string) {
	dir := filepath.Dir(target)
	prefix := tempPrefix(target)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		if fi, err := e.Info(); err == nil && ours(fi) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// createTemp creates a new file beside target with mode 0666, which the
// kernel lowers by the umask, first removing the stale temporary files
// of target (removeStale).
func createTemp(target string) (*os.File, string, error) {
	removeStale(target)
	prefix := filepath.Join(filepath.Dir(target), tempPrefix(target)) + strconv.Itoa(os.Getpid()) + "-"
	for try := 0; ; try++ {
		tmp := prefix + strconv.FormatUint(uint64(rand.Uint32()), 36)
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, "", err
		}
	}
}

// pathError is "write NAME: cause", the cause without the file name an
// *fs.PathError or *os.LinkError carries (the temporary file's).
func pathError(name string, err error) error {
	return fmt.Errorf("write %s: %w", name, Bare(err))
}

// Bare is err without the file name an *fs.PathError or *os.LinkError
// carries, for a message that names the file itself (or another name: the
// temporary file's is never shown).
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Same reports whether the paths a and b name the same output: the same
// descriptor, the same path once links are followed, or the same existing
// file (a hard link).
func Same(a, b string) bool {
	fa, okA := openFD(a)
	fb, okB := openFD(b)
	if okA || okB {
		return okA && okB && fa == fb
	}
	ta, errA := resolve(a)
	tb, errB := resolve(b)
	if errA != nil || errB != nil {
		return false
	}
	if absA, err := filepath.Abs(ta); err == nil {
		if absB, err := filepath.Abs(tb); err == nil && absA == absB {
			return true
		}
	}
	sa, errA := os.Stat(ta)
	sb, errB := os.Stat(tb)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Replaced reports whether writing name replaces it whole, so that a
// caller may write it again with more: a missing or regular file. A
// descriptor, a device or a pipe is written in place, and each write of
// it adds to what it got before.
func Replaced(name string) bool {
	if _, ok := openFD(name); ok {
		return false
	}
	_, fi, err := stat(name)
	return err == nil && (fi == nil || fi.Mode().IsRegular())
}
