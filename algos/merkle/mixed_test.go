package merkle_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// anyMix is the mix hash declaring that it accepts every digest, so that
// it can sit above Rescue in a schedule with no conversion.
type anyMix struct{ mixHash }

func (anyMix) AcceptsAnyDigest() bool { return true }

// leftHash merges to its left input unchanged: under Rescue in a schedule
// it hands chosen words (p, 2^64-1, ...) to the conversion, which random
// BLAKE3 digests reach with probability 2^-32.
type leftHash struct{}

func (leftHash) Name() string                 { return "left" }
func (leftHash) CheckDigest([32]byte) error   { return nil }
func (leftHash) AcceptsAnyDigest() bool       { return true }
func (leftHash) Merge(a, _ [32]byte) [32]byte { return a }
func (leftHash) MergeModule() wgpu.Module {
	return textModule{"left_test", "fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> { return a; }\n"}
}

// noConvert is a hash that takes only its own digests and converts none.
type noConvert struct{ mixHash }

func (noConvert) Name() string { return "strict" }
func (noConvert) CheckDigest(d [32]byte) error {
	if d[31] != 0 {
		return errors.New("byte 31 is not zero")
	}
	return nil
}

func lookup(name string) (merkle.Hash, error) {
	for _, h := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}, anyMix{}, leftHash{}, noConvert{}} {
		if h.Name() == name {
			return h, nil
		}
	}
	return nil, fmt.Errorf("no hash %q", name)
}

func schedule(t testing.TB, s string) merkle.Schedule {
	sc, err := merkle.ParseSchedule(s, lookup)
	require.NoError(t, err)
	return sc
}

// mixedReference is a mixed tree by definition, node by node from the
// root down: node i of level j (width w) is Merge of level j-1's nodes
// 2i and 2i+1 with level j's hash, converted by the hash of level j+1
// when it is another.
func mixedReference(leaves [][32]byte, hs []merkle.Hash) [][32]byte {
	n := len(leaves)
	nodes := make([][32]byte, n)
	var node func(i int) [32]byte
	node = func(i int) [32]byte {
		if i >= n {
			return leaves[i-n]
		}
		level := bits.Len(uint(n)) - bits.Len(uint(i)) // 1 for the nodes above the leaves
		d := hs[level-1].Merge(node(2*i), node(2*i+1))
		if level < len(hs) && hs[level].Name() != hs[level-1].Name() {
			if c, ok := hs[level].(merkle.DigestConverter); ok {
				d = c.ConvertDigest(d)
			}
		}
		nodes[i] = d
		return d
	}
	node(1)
	return nodes
}

func TestParseSchedule(t *testing.T) {
	for _, s := range []string{"blake3", "blake3:4,rescue", "rescue:1,blake3:2,mix", "left:3,rescue"} {
		sc := schedule(t, s)
		require.Equal(t, s, sc.String())
	}
	require.Equal(t, "rescue", merkle.Schedule{{Hash: rescue.MerkleMerge{}}}.String())
	for s, msg := range map[string]string{
		"":                   "empty hash schedule",
		"sha1:4,rescue":      `no hash "sha1"`,
		"blake3:0,rescue":    "run 1 (\"blake3:0\"): the levels of a run are a count of at least 1",
		"blake3:x,rescue":    "count of at least 1",
		"blake3:-2,rescue":   "count of at least 1",
		"blake3,rescue":      "run 1 covers 0 levels",
		"blake3:2,strict":    "strict above blake3: strict has no digestConverter",
		"rescue:2,blake3:,x": "count of at least 1",
	} {
		_, err := merkle.ParseSchedule(s, lookup)
		require.ErrorContains(t, err, msg, "%q", s)
	}
	// Counted runs that end short of the top are fine only if they fill it.
	hs, err := schedule(t, "blake3:2,rescue:1").Levels(8)
	require.NoError(t, err)
	require.Equal(t, []merkle.Hash{blake3.MerkleMerge{}, blake3.MerkleMerge{}, rescue.MerkleMerge{}}, hs)
	for _, n := range []int{4, 16} {
		_, err = schedule(t, "blake3:2,rescue:1").Levels(n)
		require.ErrorContains(t, err, "covers 3 levels")
	}
	_, err = schedule(t, "blake3:4,rescue").Levels(16)
	require.ErrorContains(t, err, "covers 5 levels, but a tree of 16 leaves has 4: the counted runs need 32 leaves or more")
	_, err = schedule(t, "blake3:4,rescue").Levels(12)
	require.ErrorContains(t, err, "power of two")
	_, err = merkle.Schedule{{Hash: nil}}.Levels(8)
	require.ErrorContains(t, err, "no hash")
	_, err = merkle.Schedule(nil).Levels(8)
	require.ErrorContains(t, err, "empty hash schedule")
}

