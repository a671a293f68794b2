// Package plotdraw draws wgbench's plots (package results) as SVG and
// PNG files with gonum/plot: numbered logarithmic axes with units, one
// color per adapter, one marker and dash pattern per series of it, and
// reference lines. It is linked into the program wgbench-plot alone
// (Main), which wgbench runs to draw, so that no wgbench command pays
// at start-up for the initializers of gonum/plot, its fonts and image
// encoders (BENCHMARKS.md, "Start-up on the 2-core CI machine").
package plotdraw

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/wgcompute/wgcompute/cmd/internal/bytesize"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Main is the program wgbench-plot: 'wgbench-plot DIR' draws the plots
// that standard input holds, a JSON array of results.Plot, into DIR
// (Write). It returns the exit status: 0, or 1 with the error on stderr,
// its text alone, which wgbench reports as its own; 2 for a bad command
// line.
func Main(args []string, stdin io.Reader, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: wgbench-plot DIR < PLOTS.json (the plots of wgbench bench --svg DIR, which runs it)")
		return 2
	}
	var plots []results.Plot
	if err := json.NewDecoder(stdin).Decode(&plots); err != nil {
		fmt.Fprintf(stderr, "read the plots from standard input: %v\n", err)
		return 1
	}
	if err := Write(args[0], plots); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// Write draws each plot into an SVG file and a PNG file in dir, each
// written whole or not at all (fileout).
func Write(dir string, plots []results.Plot) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("svg dir: %w", err)
	}
	for _, g := range plots {
		if err := write(g, filepath.Join(dir, g.Name)); err != nil {
			return fmt.Errorf("plot %s: %w", g.Name, err)
		}
	}
	return nil
}

// An axis says how its numbers are written: its title, with the unit,
// and each tick's label.
type axis struct {
	title  string
	format func(v float64) string
}

// xAxis is the x axis of a table's plot: sizes in bytes as KiB, MiB and
// GiB, counts as numbers with k, M and G.
func xAxis(label string) axis {
	if label == "bytes" {
		return axis{title: "size (bytes, log scale)", format: func(v float64) string { return bytesize.Format(int64(math.Round(v))) }}
	}
	return axis{title: label + " (log scale)", format: func(v float64) string {
		if v < 1e5 {
			return plainNumber(v) // 1024, 65536: the sizes as one writes them
		}
		return siNumber(v)
	}}
}

// yAxis is the y axis of a table's plot: rates in GB/s and times in ms as
// numbers, rates of hashes or leaves per second with k, M and G. Its
// title is the label alone: the 1-2-5 ticks show the scale is
// logarithmic.
func yAxis(label string) axis {
	switch {
	case strings.Contains(label, "GB/s"), strings.Contains(label, "ms"):
		return axis{title: label, format: plainNumber}
	default:
		return axis{title: label, format: siNumber}
	}
}

// plainNumber writes v with three significant digits, without an
// exponent.
func plainNumber(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// siNumber writes v with three significant digits and a k, M or G suffix.
func siNumber(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.f {
			return fmt.Sprintf("%.3g%s", v/u.f, u.s)
		}
	}
	return fmt.Sprintf("%.3g", v)
}

// pow2Ticks marks every power of two from min to max, labelling at most
// about eight of them evenly, both ends included when they are powers of
// two.
type pow2Ticks struct{ format func(float64) string }

