package doccheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// measuredFigure matches a time, a rate or a speed-up as a measurement
// quotes it: "0.366 ms", "43-57 ms", "1.54 s", "28 GB/s", "1.76x", "2.75e8
// merges/s". A product such as "4×4" or "2^22 x 128" is not one.
var measuredFigure = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:e\d+)?` +
	`(?:(?:\s?[-–]\s?|\s(?:to|and|against)\s)\d+(?:\.\d+)?)?` +
	`(?:\s?(?:ns|µs|us|ms|s|[KMGT]i?B/s|(?:merges|hashes|records|leaves)/s)\b|[x×](?:[^\w×]|$))`)

// measuredWhere matches what makes a figure a dated measurement: the
// device or machine it was taken on, or a date.
var measuredWhere = regexp.MustCompile(`\b(?:[AHV]100|H200|RTX\s?\d+|GTX|Radeon|Apple M\d|NVIDIA|lavapipe|llvmpipe|SwiftShader|EPYC|CI machine|GPU machine)\b|\b20\d\d-[01]\d-[0-3]\d\b`)

// figureWindow is how many bytes of comment text on either side of a
// figure are searched for its device or date: about a sentence.
const figureWindow = 160

// figureExceptions are comments that quote a device's figure on purpose,
// by file and the figure's text, each with its reason.
var figureExceptions = map[string]string{
	// The published figure the BLAKE3 suite prints beside its own: a
	// constant of the code, from the article, not a measurement of ours.
	"cmd/wgbench/internal/bench/bench_blake3.go: 11.9 ms": "the article's V100 figure, a constant the suite prints",
	"cmd/wgbench/internal/bench/bench_blake3.go: 97.6 ms": "the article's V100 figure, a constant the suite prints",
	// guessRoundTime's constant, stated beside what it is compared with.
	"algos/eigen/gpu.go: 100 MB/s": "the guess's own rate, not a measurement",
}

// figuresPending are files in which other work is under way; their
// comments are swept once it has landed, and each entry is removed then.
// An entry whose file no longer quotes a figure fails the test, so the
// list only shrinks.
var figuresPending = []string{}

// datedFigures returns the figures in text that have a device, a machine
// or a date within figureWindow bytes: measurements, which belong in
// BENCHMARKS.md or bench/results/HISTORY.md, not in a comment.
func datedFigures(text string) []string {
	var out []string
	for _, m := range measuredFigure.FindAllStringIndex(text, -1) {
		lo, hi := max(m[0]-figureWindow, 0), min(m[1]+figureWindow, len(text))
		if measuredWhere.MatchString(text[lo:hi]) {
			out = append(out, strings.TrimRight(text[m[0]:m[1]], " ,.;:)"))
		}
	}
	return out
}

// TestDatedFigures checks datedFigures on sentences that are and are not
// measurements.
func TestDatedFigures(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"the checks cost eigen's whole method 1.76x on an H200", 1},
		{"a Vulkan instance took 45-80 ms on the H200 machine, 2026-11-26", 1},
		{"thread took 130 to 170 µs on the 2-core CI machine", 1},
		{"bounds uploads at 28 GB/s (2026-11-23)", 1},
		{"2.75e8 merges/s on an H100", 1},
		{"on two H200s (driver 580.159.04)", 0},
		{"the watchdogs that reset a GPU whose submission runs for seconds (Windows' 2 s)", 0},
		{"p31_quad returns 4x.", 0},
		{"the external layer's 4×4 block, on NVIDIA", 0},
		{"a commitment of 2^22 x 128 on an H200", 0},
		{"the checks slow eigen's whole method markedly on NVIDIA (BENCHMARKS.md)", 0},
		{"SubmitTarget (250 ms), so that no GPU watchdog is approached", 0},
	} {
		if got := datedFigures(c.text); len(got) != c.want {
			t.Errorf("datedFigures(%q) = %q, want %d figures", c.text, got, c.want)
		}
	}
}

// TestCommentsQuoteNoDatedFigures fails on a comment in a non-test .go or
// .wgsl file that quotes a time, rate or speed-up beside the device,
// machine or date it was measured on: such a figure goes stale. The
// comment keeps the reason ("X is faster than Y on NVIDIA") and names the
// section of BENCHMARKS.md or bench/results/HISTORY.md that holds the
// figure.
func TestCommentsQuoteNoDatedFigures(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("no Go sources here (a packed test binary): ", err)
	}
	fset := token.NewFileSet()
	checked := 0
	pending := map[string]bool{}
	usedExceptions := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "bench/results" || nestedModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		isGo := strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
		if !isGo && !strings.HasSuffix(rel, ".wgsl") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var groups []string
		if isGo {
			f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, g := range f.Comments {
				groups = append(groups, g.Text())
			}
		} else {
			groups = wgslComments(string(src))
		}
		checked++
		for _, g := range groups {
			for _, fig := range datedFigures(strings.Join(strings.Fields(g), " ")) {
				key := rel + ": " + fig
				if _, ok := figureExceptions[key]; ok {
					usedExceptions[key] = true
					continue
				}
				if i := slices.IndexFunc(figuresPending, func(p string) bool { return strings.HasPrefix(rel, p) }); i >= 0 {
					pending[figuresPending[i]] = true
					continue
				}
				t.Errorf("%s: a comment quotes %q beside the device or date it was measured on; keep the reason and name the section of BENCHMARKS.md or bench/results/HISTORY.md that holds the figure", rel, fig)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d .go and .wgsl files found under %s", checked, root)
	}
	for _, p := range figuresPending {
		if !pending[p] {
			t.Errorf("figuresPending lists %s, whose comments quote no dated figure now: remove it from the list", p)
		}
	}
	var unused []string
	for k := range figureExceptions {
		if !usedExceptions[k] {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	for _, k := range unused {
		t.Errorf("figureExceptions lists %q, which no comment quotes now: remove it", k)
	}
}

// wgslComments returns the // comments of a WGSL file, consecutive
// comment lines joined as one group.
func wgslComments(src string) []string {
	var groups []string
	var cur []string
	for _, line := range strings.Split(src, "\n") {
		i := strings.Index(line, "//")
		if i < 0 {
			if len(cur) > 0 {
				groups = append(groups, strings.Join(cur, "\n"))
				cur = nil
			}
			continue
		}
		cur = append(cur, line[i+2:])
	}
	if len(cur) > 0 {
		groups = append(groups, strings.Join(cur, "\n"))
	}
	return groups
}
