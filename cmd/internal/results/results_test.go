package results

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// fileJSON is a results file as bench --json wrote it before its types
// were shared with the plots (embedded Measured and Axes): the fields in
// the same order, the rows as objects of numbers beside the cells.
const fileJSON = `{"format":"wgbench bench results","version":3,"device":"d","backend":"b","driver":"dr","date":"2026-11-29T00:00:00Z","command":"c","commit":"x","go":"go","complete":true,"tables":[{"suite":"s","title":"T","device":"d","backend":"b","driver":"dr","date":"2026-11-29","command":"wgbench bench s","columns":["size","host→device GB/s","kernel ms"],"notes":["n"],"x_label":"bytes","y_label":"GB/s","log_x":true,"points":[{"x":1,"y":2},{"x":3,"y":4,"series":"a"}],"refs":[{"label":"r","y":5}],"cells":[["64 MiB","6.990","1.8×"]],"rows":[{"host_to_device_gb_per_s":6.99,"kernel_ms":"1.8×","size":67108864,"size_text":"64 MiB"}]},{"suite":"e","title":"E","device":"","backend":"","driver":"","date":"","command":"","columns":["a"],"cells":[],"rows":[]}],"timings":[{"suite":"s","case":"c","samples_ms":[1,2],"min_ms":1,"median_ms":2,"max_ms":2}]}`

// TestFileJSON: a File marshals to fileJSON, byte for byte, and reads
// back to the same tables.
func TestFileJSON(t *testing.T) {
	tb := Table{Suite: "s", Title: "T", Measured: Measured{Device: "d", Backend: "b", Driver: "dr", Date: "2026-11-29", Command: "wgbench bench s"},
		Columns: []string{"size", "host→device GB/s", "kernel ms"}, Rows: [][]string{{"64 MiB", "6.990", "1.8×"}}, Notes: []string{"n"},
		Axes: Axes{XLabel: "bytes", YLabel: "GB/s", LogX: true}, Points: []Point{{X: 1, Y: 2}, {X: 3, Y: 4, Series: "a"}}, Refs: []Ref{{Label: "r", Y: 5}}}
	f := File{Format: Format, Version: Version, Measured: Measured{Device: "d", Backend: "b", Driver: "dr", Date: "2026-11-29T00:00:00Z", Command: "c"}, Commit: "x", Go: "go", Complete: true,
		Tables: []Table{tb, {Suite: "e", Title: "E", Columns: []string{"a"}}}, Timings: []Timing{{Suite: "s", Case: "c", SamplesMs: []float64{1, 2}, MinMs: 1, MedianMs: 2, MaxMs: 2}}}
	b, err := json.Marshal(f)
	require.NoError(t, err)
	require.Equal(t, fileJSON, string(b))
	tables, err := Read("f.json", b)
	require.NoError(t, err)
	require.Equal(t, f.Tables[0], tables[0])
	require.Equal(t, "E", tables[1].Title)
}