func TestRescueConvertDigest(t *testing.T) {
	var d [32]byte
	words := []uint64{rescue.P, ^uint64(0), rescue.P - 1, rescue.P + 0xFFFF_FFFE}
	want := []uint64{0, 0xFFFF_FFFE, rescue.P - 1, 0xFFFF_FFFE}
	for j, w := range words {
		binary.LittleEndian.PutUint64(d[8*j:], w)
	}
	got := rescue.MerkleMerge{}.ConvertDigest(d)
	for j := range want {
		require.Equal(t, want[j], binary.LittleEndian.Uint64(got[8*j:]), "word %d", j)
	}
	require.NoError(t, rescue.MerkleMerge{}.CheckDigest(got))
	// A Rescue digest is its own conversion.
	leaf := randomLeaves(rescue.MerkleMerge{}, 1, 3)[0]
	require.Equal(t, leaf, rescue.MerkleMerge{}.ConvertDigest(leaf))
}

// mixedSchedules are the schedules the equality tests build, with the
// changes of hash at every level of a small tree, inside and at the top
// of subtrees.
var mixedSchedules = []string{"blake3:1,rescue", "blake3:3,rescue", "rescue:2,blake3", "mix:2,rescue:2,mix", "blake3:11,rescue", "blake3:2,rescue:1"}

// TestMixedMatchesReference builds mixed trees on every backend and
// compares every node with the reference; under small limits (2048 leaves
// a subtree) trees of 4096 leaves change hash inside the subtrees, at
// their roots (blake3:11) and in the tree of their roots.
func TestMixedMatchesReference(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	type tcase struct {
		s            merkle.Schedule
		top          string
		leaves, want [][32]byte
	}
	var cases []tcase
	for _, text := range mixedSchedules {
		s := schedule(t, text)
		for _, n := range []int{8, 64, 4096} {
			hs, err := s.Levels(n)
			if err != nil {
				continue // the schedule does not fit this size
			}
			leaves := randomLeaves(hs[0], n, seed+uint64(n))
			want := mixedReference(leaves, hs)
			cpu, err := merkle.Build(nil, leaves, nil, merkle.Options{Schedule: s})
			require.NoError(t, err)
			requireNodes(t, want, cpu, fmt.Sprintf("%s n=%d (a schedule on the CPU)", s, n))
			cases = append(cases, tcase{s, hs[len(hs)-1].Name(), leaves, want})
		}
	}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, tc := range cases {
			what := fmt.Sprintf("%s n=%d", tc.s, len(tc.leaves))
			var tm wgpu.Timing
			// Every level on the device: the kernels and conversions are
			// what is checked here, the host's top in TestHostWidthCommit.
			got, err := merkle.Build(ctx, tc.leaves, nil, merkle.Options{Schedule: tc.s, Timing: &tm}.WithDeviceTop())
			require.NoError(t, err, what)
			requireNodes(t, tc.want, got, what)
			require.Equal(t, tc.top, got.Hash().Name())
			require.NotZero(t, tm.Elapsed(), what)
		}
		if ctx == nil {
			return
		}
		// Every approach, on a schedule whose runs are several levels.
		s := schedule(t, "mix:3,rescue:2,mix")
		leaves := randomLeaves(mixHash{}, 1024, seed)
		hs, err := s.Levels(1024)
		require.NoError(t, err)
		want := mixedReference(leaves, hs)
		for _, o := range variants {
			got, err := merkle.Build(ctx, leaves, nil, withSchedule(o, s))
			require.NoError(t, err)
			requireNodes(t, want, got, o.Approach().String())
		}
	})
}

