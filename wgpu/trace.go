package wgpu

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// The process's trace: where a command's time goes, phase by phase
// (instance and adapter enumeration, device creation, each kernel's
// compile, staging, transfers, kernels, waits). It is off until
// EnableTrace turns it on (a program's --trace, or WGCOMPUTE_TRACE through
// FromEnv); when off, a span costs one atomic load.

var (
	traceOn    atomic.Bool
	traceMu    sync.Mutex
	traceStart = time.Now()
	traceRows  = map[string]*TraceRow{}
)

// TraceRow sums the spans of one phase.
type TraceRow struct {
	Phase string        // for example "compile blake3.wgsl:chunks" or "upload"
	Count int           // spans recorded
	Total time.Duration // their summed duration
	Bytes int64         // bytes moved, for transfers
	First time.Duration // when the first span began, since process start
}

// EnableTrace turns tracing on (or off) for the rest of the process.
func EnableTrace(on bool) { traceOn.Store(on) }

// Tracing reports whether spans are being recorded.
func Tracing() bool { return traceOn.Load() }

// Span starts a span of phase and returns the function that ends it,
// recording bytes moved (0 if none). Algorithms use it for their own
// phases ("read input", "merge on host").
func Span(phase string) func(bytes int64) {
	if !traceOn.Load() {
		return func(int64) {}
	}
	start := time.Now()
	return func(bytes int64) {
		d := time.Since(start)
		traceMu.Lock()
		defer traceMu.Unlock()
		r := traceRows[phase]
		if r == nil {
			r = &TraceRow{Phase: phase, First: start.Sub(traceStart)}
			traceRows[phase] = r
		}
		r.Count++
		r.Total += d
		r.Bytes += bytes
	}
}

// TraceRows returns the phases recorded so far, in the order they first
// began.
func TraceRows() []TraceRow {
	traceMu.Lock()
	defer traceMu.Unlock()
	rows := make([]TraceRow, 0, len(traceRows))
	for _, r := range traceRows {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].First < rows[j].First })
	return rows
}

// WriteTrace writes the recorded phases as a table, with the time since
// the process started.
func WriteTrace(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "phase\tcount\ttotal ms\tstart ms\tMB\t\n")
	for _, r := range TraceRows() {
		mb := ""
		if r.Bytes > 0 {
			mb = fmt.Sprintf("%.3f", float64(r.Bytes)/1e6)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%s\t\n", r.Phase, r.Count, ms(r.Total), ms(r.First), mb)
	}
	fmt.Fprintf(tw, "process so far\t\t%.3f\t\t\t\n", ms(time.Since(traceStart)))
	return tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
