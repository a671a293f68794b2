package bench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
)

// svgTexts returns the text of every text element of the SVG file path.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(mustRead(t, path)))
	var texts []string
	in := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return texts
		}
		require.NoError(t, err, "%s is not well-formed XML", path)
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
		case xml.EndElement:
			in = false
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); in && s != "" {
				texts = append(texts, s)
			}
		}
	}
}

// TestPlots draws each kind of plot the suites make, from two adapters'
// results, and checks that what a reader needs is written on it: the
// title, both axes' titles with their units, numbers at the ticks of both
// axes, a legend entry per adapter and reference line; and that the PNG
// beside each SVG is an image of the same plot.
func TestPlots(t *testing.T) {
	adapters := []struct{ device, backend string }{{"H100", "vulkan"}, {"llvmpipe", "vulkan"}}
	var all []results.Table
	for i, a := range adapters {
		f := float64(1 + 9*(1-i)) // the first adapter is 10 times faster
		base := results.Table{Measured: results.Measured{Device: a.device, Backend: a.backend}, Axes: results.Axes{LogX: true}}
		tr := base
		tr.Suite, tr.Title, tr.XLabel, tr.YLabel = "transfer", "Host-device transfer", "bytes", "host→device GB/s"
		tr.Points = []results.Point{{X: 16 << 20, Y: 2.5 * f}, {X: 64 << 20, Y: 3 * f}, {X: 1 << 30, Y: 3.2 * f}}
		mk := base
		mk.Suite, mk.Title, mk.XLabel, mk.YLabel = "merkle", "Merkle tree, Rescue merge", "leaves", "leaves per second (kernel)"
		for _, s := range []string{"approach 1", "approach 3"} {
			mk.Points = append(mk.Points, results.Point{X: 1 << 10, Y: 1e5 * f, Series: s}, results.Point{X: 1 << 20, Y: 4e6 * f, Series: s})
		}
		ei := base
		ei.Suite, ei.Title, ei.XLabel, ei.YLabel = "eigen", "Eigen: whole method on N×N Hilbert matrices", "N", "GPU ms"
		ei.Points = []results.Point{{X: 1024, Y: 30 / f}, {X: 8192, Y: 900 / f}}
		ei.Refs = []results.Ref{{Label: "Xeon 8358, 128 threads (published)", Y: 126}}
		rs := base
		rs.Suite, rs.Title, rs.XLabel, rs.YLabel = "eigen", "Eigen: row sums of an N×N float32 matrix", "N", "fastest variant's GB/s"
		rs.Points = []results.Point{{X: 128, Y: 0.5 * f}, {X: 8192, Y: 400 * f}} // more than four decades
		all = append(all, tr, mk, ei, rs)
	}
	groups, err := svgGroups(all)
	require.NoError(t, err)
	require.Len(t, groups, 4)
	dir := t.TempDir()
	require.NoError(t, writeSVGs(groups, dir))

	for _, tc := range []struct {
		file string
		want []string
	}{
		{"transfer-host-device-transfer.svg", []string{"Host-device transfer", "size (bytes, log scale)", "host→device GB/s",
			"16 MiB", "64 MiB", "1 GiB", "2", "5", "10", "20", "H100 (vulkan)", "llvmpipe (vulkan)"}},
		{"merkle-merkle-tree-rescue-merge.svg", []string{"Merkle tree, Rescue merge", "leaves (log scale)", "leaves per second (kernel)",
			"1024", "1.05M", "100k", "1M", "10M", "H100 (vulkan), approach 1", "H100 (vulkan), approach 3", "llvmpipe (vulkan), approach 3"}},
		{"eigen-eigen-whole-method-on-n-n-hilbert-matrices.svg", []string{"Eigen: whole method on N×N Hilbert matrices", "N (log scale)", "GPU ms",
			"1024", "8192", "2", "10", "100", "1000", "Xeon 8358, 128 threads (published): 126 ms"}},
		// Only powers of ten are labelled, and the axis ends on them.
		{"eigen-eigen-row-sums-of-an-n-n-float32-matrix.svg", []string{"Eigen: row sums of an N×N float32 matrix", "fastest variant's GB/s",
			"128", "8192", "0.1", "1", "10", "100", "1000", "10000"}},
	} {
		path := filepath.Join(dir, tc.file)
		texts := svgTexts(t, path)
		for _, w := range tc.want {
			require.Contains(t, texts, w, "%s: texts %q", tc.file, texts)
		}
		f, err := os.Open(strings.TrimSuffix(path, ".svg") + ".png")
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, tc.file)
		require.Greater(t, img.Bounds().Dx(), 600, tc.file)
		require.Greater(t, img.Bounds().Dy(), 400, tc.file)
	}
}

// TestPlotUndrawable: bench plot refuses results that a log scale cannot
// draw, saying why, and writes none of its files (one of TestReliability's
// command-line cases).
func TestPlotUndrawable(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	resultsFile := func(name string, pts ...results.Point) string {
		b, err := json.Marshal([]results.Table{{Suite: "s", Title: "T", Measured: results.Measured{Device: "d", Backend: "b"}, Columns: []string{"a"},
			Axes: results.Axes{XLabel: "bytes", YLabel: "GB/s", LogX: true}, Points: pts}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(at(name), b, 0o644))
		return at(name)
	}
	oneX := resultsFile("one-x.json", results.Point{X: 1024, Y: 5}, results.Point{X: 1024, Y: 6})
	zeroY := resultsFile("zero-y.json", results.Point{X: 1024, Y: 5}, results.Point{X: 2048, Y: 0})
	for _, tc := range []struct {
		args         []string
		errs, absent []string
	}{
		{[]string{"bench", "plot", "--from", oneX, "--svg", at("svg-one")}, []string{"a plot needs two values at least"}, []string{at("svg-one")}},
		{[]string{"bench", "plot", "--from", zeroY, "--svg", at("svg-zero"), "--md", at("zero.md")}, []string{"GB/s 0", "needs values above 0"}, []string{at("svg-zero"), at("zero.md")}},
	} {
		code, stdout, stderr := wgbenchCLI.Exit("", tc.args...)
		require.Equal(t, 2, code, "%q: %s", tc.args, stderr)
		require.Empty(t, stdout)
		for _, e := range tc.errs {
			require.Contains(t, stderr, e)
		}
		require.Less(t, len(stderr), 600, "the message is short")
		for _, p := range tc.absent {
			_, err := os.Lstat(p)
			require.True(t, errors.Is(err, fs.ErrNotExist), "%s must not exist: %v", p, err)
		}
		requireNoTemp(t, dir)
	}
}
