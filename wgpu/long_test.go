package wgpu_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// spin runs spinSteps rounds of an xorshift in every invocation and stores
// the result of each workgroup's first: a kernel whose duration the test
// chooses through the number of workgroups. (Longer loops would not do:
// llvmpipe and lavapipe give each invocation a budget of about 65535 loop
// iterations, shared by all its loops, and then end every loop silently.)
const spin = `
@group(0) @binding(0) var<storage, read_write> dst: array<u32>;
struct Params { steps: u32 }
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
	var x = wid.x + 1u;
	for (var i = 0u; i < params.steps; i++) {
		x ^= x << 13u;
		x ^= x >> 17u;
		x ^= x << 5u;
	}
	if (li == 0u) { dst[wid.x] = x; }
}
`

const spinSteps = 60000

func spinRef(seed, steps uint32) uint32 {
	x := seed
	for i := uint32(0); i < steps; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
	}
	return x
}

// One submission that runs for more than ten seconds is waited for to the
// end and gives the right answer: wgpu 0.17's blocking poll returned after
// five seconds as if the work were done, and freeing what the GPU still
// used crashed lavapipe (SIGSEGV in a worker thread).
func TestLongSubmission(t *testing.T) {
	if testing.Short() {
		t.Skip("takes more than ten seconds per backend")
	}
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		k, err := ctx.Kernel(wgpu.KernelSpec{Label: "spin", Module: text{"spin", spin}, Entry: "main", Storage: 1, Uniform: true})
		require.NoError(t, err)
		const maxGroups = 65535
		buf, err := ctx.NewBuffer("spin", maxGroups*4)
		require.NoError(t, err)
		defer buf.Release()
		run := func(groups uint32) time.Duration {
			start := time.Now()
			_, err := ctx.Run(wgpu.Dispatch{Kernel: k, Bindings: []wgpu.Binding{wgpu.Bind(buf)}, Params: []uint32{spinSteps}, Groups: [3]uint32{groups, 1, 1}})
			require.NoError(t, err)
			return time.Since(start)
		}
		// Calibrate, then aim at 11 s.
		groups := uint32(1)
		took := run(groups)
		for took < 300*time.Millisecond && groups < maxGroups {
			groups = min(groups*4, maxGroups)
			took = run(groups)
		}
		want := float64(groups) * float64(11*time.Second) / float64(took)
		if want > maxGroups {
			t.Skipf("%s is too fast to spin for ten seconds in one dispatch (%v for %d workgroups)", ctx.Info().Name, took, groups)
		}
		groups = uint32(want)
		took = run(groups)
		// A machine busy with other work during the calibration makes the
		// guess short: aim again from the long run itself.
		for took < 10*time.Second && groups < maxGroups {
			groups = uint32(min(maxGroups, float64(groups)*float64(12*time.Second)/float64(took)))
			took = run(groups)
		}
		t.Logf("one submission of %d workgroups took %v", groups, took)
		require.Greater(t, took, 10*time.Second, "the long submission was too short to test anything")
		got := make([]uint32, groups)
		require.NoError(t, ctx.Download(wgpu.Bytes(got), buf, 0))
		for i := range got {
			require.Equal(t, spinRef(uint32(i+1), spinSteps), got[i], "workgroup %d", i)
		}
	})
}
