package bench

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wgcompute/wgcompute/cmd/internal/fileout"
	"github.com/wgcompute/wgcompute/cmd/internal/results"
	"github.com/wgcompute/wgcompute/cmd/wgbench/internal/cli"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/envopts"
)

// A benchmark suite measures one capability on one Context and returns
// tables shaped like the articles' tables.
type suite struct {
	name  string
	about string
	run   func(ctx *wgpu.Context, cfg *benchConfig) ([]results.Table, error)
}

// benchSuites lists the suites in the order 'bench all' runs them.
func benchSuites() []suite {
	return append([]suite{
		{name: "blake3", about: "BLAKE3 of 64 MiB to 1 GiB: kernel, transfers, end to end", run: benchBLAKE3},
		{name: "transfer", about: "host-device bandwidth through the staging ring", run: benchTransfer},
		{name: "eigen", about: "dominant eigenpair: row-sum and max kernels, the whole method on Hilbert matrices", run: benchEigen},
		{name: "merkle", about: "binary Merkle trees, BLAKE3 and Rescue, three constructions", run: benchMerkle},
		{name: "ntt", about: "KoalaBear NTT of 2^16 to 2^24 and Reed-Solomon encoding, gnark-crypto on all cores beside it", run: benchNTT},
		{name: "vortex", about: "gnark-crypto's Vortex commitment by stage and end to end, its vortex.Commit on all cores beside it", run: benchVortex},
		{name: "linea", about: "the Vortex of Linea's prover at its shapes: commitments with SIS and without, by stage and end to end, and the round's opening, the CPU path beside them", run: benchLinea},
	}, elementHashSuites()...)
}

// benchConfig is what one bench run measures with.
type benchConfig struct {
	quick   bool
	repeats int
	bar     *cli.Bar
	// warmUp is how long median keeps the GPU busy before timing: an idle
	// NVIDIA GPU runs at a fraction of its clock and takes tens of
	// milliseconds of work to come back up, so a short kernel timed right
	// after a pause on the CPU measured several times slow
	// (bench/results/HISTORY.md, "Figures moved from code comments"). --quick
	// (meant for CPU adapters, which keep their clock) lowers it.
	warmUp time.Duration
	// firstWarmUp replaces warmUp for the first measurement of the run: a
	// freshly started process on an idle NVIDIA GPU hashed the same 1 GiB
	// faster and faster over its first seconds (bench/results/HISTORY.md,
	// "Figures moved from code comments"). (It is not the whole story: see
	// BENCHMARKS.md, "BLAKE3", on the 1 GiB spread.)
	firstWarmUp time.Duration
	// ctx is cancelled by Ctrl-C: medianOf stops with cli.ErrInterrupted.
	ctx context.Context
	// suite and desc name the case being measured (step), for timings;
	// of names the suite's place among those chosen ("suite 2 of 7"), for
	// the progress bar.
	suite, desc, of string
	// timings are every case timed so far, with their samples; measured,
	// when set, is called after each one is added.
	timings  []results.Timing
	measured func() error
}

// newBenchConfig is the configuration of a full run, or of --quick.
func newBenchConfig(quick bool, repeats int) *benchConfig {
	if quick {
		return &benchConfig{quick: true, repeats: repeats, warmUp: 20 * time.Millisecond}
	}
	return &benchConfig{repeats: repeats, warmUp: 300 * time.Millisecond, firstWarmUp: 3 * time.Second}
}

// step advances the progress bar by one measured case.
func (cfg *benchConfig) step(desc string) {
	cfg.desc = desc
	if cfg.bar != nil {
		cfg.bar.Describe(cfg.of + ": " + desc)
		cfg.bar.Add(1)
	}
}

// nextWarmUp is how long the next measurement warms up.
func (cfg *benchConfig) nextWarmUp() time.Duration {
	wu := cfg.warmUp
	if cfg.firstWarmUp > wu {
		wu, cfg.firstWarmUp = cfg.firstWarmUp, 0
	}
	return wu
}

// median is medianOf with the configured repeats.
func (cfg *benchConfig) median(fn func() (time.Duration, error)) (time.Duration, error) {
	return cfg.medianOf(cfg.repeats, fn)
}

