// Package trace is the process's trace: where a command's time goes,
// phase by phase (instance and adapter enumeration, device creation, each
// kernel's compile, staging, transfers, kernels, waits, and the phases
// algorithms record through wgpu.Span). It is off until a program turns it
// on (Enable: wgbench's --trace, or WGCOMPUTE_TRACE through envopts); when
// off, a span costs one atomic load. Programs and test helpers turn it on
// and print it; the library only records spans.
package trace

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/wgcompute/wgcompute/internal/base/procstart"
)

var (
	enabled atomic.Bool
	mu      sync.Mutex
	begin   = procstart.Time
	phases  = map[string]*Row{}
	// coverage is the union of every span recorded, as disjoint
	// intervals since begin in order: phases overlap (the device
	// opens while the input is read), so the time no span covers is the
	// wall time less this union, not less the phases' sum.
	coverage []interval
)

// interval is [from, to) since begin.
type interval struct{ from, to time.Duration }

// Row sums the spans of one phase.
type Row struct {
	Phase string        // for example "compile blake3.wgsl:chunks" or "upload"
	Count int           // spans recorded
	Total time.Duration // their summed duration
	Bytes int64         // bytes moved, for transfers
	First time.Duration // when the first span began, since process start
}

// Enable turns tracing on (or off) for the rest of the process.
func Enable(on bool) { enabled.Store(on) }

// On reports whether spans are being recorded.
func On() bool { return enabled.Load() }

// Span starts a span of phase and returns the function that ends it,
// recording bytes moved (0 if none). Algorithms use it for their own
// phases ("read input", "merge on host").
func Span(phase string) func(bytes int64) {
	if !enabled.Load() {
		return func(int64) {}
	}
	return SpanAt(phase, time.Now())
}

// SpanAt is Span of a phase that began at start: a command that turns
// tracing on after its start-up records the start-up this way.
func SpanAt(phase string, start time.Time) func(bytes int64) {
	if !enabled.Load() {
		return func(int64) {}
	}
	return func(bytes int64) {
		end := time.Now()
		mu.Lock()
		defer mu.Unlock()
		r := phases[phase]
		if r == nil {
			r = &Row{Phase: phase, First: start.Sub(begin)}
			phases[phase] = r
		}
		r.Count++
		r.Total += end.Sub(start)
		r.Bytes += bytes
		coverage = cover(coverage, interval{start.Sub(begin), end.Sub(begin)})
	}
}

// cover adds iv to the disjoint, ordered intervals in, merging those it
// touches.
func cover(in []interval, iv interval) []interval {
	// The first interval that ends at or after iv's start, and the first
	// that starts after iv's end: those between merge with iv.
	lo := sort.Search(len(in), func(i int) bool { return in[i].to >= iv.from })
	hi := sort.Search(len(in), func(i int) bool { return in[i].from > iv.to })
	if lo < hi {
		iv.from = min(iv.from, in[lo].from)
		iv.to = max(iv.to, in[hi-1].to)
	}
	return slices.Insert(slices.Delete(in, lo, hi), lo, iv)
}

// covered sums the intervals.
func covered(in []interval) time.Duration {
	var d time.Duration
	for _, iv := range in {
		d += iv.to - iv.from
	}
	return d
}

// Rows returns the phases recorded so far, in the order they first
// began.
func Rows() []Row {
	mu.Lock()
	defer mu.Unlock()
	rows := make([]Row, 0, len(phases))
	for _, r := range phases {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].First < rows[j].First })
	return rows
}

// Write writes the recorded phases as a table, then the wall time
// since the process started, how much of it some span covers, and the
// rest, which no span accounts for ("unaccounted"), so that a phase
// nobody traced shows up as a gap instead of going unseen.
func Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "phase\tcount\ttotal ms\tstart ms\tMB\t\n")
	for _, r := range Rows() {
		mb := ""
		if r.Bytes > 0 {
			mb = fmt.Sprintf("%.3f", float64(r.Bytes)/1e6)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%s\t\n", r.Phase, r.Count, ms(r.Total), ms(r.First), mb)
	}
	wall := time.Since(begin)
	mu.Lock()
	cov := covered(coverage)
	mu.Unlock()
	fmt.Fprintf(tw, "wall since process start\t\t%.3f\t\t\t\n", ms(wall))
	fmt.Fprintf(tw, "covered by the phases above\t\t%.3f\t\t\t\n", ms(cov))
	fmt.Fprintf(tw, "unaccounted\t\t%.3f\t\t\t\n", ms(max(0, wall-cov)))
	return tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
