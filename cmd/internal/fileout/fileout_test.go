package fileout

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireOnly checks that dir holds exactly names: no temporary file left.
func requireOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	require.ElementsMatch(t, names, got)
}

// requireContent checks that the file path holds want.
func requireContent(t *testing.T, path, want string, msgAndArgs ...any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(b), msgAndArgs...)
}

// requireType checks that path itself, not what a link at path names,
// has the type bit (fs.ModeSymlink, fs.ModeCharDevice, ...).
func requireType(t *testing.T, path string, bit fs.FileMode, msgAndArgs ...any) {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&bit, msgAndArgs...)
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	require.NoError(t, WriteFile(p, []byte("hello")))
	requireContent(t, p, "hello")
	requireOnly(t, dir, "out.bin")
}

func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	require.NoError(t, os.WriteFile(p, []byte("old contents, longer"), 0o600))
	for _, mode := range []fs.FileMode{0o640, 0o755, 0o604} {
		require.NoError(t, os.Chmod(p, mode))
		require.NoError(t, WriteFile(p, []byte("new")))
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, mode, fi.Mode().Perm(), "a replaced file keeps its mode")
		requireContent(t, p, "new")
	}
	requireOnly(t, dir, "out.bin")
}

// TestWriteOverInput reads a file and writes the result over it, as
// 'rescue merge --in f --out f' does: the mode stays.
func TestWriteOverInput(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "data")
	require.NoError(t, os.WriteFile(p, []byte("input"), 0o644))
	require.NoError(t, os.Chmod(p, 0o644))
	in, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, WriteFile(p, append(in, " hashed"...)))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o644), fi.Mode().Perm())
	requireContent(t, p, "input hashed")
}

func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o640))
	require.NoError(t, os.Chmod(target, 0o640))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("target", link))
	chain := filepath.Join(dir, "chain")
	require.NoError(t, os.Symlink("link", chain))

	require.NoError(t, WriteFile(chain, []byte("through two links")))
	for _, l := range []string{link, chain} {
		requireType(t, l, fs.ModeSymlink, "%s must stay a link", l)
	}
	fi, err := os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "the target keeps its mode")
	requireContent(t, target, "through two links")

	// A dangling link: its target is created, the link stays.
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink("created", dangling))
	require.NoError(t, WriteFile(dangling, []byte("new target")))
	requireType(t, dangling, fs.ModeSymlink)
	requireContent(t, filepath.Join(dir, "created"), "new target")
	requireOnly(t, dir, "target", "link", "chain", "dangling", "created")

	// A loop is an error naming the path, not a hang.
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	err = WriteFile(loop, []byte("x"))
	require.ErrorContains(t, err, "write "+loop+": ")
}

func TestDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("%s is not writable here: %v", os.DevNull, err)
	}
	f.Close()
	before, err := os.Lstat(os.DevNull)
	require.NoError(t, err)
	require.NotZero(t, before.Mode()&fs.ModeCharDevice)
	require.NoError(t, WriteFile(os.DevNull, []byte("discarded")))
	after, err := os.Lstat(os.DevNull)
	require.NoError(t, err)
	require.Equal(t, before.Mode(), after.Mode(), "%s must stay a character device", os.DevNull)
}

func TestFillErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	fail := errors.New("the computation failed")
	err := Write(p, func(w io.Writer) error {
		_, err := w.Write([]byte("partial"))
		require.NoError(t, err)
		return fail
	})
	require.ErrorIs(t, err, fail)
	requireOnly(t, dir)

	// An existing file is left as it was.
	require.NoError(t, os.WriteFile(p, []byte("before"), 0o644))
	require.ErrorIs(t, Write(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return fail
	}), fail)
	requireContent(t, p, "before")
	requireOnly(t, dir, "out.bin")
}

func TestAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	f, err := Create(p)
	require.NoError(t, err)
	_, err = f.Write([]byte("partial"))
	require.NoError(t, err)
	f.Abort()
	f.Abort()
	requireOnly(t, dir)
	require.Error(t, f.Commit(), "Commit after Abort")
	requireOnly(t, dir)
}

func TestErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path, want string
	}{
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "out.bin"), "no such file or directory"},
	} {
		err := WriteFile(tc.path, []byte("x"))
		require.ErrorContains(t, err, "write "+tc.path+": ")
		require.ErrorContains(t, err, tc.want)
		require.NotContains(t, err.Error(), ".tmp")
		require.Equal(t, 1, strings.Count(err.Error(), tc.path), "the path is named once: %v", err)
	}
	requireOnly(t, dir)
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	require.NoError(t, Check(p))
	require.NoError(t, os.WriteFile(p, []byte("kept"), 0o644))
	require.NoError(t, Check(p))
	requireContent(t, p, "kept", "Check writes nothing")
	requireOnly(t, dir, "out.bin")
	require.ErrorContains(t, Check(dir), "write "+dir+": is a directory")
	require.ErrorContains(t, Check(filepath.Join(dir, "missing", "x")), "no such file or directory")
	requireOnly(t, dir, "out.bin")
}

func TestSame(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	require.NoError(t, os.WriteFile(a, nil, 0o644))
	require.NoError(t, os.Link(a, b))
	require.NoError(t, os.Symlink("a", c))
	for _, same := range [][2]string{{a, a}, {a, b}, {a, c}, {a, filepath.Join(dir, ".", "a")}, {"-", "/dev/stdout"}, {"/dev/fd/2", "/dev/stderr"}, {filepath.Join(dir, "new"), filepath.Join(dir, "new")}} {
		require.True(t, Same(same[0], same[1]), "%q", same)
	}
	for _, other := range [][2]string{{a, filepath.Join(dir, "new")}, {"-", "/dev/stderr"}, {"-", a}} {
		require.False(t, Same(other[0], other[1]), "%q", other)
	}
	require.True(t, Replaced(a))
	require.True(t, Replaced(filepath.Join(dir, "new")))
	require.False(t, Replaced("-"))
	require.False(t, Replaced(os.DevNull))
}