// medianOf runs fn for at least the warm-up (the first warm-up the first
// time; at least once), then repeats times, records the durations in
// cfg.timings, and returns their median.
func (cfg *benchConfig) medianOf(repeats int, fn func() (time.Duration, error)) (time.Duration, error) {
	if err := cli.Interrupted(cfg.ctx); err != nil {
		return 0, err
	}
	wu := cfg.nextWarmUp()
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
		if err := cli.Interrupted(cfg.ctx); err != nil {
			return 0, err
		}
		d, err := fn()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	cfg.timings = append(cfg.timings, results.NewTiming(cfg.suite, cfg.desc, ds))
	if cfg.measured != nil {
		if err := cfg.measured(); err != nil {
			return 0, err
		}
	}
	return slices.Sorted(slices.Values(ds))[len(ds)/2], nil
}

// gpuTime is the median GPU time of fn, a call that reports its timing to
// t (as its Options.Timing): t.Elapsed(), the kernel time where the adapter
// measures it, else the wall time of the submissions.
func (cfg *benchConfig) gpuTime(t *wgpu.Timing, fn func() error) (time.Duration, error) {
	return cfg.median(func() (time.Duration, error) {
		*t = wgpu.Timing{}
		err := fn()
		return t.Elapsed(), err
	})
}

// wallTime is the median wall time of fn.
func (cfg *benchConfig) wallTime(fn func() error) (time.Duration, error) {
	return cfg.median(func() (time.Duration, error) {
		start := time.Now()
		err := fn()
		return time.Since(start), err
	})
}

// residentBuffer returns a new device buffer holding data; the caller
// releases it.
func residentBuffer(ctx *wgpu.Context, label string, data []byte) (*wgpu.Buffer, error) {
	buf, err := ctx.NewBuffer(label, uint64(len(data)))
	if err != nil {
		return nil, err
	}
	if err := ctx.Upload(buf, 0, data); err != nil {
		buf.Release()
		return nil, err
	}
	return buf, nil
}

// timeKind names what the kernel columns of ctx's tables measure.
func timeKind(ctx *wgpu.Context) string {
	if ctx.Info().Timestamps {
		return "GPU kernel time (timestamp queries)"
	}
	return "wall time of the submission (this adapter has no timestamp queries)"
}

func gbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e9
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

// markdown prints t on w as a Markdown section and returns the first write
// error.
func markdown(w io.Writer, t *results.Table) error {
	cw := &cli.CheckedWriter{W: w}
	fmt.Fprintf(cw, "### %s\n\n", t.Title)
	fmt.Fprintf(cw, "Device: %s (%s, driver %s), %s. Command: `%s`\n\n", t.Device, t.Backend, orNone(t.Driver), t.Date, t.Command)
	fmt.Fprintf(cw, "| %s |\n", strings.Join(t.Columns, " | "))
	seps := make([]string, len(t.Columns))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(cw, "| %s |\n", strings.Join(seps, " | "))
	for _, r := range t.Rows {
		fmt.Fprintf(cw, "| %s |\n", strings.Join(r, " | "))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(cw, "\n%s\n", n)
	}
	fmt.Fprintln(cw)
	return cw.Err
}

