package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeSVGs draws one SVG per table title that has points, with one line
// per adapter (device and backend), so results saved from several
// machines can be compared on one plot.
func writeSVGs(all []table, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: svg dir: %w", err)
	}
	type group struct {
		first  table
		series map[string][]point
		order  []string
	}
	groups := map[string]*group{}
	var order []string
	for _, t := range all {
		if len(t.Points) == 0 {
			continue
		}
		key := svgName(t)
		g := groups[key]
		if g == nil {
			g = &group{first: t, series: map[string][]point{}}
			groups[key] = g
			order = append(order, key)
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
	for _, key := range order {
		g := groups[key]
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
				return fmt.Errorf("bench: plot %s: %w", key, err)
			}
			c := plotutil.Color(i)
			line.Color, marks.Color = c, c
			marks.Shape = plotutil.Shape(i)
			line.Width = vg.Points(1.5)
			p.Add(line, marks)
			p.Legend.Add(name, line, marks)
		}
		p.BackgroundColor = color.White
		path := filepath.Join(dir, key)
		if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
			return fmt.Errorf("bench: write %s: %w", path, err)
		}
	}
	return nil
}
