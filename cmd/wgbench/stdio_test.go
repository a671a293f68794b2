package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// TestStdinDash: "--in -", "--proof -" and "merkle join -" read standard
// input, as "-" means in b3sum and combine (they said "-: no such file").
func TestStdinDash(t *testing.T) {
	dir := t.TempDir()
	leaves := make([]byte, 8*32)
	rand.Read(leaves)
	in := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(in, leaves, 0o644))

	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := wgbenchProcess(t, stdin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "%q: %s", args, stderr.String())
		return string(out)
	}
	root := run("", "merkle", "--backend", "cpu", "--hash", "blake3", "--in", in)
	require.Equal(t, root, run(string(leaves), "merkle", "--backend", "cpu", "--hash", "blake3", "--in", "-"))

	proof := run(string(leaves), "merkle", "prove", "--backend", "cpu", "--hash", "blake3", "--in", "-", "--index", "5")
	require.Contains(t, run(proof, "merkle", "verify", "--hash", "blake3", "--proof", "-"), "valid")

	// join: the lower proof from standard input, the upper from a file.
	lower := run("", "merkle", "prove", "--backend", "cpu", "--hash", "blake3", "--in", in, "--range", "1/2", "--index", "5")
	var records strings.Builder
	for _, r := range []string{"0/2", "1/2"} {
		records.WriteString(run("", "merkle", "--backend", "cpu", "--hash", "blake3", "--in", in, "--range", r))
	}
	upper := filepath.Join(dir, "upper.json")
	require.NoError(t, os.WriteFile(upper, []byte(run(records.String(), "merkle", "combine", "--backend", "cpu", "--prove", "1")), 0o644))
	require.Equal(t, proof, run(lower, "merkle", "join", "-", upper))
}

// TestOutStdout: --out /dev/stdout and --out -, with standard output a
// file opened with >>, append to it: its earlier bytes stay (a rename over
// the file dropped them); into a pipe they write the pipe.
func TestOutStdout(t *testing.T) {
	dir := t.TempDir()
	els := make([]byte, 4*8*4) // four digests of four canonical elements
	in := filepath.Join(dir, "digests.bin")
	require.NoError(t, os.WriteFile(in, els, 0o644))
	wantOut, _, err := wgbench(t, "rescue", "merge", "--backend", "cpu", "--in", in)
	require.NoError(t, err)
	want := []byte(wantOut)

	for _, out := range []string{"/dev/stdout", "-"} {
		log := filepath.Join(dir, "app.log")
		require.NoError(t, os.WriteFile(log, []byte("earlier\n"), 0o644))
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		cmd := wgbenchProcess(t, "", "rescue", "merge", "--backend", "cpu", "--in", in, "--out", out)
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		f.Close()
		require.NoError(t, err, "%s: %s", out, stderr.String())
		require.Equal(t, append([]byte("earlier\n"), want...), mustRead(t, log), out)
		requireNoTemp(t, dir)

		cmd = wgbenchProcess(t, "", "rescue", "merge", "--backend", "cpu", "--in", in, "--out", out)
		stderr.Reset()
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		require.NoError(t, err, "%s into a pipe: %s", out, stderr.String())
		require.Equal(t, want, got, out)
	}
	// selftest --json and bench --json write a pipe as well; bench, which
	// rewrites a file as results come in, writes a pipe once.
	for _, args := range [][]string{
		{"selftest", "--backend", "cpu", "--json", "/dev/stdout"},
		{"bench", "transfer", "--backend", gputest.Backends()[0], "--quick", "--repeats", "1", "--json", "/dev/stdout"},
	} {
		cmd := wgbenchProcess(t, "", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		require.NoError(t, err, "%q: %s", args, stderr.String())
		require.Contains(t, string(got), "{", "%q", args)
		if args[0] == "bench" {
			require.Equal(t, 1, strings.Count(string(got), `"format": "wgbench bench results"`), "one JSON document: %s", got)
		}
	}
}

// TestNodesOnStdout: merkle --out - and commit --out - write the nodes
// alone to standard output, and the root to standard error (the root's hex
// line followed the nodes, and a 64-leaf tree gave 2113 bytes, not 2048);
// merkle --range --out /dev/stdout prints its record line once; commit
// --prove refuses --out -, which would mix the nodes with the proof.
func TestNodesOnStdout(t *testing.T) {
	dir := t.TempDir()
	leaves := make([]byte, 64*32)
	rand.Read(leaves)
	in := filepath.Join(dir, "leaves.bin")
	require.NoError(t, os.WriteFile(in, leaves, 0o644))
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := wgbenchProcess(t, "", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "%q: %s", args, stderr.String())
		return string(out), stderr.String()
	}
	for _, c := range [][]string{
		{"merkle", "--backend", "cpu", "--hash", "blake3", "--in", in},
		{"commit", "--backend", "cpu", "--records", "32", "--in", in},
	} {
		root, _ := run(c...)
		file := filepath.Join(dir, "nodes")
		_, _ = run(append(c, "--out", file)...)
		nodes := mustRead(t, file)
		require.Len(t, nodes, 64*32)
		for _, out := range []string{"-", "/dev/stdout"} {
			got, stderr := run(append(c, "--out", out)...)
			require.Equal(t, string(nodes), got, "%q --out %s: the nodes alone", c[0], out)
			require.Equal(t, root, stderr, "%q --out %s: the root on standard error", c[0], out)
		}
	}
	line, _ := run("merkle", "--backend", "cpu", "--hash", "blake3", "--in", in, "--range", "1/4")
	got, _ := run("merkle", "--backend", "cpu", "--hash", "blake3", "--in", in, "--range", "1/4", "--out", "/dev/stdout")
	require.Equal(t, line, got)

	cmd := wgbenchProcess(t, "", "commit", "--backend", "cpu", "--records", "32", "--in", in, "--prove", "3", "--out", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.Error(t, err)
	require.Empty(t, out)
	require.Contains(t, stderr.String(), "--out - and --prove would both write standard output")
}