func orNone(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

// suiteNames lists the suites' names in alphabetical order.
func suiteNames(suites []suite) []string {
	names := make([]string, len(suites))
	for i, s := range suites {
		names[i] = s.name
	}
	sort.Strings(names)
	return names
}

// suitesHelp lists the suites and what each measures, for bench --help.
func suitesHelp(suites []suite) string {
	var sb strings.Builder
	sb.WriteString("Suites:")
	for _, name := range suiteNames(suites) {
		i := slices.IndexFunc(suites, func(s suite) bool { return s.name == name })
		fmt.Fprintf(&sb, "\n  %-9s %s", name, suites[i].about)
	}
	return sb.String()
}

// New returns the bench command and its plot subcommand.
func New(g *cli.Globals) *cobra.Command {
	var (
		quick           bool
		repeats         int
		jsonPath        string
		mdPath          string
		svgDir          string
		slotMiB         = varFlag{flag: "staging-mib", variable: "WGCOMPUTE_STAGING_MIB"}
		slots           = varFlag{flag: "staging-slots", variable: "WGCOMPUTE_STAGING_SLOTS"}
		workers         = varFlag{flag: "copy-workers", variable: "WGCOMPUTE_COPY_WORKERS"}
		mapWriteUploads bool
		batches         string
		noProgress      bool
	)
	suites := benchSuites()
	cmd := &cobra.Command{
		Use:   "bench [suite...|all]",
		Short: "Run the benchmark suites and print tables like the articles' tables",
		Long: `bench measures each capability on the chosen adapter over the articles' size
ladders: kernel time, host-to-device, device-to-host and end-to-end time, the
article's published figure and the CPU reference on this machine beside it.
Each size is checked against the CPU reference once before it is timed;
warm-up runs are excluded and the median of the repeats is reported.

` + suitesHelp(suites),
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
					return fmt.Errorf("bench: unknown suite %q: choose from %s, or all", a, strings.Join(suiteNames(suites), ", "))
				}
				chosen = append(chosen, suites[i])
			}
			if repeats < 1 {
				return fmt.Errorf("bench: --repeats %d: must be at least 1", repeats)
			}
			batchMemory, err := wgpu.ParsePieceMemory(batches)
			if err != nil {
				return fmt.Errorf("bench: --staging-batches %q: %w", batches, err)
			}
			// A destination that cannot be written fails now, not after
			// the run.
			if err := checkOutputs(jsonPath, mdPath, svgDir); err != nil {
				return err
			}
			// The flags given override the WGCOMPUTE_* variables' settings;
			// the others keep them.
			opts := g.GPU
			t, f := &opts.Transfer, cmd.Flags()
			for _, fl := range []*varFlag{&slotMiB, &slots, &workers} {
				if !f.Changed(fl.flag) {
					continue
				}
				e, err := fl.parse()
				if err != nil {
					return fmt.Errorf("bench: %w", err)
				}
				et := e.Options.Transfer
				t.SlotBytes = cmp.Or(et.SlotBytes, t.SlotBytes)
				t.Slots = cmp.Or(et.Slots, t.Slots)
				t.Workers = cmp.Or(et.Workers, t.Workers)
			}
			t.MapWriteUploads = t.MapWriteUploads || mapWriteUploads
			if f.Changed("staging-batches") {
				opts.Runner.Memory = batchMemory
			}
			if err := g.GPUSpaceError(opts); err != nil {
				return err
			}
			ctx, err := wgpu.Open(opts)
			if err != nil {
				return err
			}
			defer ctx.Close()
			if quick && !cmd.Flags().Changed("repeats") {
				repeats = 3
			}
			cfg := newBenchConfig(quick, repeats)
			if cli.ShowProgress(cmd.ErrOrStderr(), g.Quiet || noProgress) {
				cfg.bar = cli.NewBar(cmd.ErrOrStderr(), "", -1, "")
				g.Bars.Add(cfg.bar)
			}
			info := ctx.Info()
			command := "wgbench " + strings.Join(g.Args, " ")
			all := []results.Table{} // written as [], not null, before the first
			res := &results.File{Format: results.Format, Version: results.Version, Measured: results.Measured{Device: info.Name, Backend: info.Backend, Driver: info.Driver,
				Date: time.Now().UTC().Format(time.RFC3339), Command: command}, Commit: cli.SourceCommit(), Go: runtime.Version()}
			// The JSON file is rewritten as results come in (each table,
			// and each timing at most once a second), so that a run cut
			// short keeps what it measured.
			var saved time.Time
			// A pipe or standard output cannot be rewritten: it gets the
			// results once, at the end (or when interrupted).
			stream := jsonPath != "" && !fileout.Replaced(jsonPath)
			save := func(now bool) error {
				if jsonPath == "" || stream || !now && time.Since(saved) < time.Second {
					return nil
				}
				saved = time.Now()
				res.Tables, res.Timings = all, append([]results.Timing{}, cfg.timings...)
				return writeJSON(jsonPath, res)
			}
			cfg.ctx = cmd.Context()
			cfg.measured = func() error { return save(false) }
			out := cmd.OutOrStdout()
			for i, s := range chosen {
				cfg.suite, cfg.of = s.name, fmt.Sprintf("suite %d of %d", i+1, len(chosen))
				tables, err := s.run(ctx, cfg)
				if err != nil {
					if cfg.bar != nil {
						cfg.bar.Clear()
					}
					if errors.Is(err, cli.ErrInterrupted) && jsonPath != "" {
						res.Tables, res.Timings = all, append([]results.Timing{}, cfg.timings...)
						if err := writeJSON(jsonPath, res); err != nil {
							return err
						}
						return fmt.Errorf("bench %s: %w; %s holds the %d tables and %d timed cases measured before it", s.name, err, jsonPath, len(all), len(cfg.timings))
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
					if err := markdown(out, t); err != nil {
						return err
					}
				}
				all = append(all, tables...)
				if err := save(true); err != nil {
					return err
				}
			}
			if cfg.bar != nil {
				cfg.bar.Clear()
			}
			res.Complete = true
			res.Timings = cfg.timings
			return writeResults(all, res, jsonPath, mdPath, svgDir)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "small sizes only, about a minute on a 2-core CPU adapter")
	f.IntVar(&repeats, "repeats", 5, "timed repeats per size; the median is reported (3 with --quick)")
	f.StringVar(&jsonPath, "json", "", "also write the results as JSON to this file, rewritten as each result comes in: numbers with units in their names, every repeat's time")
	f.StringVar(&mdPath, "md", "", "also write the tables as Markdown to this file")
	f.StringVar(&svgDir, "svg", "", "draw the plots as SVG and PNG files into this directory: numbered log axes with units, one color per adapter, published figures as reference lines")
	f.Var(&slotMiB, slotMiB.flag, "transfer tuning: staging buffer size in MiB (default 32; env WGCOMPUTE_STAGING_MIB, the same values)")
	f.Var(&slots, slots.flag, "transfer tuning: staging buffers per direction, 1 to 64 (default 2; env WGCOMPUTE_STAGING_SLOTS)")
	f.BoolVar(&mapWriteUploads, "staging-map-write", false, "transfer tuning: upload staging in MAP_WRITE buffers, not in host memory written through a read mapping (the default on Vulkan; env WGCOMPUTE_UPLOAD_STAGING=map-write)")
	f.StringVar(&batches, "staging-batches", "auto", "transfer tuning: where batches (Rescue, RPO, Poseidon2) keep their pieces: auto (host memory on Vulkan where the device's memory is the host's), device (uploaded and read back through the staging ring) or host (read and written by the kernels in host memory, on Vulkan) (env WGCOMPUTE_BATCH_BUFFERS)")
	f.Var(&workers, workers.flag, "transfer tuning: goroutines copying per buffer, 1 or more (default min(NumCPU, 16); env WGCOMPUTE_COPY_WORKERS)")
	// --quiet (a global flag) is the one way; --no-progress, which said
	// the same, stays for scripts that pass it.
	f.BoolVar(&noProgress, "no-progress", false, "no progress bar on stderr")
	f.MarkDeprecated("no-progress", "use --quiet")
	cmd.AddCommand(newBenchPlotCmd())
	return cmd
}

