package trace_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/internal/base/trace"
)

func TestTrace(t *testing.T) {
	trace.Enable(true)
	defer trace.Enable(false)
	trace.Span("test phase")(1234)
	var found bool
	for _, r := range trace.Rows() {
		if r.Phase == "test phase" {
			found = r.Count >= 1 && r.Bytes >= 1234
		}
	}
	require.True(t, found, "test phase not recorded: %+v", trace.Rows())
	var sb strings.Builder
	require.NoError(t, trace.Write(&sb))
	require.Contains(t, sb.String(), "test phase")
}

// TestTraceAccounts: the trace ends with the wall time since the process
// started, the part the phases cover, counted once where they overlap,
// and the rest as unaccounted.
func TestTraceAccounts(t *testing.T) {
	trace.Enable(true)
	defer trace.Enable(false)
	total := func(out, label string) float64 {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if strings.HasPrefix(strings.TrimSpace(line), label) && len(f) > 0 {
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				require.NoError(t, err, line)
				return v
			}
		}
		t.Fatalf("no %q line in\n%s", label, out)
		return 0
	}
	var before strings.Builder
	require.NoError(t, trace.Write(&before))
	// Two phases of 30 ms that overlap for 20 ms cover 40 ms.
	start := time.Now()
	outer := trace.SpanAt("test outer", start)
	time.Sleep(10 * time.Millisecond)
	inner := trace.Span("test inner")
	time.Sleep(20 * time.Millisecond)
	outer(0)
	time.Sleep(10 * time.Millisecond)
	inner(0)
	var after strings.Builder
	require.NoError(t, trace.Write(&after))
	out := after.String()
	added := total(out, "covered by the phases above") - total(before.String(), "covered by the phases above")
	elapsed := float64(time.Since(start)) / 1e6
	require.GreaterOrEqual(t, added, 40.0, out)
	require.LessOrEqual(t, added, elapsed, out)
	wall, cov, rest := total(out, "wall since process start"), total(out, "covered by the phases above"), total(out, "unaccounted")
	require.InDelta(t, wall-cov, rest, 0.002, out)
}
