package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/wgcompute/wgcompute/internal/fileout"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// svgGroup is one plot: the tables of one title, from one or more
// adapters, with one line per series.
type svgGroup struct {
	name   string // the file name
	first  table
	series map[string][]point
	order  []string
}

// writeSVGs draws each plot into an SVG file in dir.
func writeSVGs(groups []*svgGroup, dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("bench: svg dir: %w", err)
	}
	for _, g := range groups {
		if err := g.write(filepath.Join(dir, g.name)); err != nil {
			return fmt.Errorf("bench: plot %s: %w", g.name, err)
		}
	}
	return nil
}

// svgGroups groups the points of all into plots, one per table title that
// has points, with one line per adapter (device and backend), so that
// results saved from several machines can be compared on one plot. It
// returns an error if a plot cannot be drawn.
func svgGroups(all []table) ([]*svgGroup, error) {
	byName := map[string]*svgGroup{}
	var groups []*svgGroup
	for _, t := range all {
		if len(t.Points) == 0 {
			continue
		}
		key := svgName(t)
		g := byName[key]
		if g == nil {
			g = &svgGroup{name: key, first: t, series: map[string][]point{}}
			byName[key] = g
			groups = append(groups, g)
		}
		for _, pt := range t.Points {
			s := fmt.Sprintf("%s (%s)", t.Device, t.Backend)
			if pt.Series != "" {
				s += ", " + pt.Series
			}
			if _, ok := g.series[s]; !ok {
				g.order = append(g.order, s)
			}
			g.series[s] = append(g.series[s], pt)
		}
	}
	for _, g := range groups {
		if err := g.check(); err != nil {
			return nil, fmt.Errorf("bench: plot %s: %w", g.name, err)
		}
	}
	return groups, nil
}

// check returns an error unless the plot can be drawn: finite numbers,
// y above 0 and, with LogX, x above 0 (the scales are logarithmic), and two
// x values at least.
func (g *svgGroup) check() error {
	var x0 float64
	spread := false
	for _, name := range g.order {
		for i, pt := range g.series[name] {
			switch {
			case math.IsNaN(pt.X) || math.IsInf(pt.X, 0) || math.IsNaN(pt.Y) || math.IsInf(pt.Y, 0):
				return fmt.Errorf("point %d of %s is (%v, %v): both must be finite numbers", i, name, pt.X, pt.Y)
			case pt.Y <= 0:
				return fmt.Errorf("point %d of %s has %s %v: the logarithmic y axis needs values above 0", i, name, orNone(g.first.YLabel), pt.Y)
			case g.first.LogX && pt.X <= 0:
				return fmt.Errorf("point %d of %s has %s %v: the logarithmic x axis needs values above 0", i, name, orNone(g.first.XLabel), pt.X)
			}
			if x0 == 0 {
				x0 = pt.X
			}
			spread = spread || pt.X != x0
		}
	}
	if !spread {
		return fmt.Errorf("every point has %s %v: a plot needs two values at least", orNone(g.first.XLabel), x0)
	}
	return nil
}

// write draws the plot into the SVG file path.
func (g *svgGroup) write(path string) (err error) {
	defer func() {
		// check rules out the inputs gonum/plot is known to panic on;
		// anything else is still an error, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing failed: %v", r)
		}
	}()
	p := plot.New()
	p.Title.Text = g.first.Title
	p.X.Label.Text = g.first.XLabel
	p.Y.Label.Text = g.first.YLabel
	if g.first.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	// Log scales: a GPU and a CPU adapter differ by orders of magnitude.
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	// The bottom right stays empty: fast adapters plot high, and the
	// software ones run only the small sizes.
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(40)
	p.Legend.YOffs = vg.Points(10)
	p.Add(plotter.NewGrid())
	for i, name := range g.order {
		pts := make(plotter.XYs, len(g.series[name]))
		for j, pt := range g.series[name] {
			pts[j].X, pts[j].Y = pt.X, pt.Y
		}
		line, marks, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		line.Color, marks.Color = c, c
		marks.Shape = plotutil.Shape(i)
		line.Width = vg.Points(1.5)
		p.Add(line, marks)
		p.Legend.Add(name, line, marks)
	}
	p.BackgroundColor = color.White
	svg, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "svg")
	if err != nil {
		return err
	}
	return fileout.Write(path, func(w io.Writer) error {
		_, err := svg.WriteTo(w)
		return err
	})
}