// varFlag is a flag that takes what its WGCOMPUTE_* variable takes, read
// by the variable's own rule (envopts.FromEnv), so that the flag and the
// variable accept the same values and refuse the rest with the same words.
type varFlag struct {
	flag, variable string
	value          string
}

func (v *varFlag) String() string { return v.value }

func (v *varFlag) Set(s string) error { v.value = s; return nil }

func (v *varFlag) Type() string { return "N" }

// parse reads the value as its variable is read.
func (v *varFlag) parse() (envopts.Env, error) {
	e, err := envopts.FromEnv(func(name string) (string, bool) {
		if name == v.variable {
			return v.value, true
		}
		return "", false
	})
	if err == nil && v.value == "" {
		err = errors.New("empty")
	}
	if err != nil {
		// The variable's rule, without its name: "accepted is ...".
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return envopts.Env{}, fmt.Errorf("--%s %q: %w (as %s)", v.flag, v.value, err, v.variable)
	}
	return e, nil
}

func newBenchPlotCmd() *cobra.Command {
	var (
		from   []string
		svgDir string
		mdPath string
	)
	cmd := &cobra.Command{
		Use:   "plot --from RESULTS.json [--from MORE.json ...] [--svg DIR] [--md FILE]",
		Short: "Draw SVG and PNG plots (one color per adapter) and Markdown tables from saved bench results",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(from) == 0 || (svgDir == "" && mdPath == "") {
				return fmt.Errorf("bench plot: need at least one --from file, and --svg DIR or --md FILE")
			}
			if err := checkOutputs("", mdPath, svgDir); err != nil {
				return err
			}
			var all []results.Table
			for _, p := range from {
				b, err := cli.ReadInput(p, maxResultsBytes, "a results file can hold here")
				if err != nil {
					return fmt.Errorf("bench plot: %w", err)
				}
				ts, err := results.Read(p, b)
				if err != nil {
					return fmt.Errorf("bench plot: %w", err)
				}
				all = append(all, ts...)
			}
			return writeResults(all, nil, "", mdPath, svgDir)
		},
	}
	cmd.Flags().StringArrayVar(&from, "from", nil, "results file written by bench --json (repeatable)")
	cmd.Flags().StringVar(&svgDir, "svg", "", "output directory for the plots, SVG and PNG")
	cmd.Flags().StringVar(&mdPath, "md", "", "write the tables as Markdown to this file")
	return cmd
}

