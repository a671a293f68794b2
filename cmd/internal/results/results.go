// Package results is what wgbench's bench measures, as JSON: the results
// file bench --json writes and bench plot reads (File, its Tables and
// Timings), and the plots wgbench hands to the program that draws them
// (Plot; cmd/wgbench-plot, package plotdraw). The drawing links
// gonum/plot, its fonts and image encoders, whose initializers every
// wgbench command ran at start-up while they were linked into wgbench
// (BENCHMARKS.md, "Start-up on the 2-core CI machine"); this package links
// nothing of them.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
)

// Format and Version head a results file that bench --json
// writes; files without them are the first format, a bare list of tables
// whose cells are strings, which bench plot still reads. Version 3 writes
// a row's size as a number of bytes (its text in size_text), where
// version 2 wrote the text.
const (
	Format  = "wgbench bench results"
	Version = 3
)

// File is the file bench --json writes: where and how it was measured,
// the tables finished so far, and every timed case with its samples. It is
// rewritten after each measurement, so an interrupted run keeps what it
// measured (Complete false).
type File struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Measured's Date is the run's start, RFC 3339 in UTC.
	Measured
	// Commit is the source's revision (with "-dirty" when it had
	// changes), or "unknown" for a binary built without it (go run, go
	// test).
	Commit   string   `json:"commit"`
	Go       string   `json:"go"`
	Complete bool     `json:"complete"`
	Tables   []Table  `json:"tables"`
	Timings  []Timing `json:"timings"`
}

// Timing is one timed case: every repeat's time, in milliseconds, in the
// order measured, and their minimum, median and maximum. A case with
// several timings (a transfer's upload and download) lists them in the
// order its table's columns show them.
type Timing struct {
	Suite     string    `json:"suite"`
	Case      string    `json:"case"`
	SamplesMs []float64 `json:"samples_ms"`
	MinMs     float64   `json:"min_ms"`
	MedianMs  float64   `json:"median_ms"`
	MaxMs     float64   `json:"max_ms"`
}

// NewTiming summarizes samples (at least one), in the order they were
// measured, with their minimum, median and maximum.
func NewTiming(suite, name string, samples []time.Duration) Timing {
	t := Timing{Suite: suite, Case: name, SamplesMs: make([]float64, len(samples))}
	for i, d := range samples {
		t.SamplesMs[i] = msOf(d)
	}
	sorted := slices.Sorted(slices.Values(samples))
	t.MinMs, t.MedianMs, t.MaxMs = msOf(sorted[0]), msOf(sorted[len(sorted)/2]), msOf(sorted[len(sorted)-1])
	return t
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// Table is one result table. Cells are strings already formatted; Points
// carry the numbers that the SVG plot draws.
type Table struct {
	Suite string `json:"suite"`
	Title string `json:"title"`
	// Measured's Date is the day, 2006-01-02.
	Measured
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
	// Plot: throughput against size, one series per adapter.
	Axes
	Points []Point `json:"points,omitempty"`
	// Refs are lines drawn across the plot: a published figure, the
	// device's ceiling.
	Refs []Ref `json:"refs,omitempty"`
}

// Measured is where, when and by what command results were measured,
// which a results file and each of its tables state.
type Measured struct {
	Device  string `json:"device"`
	Backend string `json:"backend"`
	Driver  string `json:"driver"`
	Date    string `json:"date"`
	Command string `json:"command"`
}

// Axes are a plot's axes: their labels, from which the plot's program
// makes their titles and numbers, and whether x is logarithmic (y always
// is).
type Axes struct {
	XLabel string `json:"x_label,omitempty"`
	YLabel string `json:"y_label,omitempty"`
	LogX   bool   `json:"log_x,omitempty"`
}

// Point is one point of a table's plot, or of a line of a Plot.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Series names the line within one adapter's results, when a table
	// has several (the Merkle approaches); empty for one line per adapter,
	// and in a Plot, whose Series are the lines.
	Series string `json:"series,omitempty"`
}

// tableJSON is a table as the results file holds it: the cells as
// printed, for the Markdown, and each row again as an object whose keys
// name the column with its unit (FieldName) and whose numbers are
// numbers. Its Rows hide the embedded table's.
type tableJSON struct {
	plainTable
	Cells [][]string       `json:"cells"`
	Rows  []map[string]any `json:"rows"`
}

// plainTable is a Table without its JSON methods.
type plainTable Table

// MarshalJSON writes t with its rows as objects of numbers.
func (t Table) MarshalJSON() ([]byte, error) {
	keys := make([]string, len(t.Columns))
	seen := map[string]int{}
	for i, c := range t.Columns {
		k := FieldName(c)
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
func (t *Table) UnmarshalJSON(b []byte) error {
	var j struct {
		plainTable
		Cells [][]string      `json:"cells"`
		Rows  json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*t = Table(j.plainTable)
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

// FieldName turns a column heading into a JSON key that keeps its unit:
// "host→device GB/s" is host_to_device_gb_per_s, "kernel ms" kernel_ms.
func FieldName(col string) string {
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

// Read reads the tables of a results file of either format, the bytes b
// of the file path.
func Read(path string, b []byte) ([]Table, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		var ts []Table
		if err := json.Unmarshal(b, &ts); err != nil {
			return nil, fmt.Errorf("%s is not a wgbench results file: %w", path, err)
		}
		return ts, checkTables(path, ts)
	}
	var r File
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a wgbench results file: %w", path, err)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%s is not a wgbench results file: its format is %q, not %q", path, r.Format, Format)
	}
	if r.Version > Version {
		return nil, fmt.Errorf("%s is a results file of version %d; this wgbench reads versions 1 to %d", path, r.Version, Version)
	}
	return r.Tables, checkTables(path, r.Tables)
}

// checkTables refuses tables that bench did not write: any JSON array
// unmarshals into tables, of empty fields. A table bench writes has a
// suite or a title, columns, and rows no wider than its columns.
func checkTables(path string, ts []Table) error {
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
