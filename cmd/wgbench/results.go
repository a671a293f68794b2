package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
)

// resultsFormat and resultsVersion head a results file that bench --json
// writes; files without them are the first format, a bare list of tables
// whose cells are strings, which bench plot still reads. Version 3 writes
// a row's size as a number of bytes (its text in size_text), where
// version 2 wrote the text.
const (
	resultsFormat  = "wgbench bench results"
	resultsVersion = 3
)

// results is the file bench --json writes: where and how it was measured,
// the tables finished so far, and every timed case with its samples. It is
// rewritten after each measurement, so an interrupted run keeps what it
// measured (Complete false).
type results struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Device  string `json:"device"`
	Backend string `json:"backend"`
	Driver  string `json:"driver"`
	// Date is the run's start, RFC 3339 in UTC.
	Date    string `json:"date"`
	Command string `json:"command"`
	// Commit is the source's revision (with "-dirty" when it had
	// changes), or "unknown" for a binary built without it (go run, go
	// test): sourceCommit.
	Commit   string   `json:"commit"`
	Go       string   `json:"go"`
	Complete bool     `json:"complete"`
	Tables   []table  `json:"tables"`
	Timings  []timing `json:"timings"`
}

// timing is one timed case: every repeat's time, in milliseconds, in the
// order measured, and their minimum, median and maximum. A case with
// several timings (a transfer's upload and download) lists them in the
// order its table's columns show them.
type timing struct {
	Suite     string    `json:"suite"`
	Case      string    `json:"case"`
	SamplesMs []float64 `json:"samples_ms"`
	MinMs     float64   `json:"min_ms"`
	MedianMs  float64   `json:"median_ms"`
	MaxMs     float64   `json:"max_ms"`
}

// newTiming summarizes sorted durations ds (at least one), measured in
// the order given by samples.
func newTiming(suite, name string, samples, sorted []time.Duration) timing {
	t := timing{Suite: suite, Case: name, SamplesMs: make([]float64, len(samples))}
	for i, d := range samples {
		t.SamplesMs[i] = msOf(d)
	}
	t.MinMs, t.MedianMs, t.MaxMs = msOf(sorted[0]), msOf(sorted[len(sorted)/2]), msOf(sorted[len(sorted)-1])
	return t
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// commit is the source's revision as the build gives it with
// -ldflags "-X main.commit=$(git rev-parse --short HEAD)" (make build),
// for a binary built without a VCS stamp (-buildvcs=false, a source tree
// without .git, go build of a copied tree).
var commit string

// SourceCommit is the VCS revision the binary was built from: the build
// information's vcs.revision (with "-dirty" when it had changes), else
// the one -ldflags gave (commit), else "unknown" (go run, go test).
func SourceCommit() string {
	return revision(debug.ReadBuildInfo())
}

// revision is sourceCommit of the build information bi.
func revision(bi *debug.BuildInfo, ok bool) string {
	rev, dirty := "", false
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	switch {
	case rev == "" && commit != "":
		return commit
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}

// versionLine is what wgbench --version prints after "wgbench ": the
// module's version, the commit and the Go version.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	v, goVersion := "(devel)", runtime.Version()
	if ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("%s, commit %s, %s", v, revision(bi, ok), goVersion)
}

// tableJSON is a table as the results file holds it: the cells as
// printed, for the Markdown, and each row again as an object whose keys
// name the column with its unit (fieldName) and whose numbers are
// numbers. Its Rows hide the embedded table's.
type tableJSON struct {
	plainTable
	Cells [][]string       `json:"cells"`
	Rows  []map[string]any `json:"rows"`
}

// plainTable is a table without its JSON methods.
type plainTable table

// MarshalJSON writes t with its rows as objects of numbers.
func (t table) MarshalJSON() ([]byte, error) {
	keys := make([]string, len(t.Columns))
	seen := map[string]int{}
	for i, c := range t.Columns {
		k := fieldName(c)
		if seen[k]++; seen[k] > 1 {
			k += "_" + strconv.Itoa(seen[k])
		}
		keys[i] = k
	}
	j := tableJSON{plainTable: plainTable(t), Cells: t.Rows, Rows: make([]map[string]any, len(t.Rows))}
	for r, row := range t.Rows {
		obj := map[string]any{}
		for i, cell := range row {
			if i >= len(keys) {
				continue
			}
			obj[keys[i]] = cellValue(cell)
			// A size is a number of bytes, as scripts want it, with
			// the cell's text beside it.
			if n, ok := bytesize.Parse(cell); ok && keys[i] == "size" {
				obj["size"], obj["size_text"] = n, cell
			}
		}
		j.Rows[r] = obj
	}
	if j.Cells == nil {
		j.Cells = [][]string{}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a table of either format: the first, whose rows are
// lists of strings, or the second, whose cells are.
func (t *table) UnmarshalJSON(b []byte) error {
	var j struct {
		plainTable
		Cells [][]string      `json:"cells"`
		Rows  json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = table(j.plainTable)
	t.Rows = j.Cells
	if j.Cells == nil && len(j.Rows) > 0 {
		return json.Unmarshal(j.Rows, &t.Rows)
	}
	return nil
}

// cellValue is a cell as a number where it is one ("6.990"), else its
// text ("64 MiB", "1.8×").
func cellValue(cell string) any {
	if v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64); err == nil {
		return v
	}
	return cell
}

// fieldName turns a column heading into a JSON key that keeps its unit:
// "host→device GB/s" is host_to_device_gb_per_s, "kernel ms" kernel_ms.
func fieldName(col string) string {
	r := strings.NewReplacer("→", " to ", "/s", " per s", "²", "2", "µs", "us", "×", "x", "%", " percent")
	s := strings.ToLower(r.Replace(col))
	var b strings.Builder
	under := false
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(c)
			under = false
			continue
		}
		under = true
	}
	if b.Len() == 0 {
		return "column"
	}
	return b.String()
}

// readResults reads a results file of either format.
func readResults(path string, b []byte) ([]table, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		var ts []table
		if err := json.Unmarshal(b, &ts); err != nil {
			return nil, fmt.Errorf("%s is not a wgbench results file: %w", path, err)
		}
		return ts, checkTables(path, ts)
	}
	var r results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a wgbench results file: %w", path, err)
	}
	if r.Format != resultsFormat {
		return nil, fmt.Errorf("%s is not a wgbench results file: its format is %q, not %q", path, r.Format, resultsFormat)
	}
	if r.Version > resultsVersion {
		return nil, fmt.Errorf("%s is a results file of version %d; this wgbench reads versions 1 to %d", path, r.Version, resultsVersion)
	}
	return r.Tables, checkTables(path, r.Tables)
}

// checkTables refuses tables that bench did not write: any JSON array
// unmarshals into tables, of empty fields. A table bench writes has a
// suite or a title, columns, and rows no wider than its columns.
func checkTables(path string, ts []table) error {
	for i, t := range ts {
		if t.Title == "" && t.Suite == "" || len(t.Columns) == 0 {
			return fmt.Errorf("%s is not a wgbench results file: its table %d has no title or no columns, as bench --json writes them", path, i+1)
		}
		for r, row := range t.Rows {
			if len(row) > len(t.Columns) {
				return fmt.Errorf("%s is not a wgbench results file: row %d of its table %d (%s) has %d cells for %d columns", path, r+1, i+1, t.Title, len(row), len(t.Columns))
			}
		}
	}
	return nil
}