// maxResultsBytes bounds a results file that bench plot reads: bench all
// writes about 100 KiB.
const maxResultsBytes = 64 << 20

// checkOutputs checks that the result files and the SVG directory can be
// written, before a run: a missing directory is checked where it would be
// created.
func checkOutputs(jsonPath, mdPath, svgDir string) error {
	if jsonPath != "" && mdPath != "" && fileout.Same(jsonPath, mdPath) {
		return fmt.Errorf("bench: --json %s and --md %s are the same file: the Markdown would replace the JSON; give two names", jsonPath, mdPath)
	}
	for _, p := range []string{jsonPath, mdPath} {
		if p == "" {
			continue
		}
		if err := fileout.Check(p); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if svgDir == "" {
		return nil
	}
	dir := svgDir
	for {
		fi, err := os.Stat(dir)
		if err == nil && !fi.IsDir() {
			return fmt.Errorf("bench: --svg %s: %s is not a directory", svgDir, dir)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return fmt.Errorf("bench: --svg %s: %w", svgDir, fileout.Bare(err))
		}
		dir = filepath.Dir(dir)
	}
	if err := fileout.Check(filepath.Join(dir, ".wgbench-svg-check")); err != nil {
		return fmt.Errorf("bench: --svg %s: %w", svgDir, err)
	}
	if _, err := plotter(); err != nil {
		return fmt.Errorf("bench: --svg %s: %w", svgDir, err)
	}
	return nil
}

// writeJSON writes res to path, whole or not at all.
func writeJSON(path string, res *results.File) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := fileout.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// writeResults writes the JSON results res (all its tables), the Markdown
// tables and the plots that were asked for; no file is left partly
// written, and none is written when a plot cannot be drawn (bench's JSON
// file then keeps the last version written during the run, marked
// incomplete).
func writeResults(all []results.Table, res *results.File, jsonPath, mdPath, svgDir string) error {
	var plots []*svgGroup
	if svgDir != "" {
		var err error
		if plots, err = svgGroups(all); err != nil {
			return err
		}
	}
	if jsonPath != "" {
		res.Tables = all
		if err := writeJSON(jsonPath, res); err != nil {
			return err
		}
	}
	if mdPath != "" {
		err := fileout.Write(mdPath, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for i := range all {
				if err := markdown(bw, &all[i]); err != nil {
					return err
				}
			}
			return bw.Flush()
		})
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if svgDir != "" {
		return writeSVGs(plots, svgDir)
	}
	return nil
}

func svgName(t results.Table) string {
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
