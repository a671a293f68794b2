package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/cmd/internal/plotdraw"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
)

// plotEnv, set to 1, makes the test binary wgbench-plot (plotdraw.Main),
// for TestPlotProgram.
const plotEnv = "WGBENCH_TEST_PLOT"

func init() {
	if os.Getenv(plotEnv) == "1" {
		os.Exit(plotdraw.Main(os.Args[1:], os.Stdin, os.Stderr))
	}
	// The tests draw in-process, with the code wgbench-plot runs: the
	// GPU hosts' test packs carry test binaries, not wgbench-plot.
	plotter = func() (func(string, []results.Plot) error, error) { return plotdraw.Write, nil }
}

// TestPlotProgram draws a plot through the program that draws wgbench's
// plots, run as wgbench runs it, and checks the files and that the
// program's error is the command's.
func TestPlotProgram(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	p := results.Plot{Name: "transfer-up.svg", Title: "Host-device transfer", Axes: results.Axes{XLabel: "bytes", YLabel: "host→device GB/s", LogX: true},
		Series: []results.Series{{Name: "H100 (vulkan)", Points: []results.Point{{X: 1 << 20, Y: 2}, {X: 1 << 30, Y: 20}}}}}
	require.NoError(t, runPlotter(exe, []string{plotEnv + "=1"}, dir, []results.Plot{p}))
	svg, err := os.ReadFile(filepath.Join(dir, "transfer-up.svg"))
	require.NoError(t, err)
	require.Contains(t, string(svg), "Host-device transfer")
	require.FileExists(t, filepath.Join(dir, "transfer-up.png"))

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o666))
	err = runPlotter(exe, []string{plotEnv + "=1"}, filepath.Join(file, "svg"), []results.Plot{p})
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "svg dir: mkdir "), "the program's message: %v", err)

	err = runPlotter(filepath.Join(dir, "nowhere"), nil, dir, []results.Plot{p})
	require.ErrorContains(t, err, "run "+filepath.Join(dir, "nowhere"))
}

// TestPlotProgramMissing checks bench's error where wgbench-plot is
// neither beside wgbench nor on PATH: before the run, saying how to build
// it.
func TestPlotProgramMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := plotProgram()
	require.ErrorContains(t, err, "the plots are drawn by the program wgbench-plot, which is neither in ")
	require.ErrorContains(t, err, "go build -o DIR ./cmd/wgbench-plot")
}
