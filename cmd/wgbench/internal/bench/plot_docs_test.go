package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocPlotsCurrent redraws docs/plots from the results files README
// names and checks that the committed plots are those drawings (so they
// cannot fall behind the plot code or the results), each SVG with its PNG,
// titled, with numbered axes.
func TestDocPlotsCurrent(t *testing.T) {
	results, err := filepath.Glob("../../../../bench/results/h200-*.json")
	require.NoError(t, err)
	var from []string
	for _, r := range results {
		if !regexp.MustCompile(`-\d{4}-\d\d-\d\d\.json$`).MatchString(r) { // the dated copies are older runs
			from = append(from, "--from", r)
		}
	}
	from = append(from, "--from", "../../../../bench/results/lavapipe-quick.json")
	dir := t.TempDir()
	_, stderr, err := wgbench(t, append(append([]string{"bench", "plot"}, from...), "--svg", dir)...)
	require.NoError(t, err, stderr)
	drawn, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	committed, err := filepath.Glob("../../../../docs/plots/*")
	require.NoError(t, err)
	require.Equal(t, len(drawn), len(committed), "docs/plots: redraw with the command README gives")
	for _, d := range drawn {
		name := filepath.Base(d)
		want, err := os.ReadFile(d)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join("../../../../docs/plots", name))
		require.NoError(t, err, "docs/plots lacks %s: redraw with the command README gives", name)
		require.True(t, string(want) == string(got), "docs/plots/%s differs from its drawing: redraw with the command README gives", name)
		if strings.HasSuffix(name, ".svg") {
			svg := string(got)
			require.FileExists(t, strings.TrimSuffix(filepath.Join("../../../../docs/plots", name), ".svg")+".png")
			texts := regexp.MustCompile(`>([^<]*\d[^<]*)</text>`).FindAllStringSubmatch(svg, -1)
			require.GreaterOrEqual(t, len(texts), 6, "%s: numbered axes", name)
			require.Contains(t, svg, "log scale", "%s: the x axis says its scale", name)
		}
	}
}
