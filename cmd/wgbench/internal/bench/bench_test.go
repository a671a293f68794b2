package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/internal/base/impl"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// requireSVG checks that path is a well-formed XML document whose root
// element is svg.
func requireSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := xml.NewDecoder(f)
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s is not well-formed XML", path)
		if s, ok := tok.(xml.StartElement); ok && root == "" {
			root = s.Name.Local
		}
	}
	require.Equal(t, "svg", root, path)
}

func svgFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	return files
}

func TestBenchTransfer(t *testing.T) {
	backend := gputest.Backends()[0]
	dir := t.TempDir()
	jsonPath, mdPath, svgDir := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "svg")
	stdout, _, err := wgbench(t, "bench", "transfer", "--quick", "--repeats", "1", "--backend", backend,
		"--json", jsonPath, "--md", mdPath, "--svg", svgDir)
	require.NoError(t, err)

	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var res results.File
	require.NoError(t, json.Unmarshal(b, &res), "results JSON")
	require.Equal(t, results.Format, res.Format)
	require.Equal(t, results.Version, res.Version)
	require.True(t, res.Complete)
	require.Equal(t, backend, res.Backend)
	require.NotEmpty(t, res.Device)
	require.NotEmpty(t, res.Commit, "a commit or unknown")
	require.Contains(t, res.Command, "wgbench bench transfer --quick")
	_, err = time.Parse(time.RFC3339, res.Date)
	require.NoError(t, err)
	// Every timed case keeps its samples: the upload, the download and
	// the file upload of each size, one repeat each.
	require.Len(t, res.Timings, 6)
	for _, tm := range res.Timings {
		require.Equal(t, "transfer", tm.Suite)
		require.Len(t, tm.SamplesMs, 1)
		require.Positive(t, tm.MedianMs)
		require.LessOrEqual(t, tm.MinMs, tm.MedianMs)
		require.LessOrEqual(t, tm.MedianMs, tm.MaxMs)
	}
	require.Equal(t, "transfer 16 MiB", res.Timings[0].Case)
	// The rows' numbers are JSON numbers, named with their units.
	var raw struct {
		Tables []struct {
			Rows []map[string]any `json:"rows"`
		} `json:"tables"`
	}
	require.NoError(t, json.Unmarshal(b, &raw))
	require.IsType(t, float64(0), raw.Tables[0].Rows[0]["host_to_device_gb_per_s"], "%v", raw.Tables[0].Rows[0])
	require.IsType(t, float64(0), raw.Tables[0].Rows[0]["device_to_host_ms"], "%v", raw.Tables[0].Rows[0])
	require.Equal(t, float64(16<<20), raw.Tables[0].Rows[0]["size"], "a size in bytes")
	require.Equal(t, "16 MiB", raw.Tables[0].Rows[0]["size_text"])
	tables := res.Tables
	require.Len(t, tables, 1)
	tb := tables[0]
	require.Equal(t, "transfer", tb.Suite)
	require.Equal(t, "Host-device transfer", tb.Title)
	require.Equal(t, backend, tb.Backend)
	require.NotEmpty(t, tb.Device)
	require.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, tb.Date)
	require.Equal(t, []string{"size", "host→device ms", "host→device GB/s", "device→host ms", "device→host GB/s", "file→device GB/s", "checked"}, tb.Columns)
	require.Len(t, tb.Rows, 2, "--quick measures 16 and 64 MiB")
	for i, size := range []string{"16 MiB", "64 MiB"} {
		row := tb.Rows[i]
		require.Len(t, row, len(tb.Columns))
		require.Equal(t, size, row[0])
		for _, cell := range row[1:6] {
			v, err := strconv.ParseFloat(cell, 64)
			require.NoError(t, err, "row %d cell %q", i, cell)
			require.Positive(t, v, "row %d cell %q", i, cell)
		}
		require.Equal(t, "round trips equal", row[6])
	}
	require.Len(t, tb.Points, 2)
	for _, p := range tb.Points {
		require.Positive(t, p.Y)
	}
	require.Equal(t, float64(16<<20), tb.Points[0].X)

	md, err := os.ReadFile(mdPath)
	require.NoError(t, err)
	require.Contains(t, string(md), "### Host-device transfer\n")
	require.Contains(t, string(md), "| size | host→device ms | host→device GB/s | device→host ms | device→host GB/s | file→device GB/s | checked |\n| --- | --- | --- | --- | --- | --- | --- |\n| 16 MiB | ")
	require.Contains(t, string(md), "Device: "+tb.Device+" ("+backend)
	require.Equal(t, string(md), stdout, "the Markdown file holds the tables printed")

	svgs := svgFiles(t, svgDir)
	require.Equal(t, []string{filepath.Join(svgDir, "transfer-host-device-transfer.svg")}, svgs)
	requireSVG(t, svgs[0])

	// bench plot renders the same Markdown and plots from the saved JSON.
	md2, svg2 := filepath.Join(dir, "again.md"), filepath.Join(dir, "again")
	_, _, err = wgbench(t, "bench", "plot", "--from", jsonPath, "--md", md2, "--svg", svg2)
	require.NoError(t, err)
	again, err := os.ReadFile(md2)
	require.NoError(t, err)
	require.Equal(t, string(md), string(again))
	require.Len(t, svgFiles(t, svg2), 1)
	requireSVG(t, svgFiles(t, svg2)[0])

	// A file of the first format, a list of tables with string cells,
	// still plots and prints the same tables.
	old, err := json.Marshal([]map[string]any{{
		"suite": tb.Suite, "title": tb.Title, "device": tb.Device, "backend": tb.Backend, "driver": tb.Driver,
		"date": tb.Date, "command": tb.Command, "columns": tb.Columns, "rows": tb.Rows, "notes": tb.Notes,
		"x_label": tb.XLabel, "y_label": tb.YLabel, "log_x": tb.LogX, "points": tb.Points,
	}})
	require.NoError(t, err)
	oldPath, md3 := filepath.Join(dir, "old.json"), filepath.Join(dir, "old.md")
	require.NoError(t, os.WriteFile(oldPath, old, 0o644))
	_, _, err = wgbench(t, "bench", "plot", "--from", oldPath, "--md", md3, "--svg", filepath.Join(dir, "old"))
	require.NoError(t, err)
	require.Equal(t, string(md), string(mustRead(t, md3)))
}

