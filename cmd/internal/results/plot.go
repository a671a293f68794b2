package results

// Plot is one plot: lines of points on a logarithmic y axis (and x axis
// with LogX), and horizontal reference lines.
type Plot struct {
	// Name is the SVG file's name; the PNG's ends in .png instead.
	Name string `json:"name"`
	// Title and Axes are those of the table the plot draws.
	Title string `json:"title"`
	Axes
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

// Ref is a horizontal reference line (a published figure, a device's
// ceiling) at Y, in the y axis's unit.
type Ref struct {
	Label string  `json:"label"`
	Y     float64 `json:"y"`
}
