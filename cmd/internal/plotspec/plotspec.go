// Package plotspec is what one of wgbench's plots shows, in the form
// wgbench hands it to the program that draws it (cmd/wgbench-plot,
// package plotdraw) as JSON. The drawing links gonum/plot, its fonts and
// image encoders, whose initializers every wgbench command ran at
// start-up while they were linked into wgbench (BENCHMARKS.md, "Start-up
// on the 2-core CI machine"); this package links nothing of them.
package plotspec

// Plot is one plot: lines of points on a logarithmic y axis (and x axis
// with LogX), and horizontal reference lines.
type Plot struct {
	// Name is the SVG file's name; the PNG's ends in .png instead.
	Name string `json:"name"`
	// Title, XLabel and YLabel are those of the table the plot draws;
	// the axes' titles and numbers are made from the labels.
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	LogX   bool   `json:"log_x"`
	// Series are the lines, in the legend's order.
	Series []Series `json:"series"`
	Refs   []Ref    `json:"refs,omitempty"`
}

// Series is one line of a plot.
type Series struct {
	// Name is the line's legend.
	Name string `json:"name"`
	// Adapter is the place of the line's adapter among the plot's, which
	// picks its color; Sub is its place among that adapter's lines, which
	// picks its marker and dash pattern.
	Adapter int     `json:"adapter"`
	Sub     int     `json:"sub"`
	Points  []Point `json:"points"`
}

// Point is one point of a line.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Ref is a horizontal reference line (a published figure, a device's
// ceiling) at Y, in the y axis's unit.
type Ref struct {
	Label string  `json:"label"`
	Y     float64 `json:"y"`
}
