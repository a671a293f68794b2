package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wgcompute/wgcompute/cmd/internal/results"
)

// svgGroup is one plot: the tables of one title, from one or more
// adapters, with one line per series.
type svgGroup struct {
	name   string // the SVG file's name; the PNG's ends in .png instead
	first  results.Table
	series map[string][]results.Point
	order  []string
	// adapter and sub are each series' adapter, in the order adapters
	// first appear, and its place among that adapter's series: one color
	// per adapter, one marker and dash pattern per series of it.
	adapter, sub map[string]int
	adapters     []string
	refs         []results.Ref
}

// writeSVGs draws each plot into an SVG file and a PNG file in dir,
// through the program that draws them (plotter).
func writeSVGs(groups []*svgGroup, dir string) error {
	draw, err := plotter()
	if err != nil {
		return fmt.Errorf("bench: --svg %s: %w", dir, err)
	}
	specs := make([]results.Plot, len(groups))
	for i, g := range groups {
		specs[i] = g.spec()
	}
	if err := draw(dir, specs); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// svgGroups groups the points of all into plots, one per table title that
// has points, with one line per adapter (device and backend), so that
// results saved from several machines can be compared on one plot. It
// returns an error if a plot cannot be drawn.
func svgGroups(all []results.Table) ([]*svgGroup, error) {
	byName := map[string]*svgGroup{}
	var groups []*svgGroup
	for _, t := range all {
		if len(t.Points) == 0 {
			continue
		}
		key := svgName(t)
		g := byName[key]
		if g == nil {
			g = &svgGroup{name: key, first: t, series: map[string][]results.Point{}, adapter: map[string]int{}, sub: map[string]int{}}
			byName[key] = g
			groups = append(groups, g)
		}
		adapter := fmt.Sprintf("%s (%s)", t.Device, t.Backend)
		a := slices.Index(g.adapters, adapter)
		if a < 0 {
			a = len(g.adapters)
			g.adapters = append(g.adapters, adapter)
		}
		for _, pt := range t.Points {
			s := adapter
			if pt.Series != "" {
				s += ", " + pt.Series
			}
			if _, ok := g.series[s]; !ok {
				for _, o := range g.order {
					if g.adapter[o] == a {
						g.sub[s]++
					}
				}
				g.order = append(g.order, s)
				g.adapter[s] = a
			}
			g.series[s] = append(g.series[s], pt)
		}
		for _, r := range t.Refs {
			if !containsRef(g.refs, r) {
				g.refs = append(g.refs, r)
			}
		}
	}
	for _, g := range groups {
		if err := g.check(); err != nil {
			return nil, fmt.Errorf("bench: plot %s: %w", g.name, err)
		}
	}
	return groups, nil
}

func containsRef(refs []results.Ref, r results.Ref) bool {
	for _, o := range refs {
		if o.Label == r.Label {
			return true
		}
	}
	return false
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
	for _, r := range g.refs {
		if !(r.Y > 0) || math.IsInf(r.Y, 0) {
			return fmt.Errorf("reference line %q is at %v: the logarithmic y axis needs a finite value above 0", r.Label, r.Y)
		}
	}
	return nil
}

// spec is the plot as the program that draws it takes it.
func (g *svgGroup) spec() results.Plot {
	p := results.Plot{Name: g.name, Title: g.first.Title, Axes: g.first.Axes}
	for _, name := range g.order {
		p.Series = append(p.Series, results.Series{Name: name, Adapter: g.adapter[name], Sub: g.sub[name], Points: g.series[name]})
	}
	p.Refs = g.refs
	return p
}

// plotProgramName is the program that draws the plots (cmd/wgbench-plot):
// the drawing links gonum/plot, its fonts and image encoders, whose
// initializers cost every wgbench command a noticeable part of its
// start-up when linked into wgbench (bench/results/HISTORY.md, "Start-up
// on the 2-core CI machine").
const plotProgramName = "wgbench-plot"

// plotter returns what draws plots into a directory: the program
// wgbench-plot beside wgbench's executable, else on PATH, or an error
// saying where it was looked for and how to build it. bench asks before
// its run, so that a missing program fails it at once. Tests draw
// in-process instead.
var plotter = func() (func(dir string, plots []results.Plot) error, error) {
	prog, err := plotProgram()
	if err != nil {
		return nil, err
	}
	return func(dir string, plots []results.Plot) error { return runPlotter(prog, nil, dir, plots) }, nil
}

// plotProgram finds wgbench-plot: beside wgbench's executable, where
// make build and go install put it, else on PATH.
func plotProgram() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		// A path with a directory is looked up alone, as an executable
		// file (with Windows' extensions there).
		if prog, err := exec.LookPath(filepath.Join(filepath.Dir(exe), plotProgramName)); err == nil {
			return prog, nil
		}
	}
	if prog, err := exec.LookPath(plotProgramName); err == nil {
		return prog, nil
	}
	where := "beside wgbench"
	if exe != "" {
		where = "in " + filepath.Dir(exe)
	}
	return "", fmt.Errorf("the plots are drawn by the program %s, which is neither %s nor on PATH: build it with 'make build' or 'go build -o DIR ./cmd/%s'", plotProgramName, where, plotProgramName)
}

// runPlotter runs the program prog, wgbench-plot, with env added to
// wgbench's environment, to draw plots into dir; its error is the
// program's message.
func runPlotter(prog string, env []string, dir string, plots []results.Plot) error {
	in, err := json.Marshal(plots)
	if err != nil {
		return err
	}
	cmd := exec.Command(prog, dir)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); errors.As(err, &exit) && msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("run %s: %w", prog, err)
	}
	return nil
}
