package b3sum

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestB3sum runs b3sum on the CPU backend, with the default device (the
// CPU here) and on the GPU of each backend tested (--device gpu).
func TestB3sum(t *testing.T) {
	type env struct{ backend, device string }
	envs := []env{{"cpu", "gpu"}, {"", "auto"}}
	for _, b := range gputest.Backends() {
		envs = append(envs, env{b, "gpu"})
	}
	for _, env := range envs {
		t.Run(env.backend+"/"+env.device, func(t *testing.T) {
			t.Setenv("WGCOMPUTE_BACKEND", env.backend)
			runB3sum := func(t *testing.T, stdin string, args ...string) (string, string, error) {
				return wgbenchIn(t, stdin, append([]string{"b3sum", "--device", env.device}, args...)...)
			}
			dir := t.TempDir()
			a := filepath.Join(dir, "a.txt")
			big := filepath.Join(dir, "big.bin")
			require.NoError(t, os.WriteFile(a, []byte("hello"), 0o644))
			data := bytes.Repeat([]byte("0123456789abcdef"), 70_001)
			require.NoError(t, os.WriteFile(big, data, 0o644))
			hexOf := func(b []byte) string { return hex.EncodeToString(b) }
			ha, hb := blake3.Sum256([]byte("hello")), blake3.Sum256(data)

			out, _, err := runB3sum(t, "", a, big)
			require.NoError(t, err)
			require.Equal(t, hexOf(ha[:])+"  "+a+"\n"+hexOf(hb[:])+"  "+big+"\n", out)

			out, _, err = runB3sum(t, "hello")
			require.NoError(t, err)
			require.Equal(t, "ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f  -\n", out)

			out, errOut, err := runB3sum(t, "hello", "--no-names", filepath.Join(dir, "missing"), "-")
			require.Equal(t, cli.ExitError{Code: 1}, err)
			require.Contains(t, errOut, "missing")
			require.Equal(t, hexOf(ha[:])+"\n", out)

			key := []byte("whats the Elvish word for friend")
			h, err := blake3.NewKeyed(key)
			require.NoError(t, err)
			h.Write([]byte("hello"))
			want := make([]byte, 40)
			h.XOF(want)
			out, _, err = runB3sum(t, string(key), "--keyed", "--length", "40", a)
			require.NoError(t, err)
			require.Equal(t, hexOf(want)+"  "+a+"\n", out)

			_, errOut, err = runB3sum(t, "short key", "--keyed", a)
			require.Equal(t, cli.ExitError{Code: 1}, err)
			require.Equal(t, "Error: expected 32 key bytes from stdin, found 9\n", errOut)
			out, errOut, err = runB3sum(t, string(key), "--keyed", "-", a)
			require.Equal(t, cli.ExitError{Code: 1}, err)
			require.Equal(t, "b3sum: -: Cannot open `-` in keyed mode\n", errOut)
			require.Equal(t, hexOf(want[:32])+"  "+a+"\n", out)

			d := blake3.NewDeriveKey("ctx")
			d.Write([]byte("hello"))
			out, _, err = runB3sum(t, "", "--derive-key", "ctx", "--no-names", a)
			require.NoError(t, err)
			require.Equal(t, hexOf(d.Sum(nil))+"\n", out)

			out, _, err = runB3sum(t, "", filepath.Join(dir, "odd\\name"))
			require.Error(t, err) // missing, but the name must not break the output
			require.Empty(t, out)
			require.Equal(t, `\`+hexOf(ha[:])+`  a\\b`+"\n", b3lineString(t, ha[:], `a\b`))
		})
	}
}

// b3lineString is the line b3sum prints for sum and name.
func b3lineString(t *testing.T, sum []byte, name string) string {
	t.Helper()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	require.NoError(t, (&b3out{w: w}).line(bytes.NewReader(sum), uint64(len(sum)), name, false))
	require.NoError(t, w.Flush())
	return b.String()
}

// TestB3sumNames checks the escaping of names against b3sum 1.2.0: only a
// backslash and a newline are escaped (and mark the line with a leading
// backslash); a carriage return is printed as it is; invalid UTF-8 is
// printed with U+FFFD per maximal invalid subsequence, as Rust's
// from_utf8_lossy does.
func TestB3sumNames(t *testing.T) {
	sum := make([]byte, 32)
	h := hex.EncodeToString(sum)
	for _, tc := range []struct{ name, want string }{
		{"plain.txt", h + "  plain.txt\n"},
		{"a\\b", "\\" + h + "  a\\\\b\n"},
		{"a\nb", "\\" + h + "  a\\nb\n"},
		{"a\rb", h + "  a\rb\n"},
		{"a\xffb", h + "  a\uFFFDb\n"},
		{"\xff\xfe", h + "  \uFFFD\uFFFD\n"},
		{"\xe2\x82", h + "  \uFFFD\n"},
		{"\xe2\x82x", h + "  \uFFFDx\n"},
		{"\xf0\x9f\x98", h + "  \uFFFD\n"},
		{"\xed\xa0\x80", h + "  \uFFFD\uFFFD\uFFFD\n"},
		{"\xc0\xaf", h + "  \uFFFD\uFFFD\n"},
		{"ok \u00e9 \U0001F600 \uFFFD", h + "  ok \u00e9 \U0001F600 \uFFFD\n"},
		{"\xff\\", "\\" + h + "  \uFFFD\\\\\n"},
	} {
		require.Equal(t, tc.want, b3lineString(t, sum, tc.name), "%q", tc.name)
	}
}

// TestB3sumLongOutput checks the streamed extended output against the
// reference, in each mode, past heldOutput.
func TestB3sumLongOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	data := bytes.Repeat([]byte("long output "), 1000)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	key := []byte("whats the Elvish word for friend")
	const n = heldOutput + 77
	for _, mode := range []struct {
		args []string
		h    func() *blake3.Hasher
	}{
		{nil, blake3.New},
		{[]string{"--keyed"}, func() *blake3.Hasher { h, _ := blake3.NewKeyed(key); return h }},
		{[]string{"--derive-key", "ctx"}, func() *blake3.Hasher { return blake3.NewDeriveKey("ctx") }},
	} {
		h := mode.h()
		h.Write(data)
		want := make([]byte, n)
		h.XOF(want)
		args := append(append([]string{"b3sum", "--length", fmt.Sprint(n)}, mode.args...), in)
		stdout, _, err := wgbenchIn(t, string(key), args...)
		require.NoError(t, err, "%q", args)
		require.Equal(t, hex.EncodeToString(want)+"  "+in+"\n", stdout, "%q", args)
	}
}