// TestMixedConversionEdges hands the conversion words at and past p
// through leftHash: level 1 is the left leaves, converted for Rescue.
func TestMixedConversionEdges(t *testing.T) {
	edges := []uint64{rescue.P, rescue.P + 1, ^uint64(0), rescue.P - 1, 0, 0xFFFF_FFFF_0000_0000, rescue.P + 0xFFFF_FFFE, 1 << 63}
	leaves := make([][32]byte, 16)
	for i := range leaves {
		for j := 0; j < 4; j++ {
			binary.LittleEndian.PutUint64(leaves[i][8*j:], edges[(i+j)%len(edges)])
		}
	}
	s := schedule(t, "left:1,rescue")
	hs, err := s.Levels(16)
	require.NoError(t, err)
	want := mixedReference(leaves, hs)
	for i := 8; i < 16; i++ {
		require.Equal(t, rescue.MerkleMerge{}.ConvertDigest(leaves[2*(i-8)]), want[i])
	}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		got, err := merkle.Build(ctx, leaves, nil, merkle.Options{Schedule: s})
		require.NoError(t, err)
		requireNodes(t, want, got, "edges")
	})
}

// TestMixedDeepSplit: 8 leaves a subtree, so a tree of 128 leaves is
// three levels of splitting, with the hash changing between them.
func TestMixedDeepSplit(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 128, 3)
	for _, text := range []string{"mix:3,rescue:1,mix", "mix:1,rescue:5,mix", "mix:6,rescue"} {
		s := schedule(t, text)
		hs, err := s.Levels(128)
		require.NoError(t, err)
		want := mixedReference(leaves, hs)
		for _, backend := range gputest.Backends() {
			ctx := gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256})
			got, err := merkle.Build(ctx, leaves, nil, merkle.Options{Schedule: s})
			require.NoError(t, err)
			requireNodes(t, want, got, text+" "+backend)
		}
	}
}

func TestVerifyMixed(t *testing.T) {
	s := schedule(t, "blake3:2,rescue")
	for _, n := range []int{8, 64} {
		leaves := randomLeaves(blake3.MerkleMerge{}, n, 7)
		tree, err := merkle.Build(nil, leaves, nil, merkle.Options{Schedule: s})
		require.NoError(t, err)
		for i := 0; i < n; i++ {
			p, err := tree.Proof(i)
			require.NoError(t, err)
			require.True(t, merkle.VerifyMixed(s, tree.Root(), n, p), "n=%d leaf %d", n, i)
			// One hash for every level proves nothing here.
			require.False(t, merkle.Verify(rescue.MerkleMerge{}, tree.Root(), n, p))
			require.False(t, merkle.VerifyMixed(schedule(t, "blake3:1,rescue"), tree.Root(), n, p))
			require.False(t, merkle.VerifyMixed(s, tree.Root(), 2*n, p))
			for b := 0; b < merkle.DigestSize; b += 5 {
				q := p
				q.Leaf[b] ^= 1
				require.False(t, merkle.VerifyMixed(s, tree.Root(), n, q), "leaf byte %d", b)
				for k := range p.Path {
					q := p
					q.Path = append([][32]byte(nil), p.Path...)
					q.Path[k][b] ^= 1
					require.False(t, merkle.VerifyMixed(s, tree.Root(), n, q), "path %d byte %d", k, b)
				}
			}
			q := p
			q.Index ^= 1
			require.False(t, merkle.VerifyMixed(s, tree.Root(), n, q))
		}
		// A Rescue-level sibling written with p added is rejected.
		p, err := tree.Proof(0)
		require.NoError(t, err)
		k := len(p.Path) - 1
		w := binary.LittleEndian.Uint64(p.Path[k][:])
		if w < 1<<32 {
			binary.LittleEndian.PutUint64(p.Path[k][:], w+rescue.P)
			require.False(t, merkle.VerifyMixed(s, tree.Root(), n, p))
		}
	}
	require.False(t, merkle.VerifyMixed(nil, [32]byte{}, 8, merkle.Proof{}))
}