// TestBenchInterrupt stops a bench run part way through, as Ctrl-C does,
// and checks that its JSON file holds what was measured by then.
func TestBenchInterrupt(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	g := &cli.Globals{Args: []string{"bench", "transfer", "--quick", "--repeats", "200", "--backend", backend, "--json", jsonPath}}
	root := wgbenchCLI.Root(g)
	root.SetArgs(g.Args)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the first timing is in the file.
	go func() {
		for {
			if b, err := os.ReadFile(jsonPath); err == nil && bytes.Contains(b, []byte(`"samples_ms"`)) {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err := root.ExecuteContext(ctx)
	require.ErrorIs(t, err, cli.ErrInterrupted)
	require.ErrorContains(t, err, jsonPath+" holds the 0 tables and ")
	var res results.File
	require.NoError(t, json.Unmarshal(mustRead(t, jsonPath), &res))
	require.False(t, res.Complete)
	require.NotEmpty(t, res.Timings)
	require.Len(t, res.Timings[0].SamplesMs, 200)
	requireNoTemp(t, filepath.Dir(jsonPath))
}

// TestEigenResidentInterrupt: an interrupt that arrives after the warm-up
// and before the first timed run returns errInterrupted (it indexed an
// empty slice of wall times and panicked, exit 2 instead of 130).
func TestEigenResidentInterrupt(t *testing.T) {
	const n = 16
	h := eigen.Hilbert(n)
	ref, err := eigen.Reference64(h, n, eigen.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := newBenchConfig(true, 1)
	cfg.ctx = ctx
	_, _, _, err = eigenResident(nil, cfg, h, n, ref, eigen.Options{})
	require.ErrorIs(t, err, cli.ErrInterrupted)
}

func TestBenchBadInput(t *testing.T) {
	names := suiteNames(benchSuites())
	require.Equal(t, []string{"blake3", "eigen", "linea", "merkle", "ntt", "poseidon2", "poseidon2-babybear", "poseidon2-gnark-babybear", "poseidon2-gnark-koalabear", "poseidon2-koalabear", "rescue", "rpo", "transfer", "vortex"}, names)
	for _, args := range [][]string{{"bench", "nope"}, {"bench", "transfer", "nope"}} {
		_, _, err := wgbench(t, args...)
		require.ErrorContains(t, err, `unknown suite "nope": choose from `+strings.Join(names, ", ")+", or all", "%q", args)
	}

	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte(`{"not": "a list"}`), 0o644))
	array := filepath.Join(dir, "array.json")
	require.NoError(t, os.WriteFile(array, []byte(`[{"name": "x", "value": 1}]`), 0o644))
	same := filepath.Join(dir, "same")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "plot"}, "need at least one --from file"},
		{[]string{"bench", "plot", "--svg", dir}, "need at least one --from file"},
		{[]string{"bench", "plot", "--from", garbage}, "--svg DIR or --md FILE"},
		{[]string{"bench", "plot", "--from", garbage, "--md", filepath.Join(dir, "x.md")}, "garbage.json is not a wgbench results file"},
		{[]string{"bench", "plot", "--from", filepath.Join(dir, "missing.json"), "--md", filepath.Join(dir, "x.md")}, "missing.json"},
		{[]string{"bench", "plot", "--from", garbage, "stray"}, `unknown command "stray"`},
		// Any JSON array read as tables of empty fields.
		{[]string{"bench", "plot", "--from", array, "--md", filepath.Join(dir, "x.md")}, "array.json is not a wgbench results file: its table 1 has no title or no columns"},
		// The Markdown replaced the JSON.
		{[]string{"bench", "transfer", "--json", same, "--md", same}, "are the same file"},
		{[]string{"bench", "transfer", "--json", "-", "--md", "/dev/stdout"}, "are the same file"},
		// The flags take what their variables take (wgpu.FromEnv), not
		// a value clamped or wrapped without a word.
		{[]string{"bench", "transfer", "--staging-mib", "0"}, `--staging-mib "0": accepted is a size in MiB from 1 to 65536 (as WGCOMPUTE_STAGING_MIB)`},
		{[]string{"bench", "transfer", "--staging-mib", "999999999"}, "accepted is a size in MiB from 1 to 65536"},
		{[]string{"bench", "transfer", "--staging-mib", "17592186044417"}, "accepted is a size in MiB from 1 to 65536"},
		{[]string{"bench", "transfer", "--staging-slots", "0"}, `--staging-slots "0": accepted is a count from 1 to 64`},
		{[]string{"bench", "transfer", "--staging-slots", "1000"}, "accepted is a count from 1 to 64"},
		{[]string{"bench", "transfer", "--copy-workers", "-1"}, `--copy-workers "-1": accepted is a count of goroutines, 1 or more`},
	} {
		_, _, err := wgbench(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "%q", tc.args)
	}
	_, err := os.Stat(filepath.Join(dir, "x.md"))
	require.True(t, os.IsNotExist(err), "a failed plot must not write its output")
	_, err = os.Stat(same)
	require.True(t, os.IsNotExist(err), "a refused bench must not write its output")
}

