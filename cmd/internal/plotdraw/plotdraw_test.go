package plotdraw

import "testing"

// TestPlotTitle checks that a plot of a rate drops an old title's ", ms",
// and that a plot of times keeps it.
func TestPlotTitle(t *testing.T) {
	for _, c := range []struct{ title, y, want string }{
		{"Eigen: row sums of an N×N float32 matrix, ms", "v2 GB/s", "Eigen: row sums of an N×N float32 matrix"},
		{"Eigen: row sums of an N×N float32 matrix, ms", "v2 ms", "Eigen: row sums of an N×N float32 matrix, ms"},
		{"Merkle tree, rescue merge", "leaves per second (kernel)", "Merkle tree, rescue merge"},
	} {
		if got := plotTitle(c.title, c.y); got != c.want {
			t.Errorf("plotTitle(%q, %q) = %q, want %q", c.title, c.y, got, c.want)
		}
	}
}
