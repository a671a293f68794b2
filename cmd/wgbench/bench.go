package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/wgpu"
	"golang.org/x/term"
)

// A benchmark suite measures one capability on one Context and returns
// tables shaped like the articles' tables. Suites register themselves in
// init functions of bench_*.go files.
type suite struct {
	name  string
	about string
	run   func(ctx *wgpu.Context, cfg *benchConfig) ([]table, error)
}

var suites []suite

func registerSuite(s suite) { suites = append(suites, s) }

type benchConfig struct {
	quick   bool
	repeats int
	bar     *progressbar.ProgressBar
}

// step advances the progress bar by one measured case.
func (cfg *benchConfig) step(desc string) {
	if cfg.bar != nil {
		cfg.bar.Describe(desc)
		cfg.bar.Add(1)
	}
}

// table is one result table. Cells are strings already formatted; Points
// carry the numbers that the SVG plot draws.
type table struct {
	Suite   string     `json:"suite"`
	Title   string     `json:"title"`
	Device  string     `json:"device"`
	Backend string     `json:"backend"`
	Driver  string     `json:"driver"`
	Date    string     `json:"date"`
	Command string     `json:"command"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
	// Plot: throughput against size, one series per adapter.
	XLabel string  `json:"x_label,omitempty"`
	YLabel string  `json:"y_label,omitempty"`
	LogX   bool    `json:"log_x,omitempty"`
	Points []point `json:"points,omitempty"`
}

type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Series names the line within one adapter's results, when a table
	// has several (the Merkle approaches); empty for one line per adapter.
	Series string `json:"series,omitempty"`
}

// warmUp is how long median keeps the GPU busy before timing: an idle
// H200 runs at a fraction of its clock and takes tens of milliseconds of
// work to come back up, so a 1 ms kernel timed right after a pause on the
// CPU measured up to 5x slow.
// --quick (meant for CPU adapters, which keep their clock) lowers it.
var warmUp = 300 * time.Millisecond

// firstWarmUp replaces warmUp for the first measurement of the process: a
// freshly started process on an idle H200 hashed 1 GiB in 1.9 ms, then
// 1.6, 0.97 and 0.83 ms over the next seconds of the same work. (It is not
// the whole story: see BENCHMARKS.md on the 1 GiB BLAKE3 spread.)
var firstWarmUp = 3 * time.Second

// nextWarmUp is how long the next measurement warms up.
func nextWarmUp() time.Duration {
	wu := warmUp
	if firstWarmUp > wu {
		wu, firstWarmUp = firstWarmUp, 0
	}
	return wu
}

// median runs fn for at least warmUp (firstWarmUp the first time; at least
// once) to warm up, then repeats times, and returns the median of the
// measured durations.
func median(repeats int, fn func() (time.Duration, error)) (time.Duration, error) {
	wu := nextWarmUp()
	for start, calls := time.Now(), 0; calls == 0 || (time.Since(start) < wu && calls < 20000); calls++ {
		if _, err := fn(); err != nil {
			return 0, err
		}
	}
	if repeats < 1 {
		repeats = 1
	}
	ds := make([]time.Duration, 0, repeats)
	for i := 0; i < repeats; i++ {
		d, err := fn()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

func gbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e9
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

func (t *table) markdown(w io.Writer) {
	fmt.Fprintf(w, "### %s\n\n", t.Title)
	fmt.Fprintf(w, "Device: %s (%s, driver %s), %s. Command: `%s`\n\n", t.Device, t.Backend, orNone(t.Driver), t.Date, t.Command)
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.Columns, " | "))
	seps := make([]string, len(t.Columns))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	fmt.Fprintln(w)
}

func orNone(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

func suiteNames() []string {
	names := make([]string, len(suites))
	for i, s := range suites {
		names[i] = s.name
	}
	sort.Strings(names)
	return names
}

func init() {
	var (
		quick     bool
		repeats   int
		jsonPath  string
		mdPath    string
		svgDir    string
		slotMiB   uint64
		slots     int
		workers   int
		noProgess bool
	)
	cmd := &cobra.Command{
		Use:   "bench [suite...|all]",
		Short: "Run the benchmark suites and print tables like the articles' tables",
		Long: `bench measures each capability on the chosen adapter over the articles' size
ladders: kernel time, host-to-device, device-to-host and end-to-end time, the
article's published figure and the CPU reference on this machine beside it.
Each size is checked against the CPU reference once before it is timed;
warm-up runs are excluded and the median of the repeats is reported.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"all"}
			}
			var chosen []suite
			for _, a := range args {
				if a == "all" {
					chosen = suites
					break
				}
				i := slices.IndexFunc(suites, func(s suite) bool { return s.name == a })
				if i < 0 {
					return fmt.Errorf("bench: unknown suite %q: choose from %s, or all", a, strings.Join(suiteNames(), ", "))
				}
				chosen = append(chosen, suites[i])
			}
			opts := globalOpts
			opts.Transfer = wgpu.TransferOptions{SlotBytes: slotMiB << 20, Slots: slots, Workers: workers}
			ctx, err := wgpu.Open(opts)
			if err != nil {
				return err
			}
			defer ctx.Close()
			cfg := &benchConfig{quick: quick, repeats: repeats}
			if quick {
				warmUp, firstWarmUp = 20*time.Millisecond, 0
				if !cmd.Flags().Changed("repeats") {
					cfg.repeats = 3
				}
			}
			if f, ok := cmd.ErrOrStderr().(*os.File); !noProgess && ok && term.IsTerminal(int(f.Fd())) {
				cfg.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(cmd.ErrOrStderr()),
					progressbar.OptionSpinnerType(14), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			info := ctx.Info()
			command := "wgbench " + strings.Join(os.Args[1:], " ")
			var all []table
			out := cmd.OutOrStdout()
			for _, s := range chosen {
				tables, err := s.run(ctx, cfg)
				if err != nil {
					if cfg.bar != nil {
						cfg.bar.Finish()
					}
					return fmt.Errorf("bench %s: %w", s.name, err)
				}
				for i := range tables {
					t := &tables[i]
					t.Suite = s.name
					t.Device, t.Backend, t.Driver = info.Name, info.Backend, info.Driver
					t.Date = time.Now().UTC().Format("2006-01-02")
					t.Command = command
					if cfg.bar != nil {
						cfg.bar.Clear()
					}
					t.markdown(out)
				}
				all = append(all, tables...)
			}
			if cfg.bar != nil {
				cfg.bar.Finish()
			}
			return writeResults(all, jsonPath, mdPath, svgDir)
		},
	}
	// Suites register in init functions of files that run after this one,
	// so the list is added to the help when it is shown.
	help := cmd.HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == cmd && !strings.Contains(c.Long, "Suites:") {
			var sb strings.Builder
			sb.WriteString(c.Long + "\n\nSuites:\n")
			for _, name := range suiteNames() {
				i := slices.IndexFunc(suites, func(s suite) bool { return s.name == name })
				fmt.Fprintf(&sb, "  %-9s %s\n", name, suites[i].about)
			}
			c.Long = strings.TrimRight(sb.String(), "\n")
		}
		help(c, args)
	})
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "small sizes only, about a minute on a 2-core CPU adapter")
	f.IntVar(&repeats, "repeats", 5, "timed repeats per size; the median is reported (3 with --quick)")
	f.StringVar(&jsonPath, "json", "", "also write the results as JSON to this file")
	f.StringVar(&mdPath, "md", "", "also write the tables as Markdown to this file")
	f.StringVar(&svgDir, "svg", "", "draw throughput plots as SVG files into this directory")
	f.Uint64Var(&slotMiB, "staging-mib", 0, "transfer tuning: staging buffer size in MiB (default 64)")
	f.IntVar(&slots, "staging-slots", 0, "transfer tuning: staging buffers per direction (default 4)")
	f.IntVar(&workers, "copy-workers", 0, "transfer tuning: goroutines copying per buffer (default min(NumCPU, 16))")
	f.BoolVar(&noProgess, "no-progress", false, "no progress bar on stderr")
	rootCmd.AddCommand(cmd)

	var from []string
	plotCmd := &cobra.Command{
		Use:   "plot --from RESULTS.json [--from MORE.json ...] [--svg DIR] [--md FILE]",
		Short: "Draw SVG plots (one series per adapter) and Markdown tables from saved bench results",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(from) == 0 || (svgDir == "" && mdPath == "") {
				return fmt.Errorf("bench plot: need at least one --from file, and --svg DIR or --md FILE")
			}
			var all []table
			for _, p := range from {
				b, err := os.ReadFile(p)
				if err != nil {
					return fmt.Errorf("bench plot: %w", err)
				}
				var ts []table
				if err := json.Unmarshal(b, &ts); err != nil {
					return fmt.Errorf("bench plot: %s is not a wgbench results file: %w", p, err)
				}
				all = append(all, ts...)
			}
			return writeResults(all, "", mdPath, svgDir)
		},
	}
	plotCmd.Flags().StringArrayVar(&from, "from", nil, "results file written by bench --json (repeatable)")
	plotCmd.Flags().StringVar(&svgDir, "svg", "", "output directory for SVG plots")
	plotCmd.Flags().StringVar(&mdPath, "md", "", "write the tables as Markdown to this file")
	cmd.AddCommand(plotCmd)
}

func writeResults(all []table, jsonPath, mdPath, svgDir string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("bench: write %s: %w", jsonPath, err)
		}
	}
	if mdPath != "" {
		var sb strings.Builder
		for i := range all {
			all[i].markdown(&sb)
		}
		if err := os.WriteFile(mdPath, []byte(sb.String()), 0o644); err != nil {
			return fmt.Errorf("bench: write %s: %w", mdPath, err)
		}
	}
	if svgDir != "" {
		return writeSVGs(all, svgDir)
	}
	return nil
}

func svgName(t table) string {
	name := strings.ToLower(t.Suite + "-" + t.Title)
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, name)
	for strings.Contains(name, "--") {
		name = strings.ReplaceAll(name, "--", "-")
	}
	return filepath.Clean(strings.Trim(name, "-") + ".svg")
}

// cpuParallel runs fn(i) for i in [0, n) on all cores, for the CPU
// reference columns and the CPU path of the commands.
func cpuParallel(n int, fn func(i int)) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += w {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// hostCPU names this machine's CPU count, for CPU-reference columns.
func hostCPU() string { return fmt.Sprintf("%d threads", runtime.NumCPU()) }