// TestBenchSuitesHashes checks that every hash of the registry with batch
// functions has a suite, and that the suites' extras name hashes of the
// registry (against, one of the same field with a short name of its own).
func TestBenchSuitesHashes(t *testing.T) {
	suites := map[string]bool{}
	for _, s := range elementHashSuites() {
		suites[s.name] = true
	}
	for _, h := range registry.Batched() {
		require.True(t, suites[h.Name], "no suite for %s", h.Name)
		require.NotEmpty(t, impl.List(h.Name), h.Name)
	}
	for name, x := range suiteExtras {
		h, err := registry.Lookup(name)
		require.NoError(t, err)
		require.NotNil(t, h.Batch, "extras for %s, which has no batch functions", name)
		if x.against != "" {
			o, err := registry.Lookup(x.against)
			require.NoError(t, err)
			require.Equal(t, h.Field, o.Field, "%s against %s", name, x.against)
			require.NotEmpty(t, x.short, name)
			require.NotEmpty(t, suiteExtras[x.against].short, x.against)
		}
	}
}

// TestBenchDefaultElementSuite runs the suite that a Goldilocks hash
// without extras of its own gets, on Rescue, with --quick on the CPU
// backend.
func TestBenchDefaultElementSuite(t *testing.T) {
	h, err := registry.Lookup("rescue")
	require.NoError(t, err)
	s := elementHashSuite(h, extras{}, benchHashOf)
	require.Equal(t, "rescue", s.name)
	tables, err := s.run(nil, newBenchConfig(true, 1))
	require.NoError(t, err)
	require.Len(t, tables, 2)
	require.Len(t, tables[0].Rows, 2, "--quick measures 64² and 128²")
	require.Len(t, tables[1].Rows, len(benchHashOf(h).variants()))
}

