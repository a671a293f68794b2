package symmetric

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// rot is a toy permutation of width 4 that records its inputs: it rotates
// the state by one and adds 1 to every element.
type rot struct{ seen [][]int }

func (r *rot) Width() int { return 4 }
func (r *rot) Permute(s []int) error {
	r.seen = append(r.seen, append([]int(nil), s...))
	s[0], s[1], s[2], s[3] = s[3]+1, s[0]+1, s[1]+1, s[2]+1
	return nil
}

func TestSpongeBlocks(t *testing.T) {
	p := &rot{}
	s := PaddingFreeSponge[int]{Perm: p, Rate: 2, Out: 3}
	out, err := s.Hash([]int{10, 20, 30})
	require.NoError(t, err)
	// Block 1 overwrites lanes 0, 1; block 2 (partial) lane 0 only.
	require.Equal(t, [][]int{{10, 20, 0, 0}, {30, 11, 21, 1}}, p.seen)
	require.Equal(t, []int{2, 31, 12}, out)

	p.seen = nil
	out, err = s.Hash(nil)
	require.NoError(t, err)
	require.Empty(t, p.seen, "no permutation for an empty input")
	require.Equal(t, []int{0, 0, 0}, out)

	p.seen = nil
	_, err = s.Hash([]int{1, 2, 3, 4})
	require.NoError(t, err)
	require.Len(t, p.seen, 2, "a whole last block is permuted once, not twice")

	_, err = PaddingFreeSponge[int]{Perm: p, Rate: 5, Out: 1}.Hash(nil)
	require.ErrorContains(t, err, "must be 1..4")
}

func TestTruncatedPermutation(t *testing.T) {
	p := &rot{}
	c := TruncatedPermutation[int]{Perm: p, N: 2, Chunk: 1}
	out, err := c.Compress([]int{5}, []int{6})
	require.NoError(t, err)
	require.Equal(t, [][]int{{5, 6, 0, 0}}, p.seen)
	require.Equal(t, []int{1}, out)
	_, err = c.Compress([]int{5})
	require.ErrorContains(t, err, "given 1")
	_, err = c.Compress([]int{5, 6}, []int{7})
	require.ErrorContains(t, err, "input 0 has 2 elements")
	_, err = TruncatedPermutation[int]{Perm: p, N: 3, Chunk: 2}.Compress()
	require.ErrorContains(t, err, "at most the width")
}

// TestInto: HashInto and CompressInto compute Hash and Compress in the
// caller's state, whatever it held, and refuse a state of another size.
func TestInto(t *testing.T) {
	p := &rot{}
	s := PaddingFreeSponge[int]{Perm: p, Rate: 2, Out: 3}
	want, err := s.Hash([]int{10, 20, 30})
	require.NoError(t, err)
	state := []int{7, 7, 7, 7}
	require.NoError(t, s.HashInto(state, []int{10, 20, 30}))
	require.Equal(t, want, state[:3])
	require.ErrorContains(t, s.HashInto(make([]int, 3), nil), "sponge state of 3 elements, want 4")

	c := TruncatedPermutation[int]{Perm: p, N: 2, Chunk: 1}
	want, err = c.Compress([]int{5}, []int{6})
	require.NoError(t, err)
	state = []int{9, 9, 9, 9}
	require.NoError(t, c.CompressInto(state, []int{5}, []int{6}))
	require.Equal(t, want, state[:1])
	require.ErrorContains(t, c.CompressInto(make([]int, 5), []int{5}, []int{6}), "compression state of 5 elements, want 4")
}

func TestSpongeAt(t *testing.T) {
	p := &rot{}
	s := PaddingFreeSponge[int]{Perm: p, Rate: 2, Out: 1, At: 2}
	out, err := s.Hash([]int{10, 20, 30})
	require.NoError(t, err)
	// Blocks overwrite lanes 2, 3; the partial one lane 2 alone, lane 3
	// left as the first permutation left it.
	require.Equal(t, [][]int{{0, 0, 10, 20}, {21, 1, 30, 11}}, p.seen)
	require.Equal(t, []int{12}, out)
	_, err = PaddingFreeSponge[int]{Perm: p, Rate: 2, Out: 1, At: 3}.Hash(nil)
	require.ErrorContains(t, err, "from lane 3")
}

func add(a, b int) int { return a + b }

func TestFeedForwardCompression(t *testing.T) {
	p := &rot{}
	c := FeedForwardCompression[int]{Perm: p, Chunk: 2, Add: add}
	out, err := c.Compress([]int{5, 6}, []int{7, 8})
	require.NoError(t, err)
	require.Equal(t, [][]int{{5, 6, 7, 8}}, p.seen)
	// The permuted state is 9, 6, 7, 8: its second half plus b.
	require.Equal(t, []int{7 + 7, 8 + 8}, out)
	_, err = c.Compress([]int{5}, []int{7, 8})
	require.ErrorContains(t, err, "1 and 2 elements")
	_, err = FeedForwardCompression[int]{Perm: p, Chunk: 3, Add: add}.Compress(nil, nil)
	require.ErrorContains(t, err, "at most the width")
	_, err = FeedForwardCompression[int]{Perm: p, Chunk: 2}.Compress(nil, nil)
	require.ErrorContains(t, err, "without a permutation or an addition")
}

func TestMerkleDamgard(t *testing.T) {
	p := &rot{}
	m := MerkleDamgard[int]{Compression: FeedForwardCompression[int]{Perm: p, Chunk: 2, Add: add}}
	out, err := m.Hash([]int{10, 20, 30})
	require.NoError(t, err)
	// (0, 0, 10, 20) permutes to (21, 1, 1, 11): the state is (1+10,
	// 11+20). The partial last block is padded in front, (0, 30); the
	// state (11, 31, 0, 30) permutes to (31, 12, 32, 1).
	require.Equal(t, [][]int{{0, 0, 10, 20}, {11, 31, 0, 30}}, p.seen)
	require.Equal(t, []int{32 + 0, 1 + 30}, out)
	p.seen = nil
	out, err = m.Hash(nil)
	require.NoError(t, err)
	require.Empty(t, p.seen)
	require.Equal(t, []int{0, 0}, out)
}