func (t pow2Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Floor(math.Log2(min)+1e-9)), int(math.Ceil(math.Log2(max)-1e-9))
	step := (hi-lo)/8 + 1
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		tk := plot.Tick{Value: v}
		if (e-lo)%step == 0 || e == hi {
			tk.Label = t.format(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// decadeTicks labels 1, 2 and 5 times each power of ten from min to max
// (each power of ten alone when that would be more than twelve labels), and
// marks the other integers times it.
type decadeTicks struct{ format func(float64) string }

func (t decadeTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := decades(min, max)
	labelled := []float64{1, 2, 5}
	if hi-lo > 4 {
		labelled = []float64{1}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, float64(e))
		for c := 1.0; c < 10; c++ {
			v := c * p
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			for _, l := range labelled {
				if c == l {
					tk.Label = t.format(v)
				}
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// decades returns the powers of ten at or around min and max.
func decades(min, max float64) (lo, hi int) {
	return int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
}

// niceBelow and niceAbove are the 1-2-5 values at or just past v, where a
// y axis starts and ends so that both ends carry a number.
func niceBelow(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, c := range []float64{5, 2, 1} {
		if c*p <= v*(1+1e-9) {
			return c * p
		}
	}
	return p
}

func niceAbove(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, c := range []float64{1, 2, 5, 10} {
		if c*p >= v*(1-1e-9) {
			return c * p
		}
	}
	return 10 * p
}

// plotTitle is a table's title as its plot's: results files written before
// the tables' titles stopped naming the unit of their time columns ("Eigen:
// row sums ..., ms") keep it, and a plot of another column (GB/s) drops it.
func plotTitle(title, yTitle string) string {
	if t, ok := strings.CutSuffix(title, ", ms"); ok && !strings.Contains(yTitle, "ms") {
		return t
	}
	return title
}

// plotSize is the size of the drawing, legend excluded, which goes below.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 5 * vg.Inch
)

// drawPlot draws the plot g, with its legend below the data, on a canvas
// that newCanvas makes of the size it is given.
func drawPlot(g results.Plot, newCanvas func(w, h vg.Length) vg.CanvasSizer) (c vg.CanvasSizer, err error) {
	defer func() {
		// check rules out the inputs gonum/plot is known to panic on;
		// anything else is still an error, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing failed: %v", r)
		}
	}()
	p := plot.New()
	xa, ya := xAxis(g.XLabel), yAxis(g.YLabel)
	p.Title.Text = plotTitle(g.Title, ya.title)
	p.X.Label.Text, p.Y.Label.Text = xa.title, ya.title
	// Centred, a long vertical title made gonum/plot leave room for it
	// above the data.
	p.Y.Label.Position = draw.PosTop
	if !g.LogX {
		p.X.Label.Text = strings.TrimSuffix(xa.title, " (log scale)")
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range g.Series {
		for _, pt := range s.Points {
			xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
			ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
		}
	}
	for _, r := range g.Refs {
		ymin, ymax = math.Min(ymin, r.Y), math.Max(ymax, r.Y)
	}
	if g.LogX {
		// Whole powers of two at both ends: both carry a number.
		xmin, xmax = math.Exp2(math.Floor(math.Log2(xmin))), math.Exp2(math.Ceil(math.Log2(xmax)))
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{format: xa.format}
	} else {
		p.X.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			ts := plot.DefaultTicks{}.Ticks(min, max)
			for i := range ts {
				if ts[i].Label != "" {
					ts[i].Label = xa.format(ts[i].Value)
				}
			}
			return ts
		})
	}
	p.X.Min, p.X.Max = xmin, xmax
	// Log scales: a GPU and a CPU adapter differ by orders of magnitude.
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{format: ya.format}
	p.Y.Min, p.Y.Max = niceBelow(ymin), niceAbove(ymax)
	if lo, hi := decades(p.Y.Min, p.Y.Max); hi-lo > 4 {
		// decadeTicks labels only powers of ten here: end on them.
		p.Y.Min, p.Y.Max = math.Pow(10, float64(lo)), math.Pow(10, float64(hi))
	}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	for _, s := range g.Series {
		pts := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			pts[j].X, pts[j].Y = pt.X, pt.Y
		}
		line, marks, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(s.Adapter)
		line.Color, marks.Color = c, c
		marks.Shape = plotutil.Shape(s.Sub)
		line.Dashes = plotutil.Dashes(s.Sub)
		line.Width = vg.Points(1.5)
		p.Add(line, marks)
		legend.Add(s.Name, line, marks)
	}
	for i, r := range g.Refs {
		ref, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Y}, {X: xmax, Y: r.Y}})
		if err != nil {
			return nil, err
		}
		ref.Color = color.Gray{Y: 96}
		ref.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		ref.Width = vg.Points(1)
		if i%2 == 1 {
			ref.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		}
		p.Add(ref)
		legend.Add(fmt.Sprintf("%s: %s %s", r.Label, ya.format(r.Y), unitOf(g.YLabel)), ref)
	}
	p.BackgroundColor = color.White
	legendHeight := legend.Rectangle(draw.Canvas{}).Size().Y + vg.Points(12)
	canvas := newCanvas(plotWidth, plotHeight+legendHeight)
	dc := draw.New(canvas)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(draw.Crop(dc, 0, 0, legendHeight, 0))
	legend.Draw(draw.Crop(dc, vg.Points(40), 0, vg.Points(6), -(plotHeight + vg.Points(6))))
	return canvas, nil
}

// unitOf is the unit at the end of an axis label ("GB/s" of "kernel
// GB/s"), for the reference lines' labels.
func unitOf(label string) string {
	for _, u := range []string{"GB/s", "ms"} {
		if strings.Contains(label, u) {
			return u
		}
	}
	return ""
}

// write draws the plot g into the SVG file path and the PNG file beside
// it.
func write(g results.Plot, path string) error {
	svg, err := drawPlot(g, func(w, h vg.Length) vg.CanvasSizer { return vgsvg.New(w, h) })
	if err != nil {
		return err
	}
	png, err := drawPlot(g, func(w, h vg.Length) vg.CanvasSizer {
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))}
	})
	if err != nil {
		return err
	}
	for p, c := range map[string]io.WriterTo{path: svg.(*vgsvg.Canvas), strings.TrimSuffix(path, ".svg") + ".png": png.(vgimg.PngCanvas)} {
		if err := fileout.Write(p, func(w io.Writer) error {
			_, err := c.WriteTo(w)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}