// TestBenchTimingNames checks that each timed case in bench --json is
// named by the step it belongs to, not by the one before.
func TestBenchTimingNames(t *testing.T) {
	backend := gputest.Backends()[0]
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	_, _, err := wgbench(t, "bench", "poseidon2", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath)
	require.NoError(t, err)
	var res results.File
	require.NoError(t, json.Unmarshal(mustRead(t, jsonPath), &res))
	var names []string
	for _, tm := range res.Timings {
		require.NotEmpty(t, tm.Case, "every timing belongs to a step")
		if len(names) == 0 || names[len(names)-1] != tm.Case {
			names = append(names, tm.Case)
		}
	}
	require.Equal(t, "poseidon2 merge 4096", names[0])
	require.Equal(t, "poseidon2 hash_elements, 64² inputs", names[1])
	require.Contains(t, names, "poseidon2 variant "+res.Tables[1].Rows[0][0])
}

// TestBenchHostBatches: --staging-batches reaches the element suites'
// batches, whose notes say where the pieces were: device memory with
// device, host memory with host on Vulkan, and by default host memory
// where the adapter's memory is the host's (lavapipe, an integrated GPU)
// and device memory elsewhere; a value it does not accept is refused.
func TestBenchHostBatches(t *testing.T) {
	backend := gputest.Backends()[0]
	notes := func(args ...string) string {
		jsonPath := filepath.Join(t.TempDir(), "r.json")
		_, _, err := wgbench(t, append([]string{"bench", "poseidon2", "--quick", "--repeats", "1", "--backend", backend, "--json", jsonPath}, args...)...)
		require.NoError(t, err)
		var res results.File
		require.NoError(t, json.Unmarshal(mustRead(t, jsonPath), &res))
		return strings.Join(res.Tables[0].Notes, "\n")
	}
	require.Contains(t, notes("--staging-batches", "device"), "Pieces staged in device memory")
	if backend == "vulkan" {
		require.Contains(t, notes("--staging-batches", "host"), "Pieces in host memory")
		want := "Pieces staged in device memory"
		if typ := gputest.Context(t, backend).Info().Type; typ == "cpu" || typ == "integrated" {
			want = "Pieces in host memory"
		}
		require.Contains(t, notes(), want)
	}
	_, _, err := wgbench(t, "bench", "poseidon2", "--quick", "--staging-batches", "pinned")
	require.ErrorContains(t, err, `--staging-batches "pinned": accepted are auto`)
}

// TestBenchDefaultElementSuite31 runs the default suite of each 31-bit
// hash, with --quick on the CPU backend and a GPU one: every rate a
// positive number, the merges checked against the reference.
func TestBenchDefaultElementSuite31(t *testing.T) {
	suites := map[string]suite{}
	for _, s := range elementHashSuites() {
		suites[s.name] = s
	}
	for _, f := range registry.Fields31 {
		h := registry.Of(f)[0]
		s, ok := suites[h.Name]
		require.True(t, ok, "no suite for %s", h.Name)
		for _, backend := range []string{"cpu", gputest.Backends()[0]} {
			var ctx *wgpu.Context
			if backend != "cpu" {
				ctx = gputest.Context(t, backend)
			}
			tables, err := s.run(ctx, newBenchConfig(true, 1))
			require.NoError(t, err, "%s %s", h.Name, backend)
			require.Len(t, tables, 2)
			require.Len(t, tables[0].Rows, 2, "--quick measures 64² and 128²")
			for _, r := range tables[0].Rows {
				rate, err := strconv.ParseFloat(r[2], 64)
				require.NoError(t, err)
				require.Positive(t, rate, "%s %s: %v", h.Name, backend, r)
			}
			require.Equal(t, [][]string{{"fast"}}, [][]string{{tables[1].Rows[0][0]}})
		}
	}
}