// TestCommitRecords: BLAKE3 leaves of byte records hashed on the device,
// in a BLAKE3 tree and in mixed trees, at odd record sizes; under small
// limits the records go up in pieces and the tree in subtrees.
func TestCommitRecords(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	records := make([]byte, 4096*129)
	for i := range records {
		records[i] = byte(r.Uint32())
	}
	hash := blake3.MerkleMerge{}
	s := schedule(t, "blake3:2,rescue")
	type tcase struct {
		size, n             int
		leaves, want, mixed [][32]byte
	}
	var cases []tcase
	for _, size := range []int{1, 3, 31, 64, 65, 129, 1025, 3000} {
		for _, n := range []int{2, 64, 4096} {
			if n*size > len(records) {
				continue
			}
			data := records[:n*size]
			leaves, err := merkle.RecordLeaves(data, size, hash)
			require.NoError(t, err)
			for i := range leaves {
				require.Equal(t, blake3.Sum256(data[i*size:(i+1)*size]), leaves[i])
			}
			c := tcase{size: size, n: n, leaves: leaves, want: reference(leaves, hash)}
			if n == 64 || (n == 4096 && size == 65) {
				hs, err := s.Levels(n)
				require.NoError(t, err)
				c.mixed = mixedReference(leaves, hs)
			}
			cases = append(cases, c)
		}
	}
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, tc := range cases {
			data := records[:tc.n*tc.size]
			what := fmt.Sprintf("%d records of %d bytes", tc.n, tc.size)
			got, err := merkle.CommitRecords(ctx, data, tc.size, hash, merkle.Options{})
			require.NoError(t, err, what)
			requireLeaves(t, tc.leaves, got, what)
			requireNodes(t, tc.want, got, what)
			if tc.mixed == nil {
				continue
			}
			c, err := merkle.NewCommitter(ctx, s, merkle.Options{})
			require.NoError(t, err)
			got, err = merkle.CommitRecords(nil, data, tc.size, hash, merkle.Options{Committer: c})
			c.Release()
			require.NoError(t, err, what)
			requireLeaves(t, tc.leaves, got, what+" mixed")
			requireNodes(t, tc.mixed, got, what+" mixed")
		}
		for _, bad := range []struct {
			data []byte
			size int
			msg  string
		}{
			{make([]byte, 10), 3, "whole number of records"},
			{nil, 3, "no records"},
			{make([]byte, 8), 0, "records of 0 bytes"},
			{make([]byte, 8), -1, "records of -1 bytes"},
		} {
			_, err := merkle.CommitRecords(ctx, bad.data, bad.size, hash, merkle.Options{})
			require.ErrorContains(t, err, bad.msg)
		}
		_, err := merkle.CommitRecords(ctx, make([]byte, 8), 1, nil, merkle.Options{})
		require.ErrorContains(t, err, "no hash")
	})
}

// TestCommitRecordsAnyCount: a tree of one hash takes any number of
// records, as Build takes any number of leaves, with the same nodes;
// a mixed tree still takes a power of two.
func TestCommitRecordsAnyCount(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 1))
	records := make([]byte, 1025*300)
	for i := range records {
		records[i] = byte(r.Uint32())
	}
	hash := blake3.MerkleMerge{}
	type tcase struct {
		size, n      int
		leaves, want [][32]byte
	}
	var cases []tcase
	for _, size := range []int{1, 65, 1025} {
		for _, n := range []int{1, 3, 5, 63, 100, 300} {
			data := records[:n*size]
			leaves, err := merkle.RecordLeaves(data, size, hash)
			require.NoError(t, err)
			ref, err := merkle.Build(nil, leaves, hash, merkle.Options{})
			require.NoError(t, err)
			cases = append(cases, tcase{size, n, leaves, ref.Nodes()})
		}
	}
	s := schedule(t, "blake3:1,rescue")
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		c, err := merkle.NewCommitter(ctx, merkle.Schedule{{Hash: hash}}, merkle.Options{})
		require.NoError(t, err)
		defer c.Release()
		for _, tc := range cases {
			what := fmt.Sprintf("%d records of %d bytes", tc.n, tc.size)
			got, err := merkle.CommitRecords(nil, records[:tc.n*tc.size], tc.size, hash, merkle.Options{Committer: c})
			require.NoError(t, err, what)
			requireLeaves(t, tc.leaves, got, what)
			requireNodes(t, tc.want, got, what)
		}
		mixed, err := merkle.NewCommitter(ctx, s, merkle.Options{})
		require.NoError(t, err)
		defer mixed.Release()
		_, err = merkle.CommitRecords(nil, records[:3*4], 4, hash, merkle.Options{Committer: mixed})
		require.ErrorContains(t, err, "3 records")
		require.ErrorContains(t, err, "power of two")
	})
}

func TestMixedBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		s := schedule(t, "blake3:2,rescue")
		_, err := merkle.Build(ctx, make([][32]byte, 4), nil, merkle.Options{Schedule: s})
		require.ErrorContains(t, err, "covers 3 levels, but a tree of 4 leaves has 2")
		_, err = merkle.Build(ctx, make([][32]byte, 6), nil, merkle.Options{Schedule: s})
		require.ErrorContains(t, err, "power of two")
		bad := randomLeaves(rescue.MerkleMerge{}, 8, 1)
		binary.LittleEndian.PutUint64(bad[5][8:], rescue.P)
		_, err = merkle.Build(ctx, bad, nil, merkle.Options{Schedule: schedule(t, "rescue:1,blake3")})
		require.ErrorContains(t, err, "leaf 5: element 1")
		_, err = merkle.NewCommitter(ctx, merkle.Schedule{{Hash: blake3.MerkleMerge{}}, {Hash: noConvert{}}}, merkle.Options{})
		require.ErrorContains(t, err, "run 1 covers 0 levels")
		_, err = merkle.Build(ctx, make([][32]byte, 8), nil, merkle.Options{Schedule: s, WorkgroupSize: 3})
		require.ErrorContains(t, err, "powers of two")
	})
}

func TestMixedNoLeaks(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		s := schedule(t, "blake3:2,rescue")
		leaves := randomLeaves(blake3.MerkleMerge{}, 64, 1)
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.Build(ctx, leaves, nil, merkle.Options{Schedule: s})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error {
			_, err := merkle.CommitRecords(ctx, make([]byte, 64*7), 7, blake3.MerkleMerge{}, merkle.Options{})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error { // an error path
			_, err := merkle.Build(ctx, leaves[:4], nil, merkle.Options{Schedule: s})
			return err
		})
	})
}

// TestSumManyBufferLeaves: BLAKE3 leaves hashed from records already on
// the device (blake3.SumManyBuffer) into a buffer that Builder.BuildBuffers
// builds the tree from, nothing read back in between.
func TestSumManyBufferLeaves(t *testing.T) {
	const n, size = 256, 77
	records := make([]byte, n*size)
	for i := range records {
		records[i] = byte(i*7 + i>>9)
	}
	leaves, err := merkle.RecordLeaves(records, size, blake3.MerkleMerge{})
	require.NoError(t, err)
	want := reference(leaves, blake3.MerkleMerge{})
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		src, err := ctx.NewBuffer("records", uint64(len(records)+3)&^3)
		require.NoError(t, err)
		defer src.Release()
		leafBuf, err := ctx.NewBuffer("leaves", n*merkle.DigestSize)
		require.NoError(t, err)
		defer leafBuf.Release()
		nodeBuf, err := ctx.NewBuffer("nodes", n*merkle.DigestSize)
		require.NoError(t, err)
		defer nodeBuf.Release()
		require.NoError(t, ctx.Upload(src, 0, records))
		require.NoError(t, blake3.SumManyBuffer(ctx, leafBuf, src, n, size, blake3.Options{}))
		b, err := merkle.NewBuilder(ctx, blake3.MerkleMerge{}, merkle.Options{})
		require.NoError(t, err)
		defer b.Release()
		require.NoError(t, b.BuildBuffers(nodeBuf, leafBuf, n))
		got := make([][32]byte, n)
		require.NoError(t, ctx.Download(wgpu.Bytes(got[1:]), nodeBuf, merkle.DigestSize))
		require.Equal(t, want, got)
	})
}

// withSchedule returns o building mixed trees with s.
func withSchedule(o merkle.Options, s merkle.Schedule) merkle.Options {
	o.Schedule = s
	return o
}
