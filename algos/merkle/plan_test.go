package merkle

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlan(t *testing.T) {
	require.Equal(t, []int{1}, plan(2, 8))
	require.Equal(t, []int{8, 8, 4}, plan(1<<20, 8))
	require.Equal(t, []int{1, 1, 1}, plan(8, 1))
	require.Equal(t, []int{7}, plan(128, 7))
}

// tuned is a Hash with tuner; untuned one without.
type (
	untuned struct{ Hash }
	tuned   struct {
		Hash
		approach string
		wg       int
	}
)

func (tuned) Name() string                       { return "test" }
func (h tuned) MerkleApproach(int) string        { return h.approach }
func (h tuned) MerkleWorkgroupSize(a string) int { return map[string]int{"subtrees": h.wg}[a] }

func TestSettings(t *testing.T) {
	for _, tc := range []struct {
		hash     Hash
		opts     Options
		approach approach
		wg       int
		err      string
	}{
		{untuned{}, Options{}, subtrees, 64, ""},
		{untuned{}, Options{approach: workgroupLevels, WorkgroupSize: 8}, workgroupLevels, 8, ""},
		{tuned{approach: "level-per-dispatch"}, Options{}, levelPerDispatch, 64, ""},
		{tuned{approach: "subtrees", wg: 256}, Options{}, subtrees, 256, ""},
		{tuned{approach: "subtrees", wg: 256}, Options{WorkgroupSize: 32}, subtrees, 32, ""},
		{tuned{approach: "", wg: 128}, Options{}, subtrees, 128, ""},
		{tuned{approach: "subtrees", wg: 256}, Options{approach: levelPerDispatch}, levelPerDispatch, 64, ""},
		{tuned{approach: "fastest"}, Options{}, 0, 0, `default: merkle: approach "fastest"`},
		{untuned{}, Options{approach: 9}, 0, 0, "approach 9: accepted are"},
	} {
		a, wg, err := settings(tc.hash, tc.opts, 1<<10)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%+v", tc)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.approach, a, "%+v", tc)
		require.Equal(t, tc.wg, wg, "%+v", tc)
	}
}
