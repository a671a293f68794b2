package merkle_test

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/wgcompute/wgcompute/internal/base/impl"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

var update = flag.Bool("update", false, "rewrite the golden proof files in testdata/")

// hashes are the hashes every test covers: the two of this repository and
// mix, a hash defined here alone.
var hashes = []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}, mixHash{}}

// mixHash is a cheap, order-sensitive merge that plugs into merkle from
// outside, as a new hash would: its WGSL is a module of this test. It
// tests the tree logic of every kernel at sizes where the real hashes
// would be slow on a CPU-emulated GPU.
type mixHash struct{}

func (mixHash) Name() string                 { return "mix" }
func (mixHash) CheckDigest(d [32]byte) error { return nil }

func (mixHash) Merge(a, b [32]byte) [32]byte {
	var out [32]byte
	for k := 0; k < 8; k++ {
		x := binary.LittleEndian.Uint32(a[4*k:])
		y := binary.LittleEndian.Uint32(b[4*((k+1)%8):])
		v := bits.RotateLeft32(x, 5) ^ (y*0x9e3779b9 + uint32(k))
		binary.LittleEndian.PutUint32(out[4*k:], v)
	}
	return out
}

func (mixHash) MergeModule() wgpu.Module { return textModule{"mix_test", mixWGSL} }

const mixWGSL = `
fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> {
	// Copies: naga indexes value arrays by constants only.
	var x = a;
	var y = b;
	var out: array<u32, 8>;
	for (var k = 0u; k < 8u; k++) {
		out[k] = ((x[k] << 5u) | (x[k] >> 27u)) ^ (y[(k + 1u) % 8u] * 0x9e3779b9u + k);
	}
	return out;
}
`

// textModule is a WGSL module given as text.
type textModule struct{ id, src string }

func (m textModule) ID() string              { return m.id }
func (m textModule) Source() (string, error) { return m.src, nil }

// randomLeaves returns n seeded random leaves the hash accepts.
func randomLeaves(hash merkle.Hash, n int, seed uint64) [][32]byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	leaves := make([][32]byte, n)
	for i := range leaves {
		for j := 0; j < 4; j++ {
			v := r.Uint64()
			if hash == (rescue.MerkleMerge{}) {
				v %= rescue.P
			}
			binary.LittleEndian.PutUint64(leaves[i][8*j:], v)
		}
	}
	return leaves
}

// reference is the tree's definition, one node at a time: the oracle of
// the CPU build (a nil target) and of the kernels.
func reference(leaves [][32]byte, hash merkle.Hash) [][32]byte {
	n := len(leaves)
	node := func(nodes [][32]byte, i int) [32]byte {
		if i >= n {
			return leaves[i-n]
		}
		return nodes[i]
	}
	nodes := make([][32]byte, n)
	for i := n - 1; i >= 1; i-- {
		nodes[i] = hash.Merge(node(nodes, 2*i), node(nodes, 2*i+1))
	}
	return nodes
}

// prefixNodes returns the nodes of the tree of the first n leaves of the
// tree whose nodes are ref: the subtree under ref's node N/n, whose level of
// width w is the first w nodes of ref's level of width w*N/n. One reference
// build thus serves every size.
func prefixNodes(ref [][32]byte, n int) [][32]byte {
	k := len(ref) / n
	out := make([][32]byte, n)
	for w := 1; w < n; w *= 2 {
		copy(out[w:2*w], ref[w*k:w*k+w])
	}
	return out
}

// requireNodes compares every node, naming the first that differs.
func requireNodes(t *testing.T, want [][32]byte, got *merkle.Tree, what string) {
	t.Helper()
	nodes := got.Nodes()
	require.Equal(t, len(want), len(nodes), what)
	for i := range want {
		if want[i] != nodes[i] {
			t.Fatalf("%s: node %d of %d is %x, want %x", what, i, len(want), nodes[i], want[i])
		}
	}
}

func TestPrefixNodes(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 64, 5)
	ref := reference(leaves, mixHash{})
	for n := 2; n <= 64; n *= 2 {
		require.Equal(t, reference(leaves[:n], mixHash{}), prefixNodes(ref, n), "n=%d", n)
	}
}

func TestCheckSize(t *testing.T) {
	for _, n := range []int{-4, 0} {
		err := merkle.CheckSize(n)
		require.ErrorContains(t, err, "at least 1 leaf", "n=%d", n)
		require.ErrorContains(t, err, strconv.Itoa(n)+" leaves")
	}
	for _, n := range []int{1, 2, 3, 6, 12, 1000, 1 << 30, 1<<30 + 1} {
		require.NoError(t, merkle.CheckSize(n))
	}
}

func TestApproachNames(t *testing.T) {
	for i, a := range merkle.Approaches {
		require.Equal(t, merkle.Approach(i+1), a)
		for _, s := range []string{a.String(), strconv.Itoa(i + 1)} {
			got, err := merkle.ParseApproach(s)
			require.NoError(t, err)
			require.Equal(t, a, got)
		}
	}
	for _, s := range []string{"", "0", "default"} {
		got, err := merkle.ParseApproach(s)
		require.NoError(t, err)
		require.Zero(t, got)
	}
	require.Equal(t, "default", merkle.Approach(0).String())
	require.Equal(t, "approach(7)", merkle.Approach(7).String())
	for _, s := range []string{"4", "-1", "Subtrees", "x"} {
		_, err := merkle.ParseApproach(s)
		require.ErrorContains(t, err, "accepted are 1 (level-per-dispatch", s)
	}
}

// TestVariantsRegistered: internal/base/impl lists the approaches in the order
// of their numbers, and each variant sets what it names.
func TestVariantsRegistered(t *testing.T) {
	names := []string{"default"}
	for _, a := range merkle.Approaches {
		names = append(names, a.String())
	}
	require.Equal(t, names, impl.List("merkle"))
	for i, name := range names {
		set, err := impl.Select[func(merkle.Options) merkle.Options]("merkle", name)
		require.NoError(t, err)
		require.Equal(t, merkle.Approach(i), set(merkle.Options{}.WithApproach(merkle.Subtrees)).Approach(), name)
	}
	require.Equal(t, []string{"one-pass", "pass-per-level"}, impl.List("merkle-passes"))
	per, err := impl.Select[func(merkle.Options) merkle.Options]("merkle-passes", "pass-per-level")
	require.NoError(t, err)
	require.True(t, per(merkle.Options{}).PassPerLevel())
	require.Equal(t, []string{"host", "device"}, impl.List("merkle-top"))
}

// TestTuning: the hashes' tuned defaults name approaches merkle knows, and
// apply (a misspelt name would fail every default build).
func TestTuning(t *testing.T) {
	for _, h := range []merkle.Tuning{blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		for n := 2; n <= 1<<30; n *= 2 {
			name := h.MerkleApproach(n)
			a, err := merkle.ParseApproach(name)
			require.NoError(t, err, "%T %d leaves", h, n)
			require.NotZero(t, a)
			require.Equal(t, name, a.String())
		}
	}
	require.Equal(t, "subtrees", blake3.MerkleMerge{}.MerkleApproach(1<<22))
	require.Equal(t, "level-per-dispatch", blake3.MerkleMerge{}.MerkleApproach(1<<23))
	require.Equal(t, 256, blake3.MerkleMerge{}.MerkleWorkgroupSize("subtrees"))
}

func TestBadInput(t *testing.T) {
	good := randomLeaves(mixHash{}, 8, 2)
	_, err := merkle.Build(nil, nil, blake3.MerkleMerge{}, merkle.Options{})
	require.ErrorContains(t, err, "0 leaves: a tree needs at least 1 leaf")
	_, err = merkle.Build(nil, nil, blake3.MerkleMerge{}, merkle.Options{})
	require.ErrorContains(t, err, "0 leaves: a tree needs at least 1 leaf")
	_, err = merkle.NewBuilder(nil, mixHash{}, merkle.Options{CapHeight: -1})
	require.ErrorContains(t, err, "CapHeight -1: accepted are 0")
	bad := randomLeaves(rescue.MerkleMerge{}, 16, 1)
	binary.LittleEndian.PutUint64(bad[11][16:], rescue.P)
	_, err = merkle.Build(nil, bad, rescue.MerkleMerge{}, merkle.Options{})
	require.ErrorContains(t, err, "leaf 11: element 2")
	require.ErrorContains(t, err, "below p")

	// No hash: an error, or false, never a panic.
	_, err = merkle.Build(nil, good, nil, merkle.Options{})
	require.ErrorContains(t, err, "no hash")
	_, err = merkle.Build(nil, good, nil, merkle.Options{})
	require.ErrorContains(t, err, "no hash")
	_, err = merkle.NewBuilder(nil, nil, merkle.Options{})
	require.ErrorContains(t, err, "no hash")
	tree, err := merkle.Build(nil, good, mixHash{}, merkle.Options{})
	require.NoError(t, err)
	p, err := tree.Proof(3)
	require.NoError(t, err)
	require.True(t, merkle.Verify(mixHash{}, p.Root, p.Leaves, p))
	require.False(t, merkle.Verify(nil, p.Root, p.Leaves, p))
	require.False(t, merkle.Verify(nil, p.Root, 8, p))

	// The CPU builder has no device buffers.
	b, err := merkle.NewBuilder(nil, mixHash{}, merkle.Options{})
	require.NoError(t, err)
	require.ErrorContains(t, b.BuildBuffers(nil, nil, 8), "need a Context")

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := merkle.Build(ctx, bad, rescue.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "leaf 11")
		for _, a := range []merkle.Approach{4, -1} {
			_, err = merkle.Build(ctx, good, mixHash{}, merkle.Options{}.WithApproach(a))
			require.ErrorContains(t, err, "accepted are 1")
		}
		for _, wg := range []int{48, 1, 512, -64} {
			_, err = merkle.Build(ctx, good, mixHash{}, merkle.Options{WorkgroupSize: wg})
			require.ErrorContains(t, err, "powers of two")
		}
		_, err = merkle.Build(ctx, good[:0], mixHash{}, merkle.Options{})
		require.ErrorContains(t, err, "0 leaves")
		for _, n := range []int{13, 16} { // built by parts, or capped
			_, err = merkle.Build(ctx, bad[:n], rescue.MerkleMerge{}, merkle.Options{CapHeight: 1})
			require.ErrorContains(t, err, "leaf 11")
		}
		_, err = merkle.Root(ctx, bad[:13], rescue.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "leaf 11")
		_, err = merkle.Build(ctx, good, nil, merkle.Options{})
		require.ErrorContains(t, err, "no hash")

		b, err := merkle.NewBuilder(ctx, mixHash{}, merkle.Options{})
		require.NoError(t, err)
		defer b.Release()
		buf, err := ctx.NewBuffer("small", 4*merkle.DigestSize)
		require.NoError(t, err)
		defer buf.Release()
		require.ErrorContains(t, b.BuildBuffers(buf, buf, 8), "buffers of 256 bytes")
		require.ErrorContains(t, b.BuildBuffers(buf, nil, 4), "buffers of 128 bytes")
		require.ErrorContains(t, b.BuildBuffers(buf, buf, 2*b.SubtreeLeaves()), "one subtree holds at most")
		require.ErrorContains(t, b.BuildBuffers(buf, buf, 3), "3 leaves")
	})
}

// variants are the GPU builds the equality tests cover: the default, then
// every approach, one of them with a pass per level.
var variants = append([]merkle.Options{{}, merkle.Options{}.WithApproach(merkle.LevelPerDispatch).WithPassPerLevel()}, func() []merkle.Options {
	var opts []merkle.Options
	for _, a := range merkle.Approaches {
		opts = append(opts, merkle.Options{}.WithApproach(a))
	}
	return opts
}()...)

// forEachBackend runs fn on the CPU (a nil Context), on every GPU backend,
// and on every GPU backend with small limits, where trees of more than
// 2048 leaves are built a subtree at a time.
func forEachBackend(t *testing.T, fn func(t *testing.T, ctx *wgpu.Context)) {
	t.Run("cpu", func(t *testing.T) { fn(t, nil) })
	gputest.ForEach(t, fn)
	gputest.ForEachSmall(t, fn)
}

// TestGPUMatchesCPU builds trees with every hash, on every backend, with
// every variant, and compares each node with the reference. Sizes: every
// power of two to 2^16 with the default variant (for BLAKE3 to 2^20),
// every variant at a few sizes, and for mix more sizes and workgroup sizes.
func TestGPUMatchesCPU(t *testing.T) {
	for _, hash := range hashes {
		t.Run(hash.Name(), func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			top := 1 << 16
			if hash == (blake3.MerkleMerge{}) {
				top = 1 << 20
			}
			all := randomLeaves(hash, top, seed)
			ref := reference(all, hash)
			forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
				check := func(n int, o merkle.Options, what string) {
					t.Helper()
					var tm wgpu.Timing
					o.Timing = &tm
					// Every level on the device: the kernels are what is
					// checked here, the host's top in TestHostWidth.
					o = o.WithDeviceTop()
					got, err := merkle.Build(ctx, all[:n], hash, o)
					require.NoError(t, err, what)
					requireNodes(t, prefixNodes(ref, n), got, what)
					require.Equal(t, ctx != nil && ctx.Info().Timestamps, tm.Measured, what)
					require.NotZero(t, tm.Elapsed(), what)
				}
				for n := 2; n <= top; n *= 2 {
					check(n, merkle.Options{}, fmt.Sprintf("n=%d", n))
				}
				if ctx == nil {
					return
				}
				for _, n := range []int{2, 512, 1 << 12} {
					for _, o := range variants {
						check(n, o, fmt.Sprintf("n=%d %s passes=%v", n, o.Approach(), o.PassPerLevel()))
					}
				}
				if hash != (mixHash{}) {
					return
				}
				for _, n := range []int{4, 64, 1 << 10, 1 << 13, 1 << 16} {
					for _, a := range merkle.Approaches {
						for _, wg := range []int{2, 16, 64, 256} {
							if wg == 256 && ctx.Info().Backend == "gl" {
								continue // llvmpipe compiles it slowly; Vulkan covers it.
							}
							check(n, merkle.Options{WorkgroupSize: wg}.WithApproach(a), fmt.Sprintf("n=%d %s wg=%d", n, a, wg))
						}
					}
				}
			})
		})
	}
}

// TestRoot: the root alone equals the whole build's root for every hash,
// on every backend, for trees of one subtree and (under small limits) of
// many.
func TestRoot(t *testing.T) {
	for _, hash := range hashes {
		leaves := randomLeaves(hash, 1<<13, rand.Uint64())
		ref := reference(leaves, hash)
		forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
			for _, n := range []int{2, 64, 1 << 13} {
				root, err := merkle.Root(ctx, leaves[:n], hash, merkle.Options{})
				require.NoError(t, err)
				require.Equal(t, prefixNodes(ref, n)[1], root, "%s n=%d", hash.Name(), n)
			}
			_, err := merkle.Root(ctx, nil, hash, merkle.Options{})
			require.ErrorContains(t, err, "at least 1 leaf")
		})
	}
}

// TestDeepSplit: with storage bindings of 256 bytes a subtree holds 8
// leaves, so a tree of 2^10 leaves is 128 subtrees whose roots are 16
// subtrees whose roots are 2 subtrees: three levels of splitting.
func TestDeepSplit(t *testing.T) {
	leaves := randomLeaves(mixHash{}, 1<<10, 3)
	want := reference(leaves, mixHash{})
	for _, backend := range gputest.Backends() {
		t.Run(backend, func(t *testing.T) {
			ctx := gputest.Limited(t, backend, wgpu.Limits{MaxStorageBindingSize: 256})
			for _, o := range variants {
				b, err := merkle.NewBuilder(ctx, mixHash{}, o)
				require.NoError(t, err)
				require.Equal(t, 8, b.SubtreeLeaves())
				for _, n := range []int{2, 8, 16, 64, 1 << 10} {
					got, err := b.Build(leaves[:n])
					require.NoError(t, err)
					requireNodes(t, prefixNodes(want, n), got, fmt.Sprintf("n=%d %s", n, o.Approach()))
					root, err := b.Root(leaves[:n])
					require.NoError(t, err)
					require.Equal(t, got.Root(), root, "root only, n=%d %s", n, o.Approach())
				}
				b.Release()
			}
		})
	}
}

// TestBuilder: one Builder builds trees of growing and shrinking sizes,
// and builds from device buffers.
func TestBuilder(t *testing.T) {
	hash := blake3.MerkleMerge{}
	leaves := randomLeaves(hash, 1<<12, 8)
	want := reference(leaves, hash)
	forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
		var tm wgpu.Timing
		b, err := merkle.NewBuilder(ctx, hash, merkle.Options{Timing: &tm})
		require.NoError(t, err)
		defer b.Release()
		for _, n := range []int{16, 1 << 12, 2, 1 << 10, 1 << 12} {
			tm = wgpu.Timing{}
			got, err := b.Build(leaves[:n])
			require.NoError(t, err)
			requireNodes(t, prefixNodes(want, n), got, fmt.Sprintf("n=%d", n))
			require.NotZero(t, tm.Elapsed())
		}
		// BuildInto reuses a tree's node memory when it is large enough,
		// and gives the same nodes as a fresh build; node 0 stays zero.
		var into *merkle.Tree
		for _, n := range []int{1 << 12, 1 << 10, 4, 1 << 12} {
			prev := into
			if into != nil {
				for i := range into.Nodes() {
					into.Nodes()[i] = [32]byte{0xEE}
				}
			}
			got, err := b.BuildInto(into, leaves[:n])
			require.NoError(t, err)
			requireNodes(t, prefixNodes(want, n), got, fmt.Sprintf("into, n=%d", n))
			if prev != nil {
				require.Same(t, prev, got)
			}
			into = got
		}
		if ctx == nil {
			return
		}
		n := min(1<<10, b.SubtreeLeaves())
		leafBuf, err := ctx.NewBuffer("leaves", uint64(n*merkle.DigestSize))
		require.NoError(t, err)
		defer leafBuf.Release()
		nodeBuf, err := ctx.NewBuffer("nodes", uint64(n*merkle.DigestSize))
		require.NoError(t, err)
		defer nodeBuf.Release()
		require.NoError(t, ctx.Upload(leafBuf, 0, wgpu.Bytes(leaves[:n])))
		for r := 0; r < 3; r++ {
			tm = wgpu.Timing{}
			require.NoError(t, b.BuildBuffers(nodeBuf, leafBuf, n))
			require.NotZero(t, tm.Elapsed())
			got := make([][32]byte, n)
			require.NoError(t, ctx.Download(wgpu.Bytes(got[1:]), nodeBuf, merkle.DigestSize))
			require.Equal(t, prefixNodes(want, n), got)
		}
	})
}

// rp64 reads the vectors of testdata/rp64_256.json with function fn, each
// list of decimal elements as digests.
func rp64(t *testing.T, fn string) [][3][][32]byte {
	raw, err := os.ReadFile("../../testdata/rp64_256.json")
	require.NoError(t, err)
	var file struct {
		Vectors []struct {
			Fn     string   `json:"fn"`
			Input  []string `json:"input"`
			Output []string `json:"output"`
			Root   []string `json:"root"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	digests := func(s []string) [][32]byte {
		out := make([][32]byte, len(s)/4)
		for i := range out {
			for j := 0; j < 4; j++ {
				v, err := strconv.ParseUint(s[4*i+j], 10, 64)
				require.NoError(t, err)
				binary.LittleEndian.PutUint64(out[i][8*j:], v)
			}
		}
		return out
	}
	var vs [][3][][32]byte
	for _, v := range file.Vectors {
		if v.Fn == fn {
			vs = append(vs, [3][][32]byte{digests(v.Input), digests(v.Output), digests(v.Root)})
		}
	}
	require.NotEmpty(t, vs, "no %s vector in rp64_256.json", fn)
	return vs
}

func TestMerklizeVector(t *testing.T) {
	for _, v := range rp64(t, "merklize") {
		leaves, want, root := v[0], v[1], v[2][0]
		forEachBackend(t, func(t *testing.T, ctx *wgpu.Context) {
			for _, o := range variants {
				got, err := merkle.Build(ctx, leaves, rescue.MerkleMerge{}, o)
				require.NoError(t, err)
				require.Equal(t, want, got.Nodes(), "%s", o.Approach())
				require.Equal(t, root, got.Root())
			}
		})
	}
}

func TestHashMerges(t *testing.T) {
	// BLAKE3's merge is BLAKE3 of the 64 concatenated bytes.
	ab := randomLeaves(blake3.MerkleMerge{}, 2, 9)
	require.Equal(t, blake3.Sum256(append(ab[0][:], ab[1][:]...)), blake3.MerkleMerge{}.Merge(ab[0], ab[1]))
	// Rescue's merge reads digests as 4 little-endian elements.
	for _, v := range rp64(t, "merge") {
		require.Equal(t, v[1][0], rescue.MerkleMerge{}.Merge(v[0][0], v[0][1]))
	}
}

func TestProofs(t *testing.T) {
	for _, hash := range hashes {
		for _, n := range []int{2, 4, 64, 1024} {
			tree, err := merkle.Build(nil, randomLeaves(hash, n, 3), hash, merkle.Options{})
			require.NoError(t, err)
			for _, i := range []int{0, 1, n/2 - 1, n / 2, n - 1} {
				p, err := tree.Proof(i)
				require.NoError(t, err)
				require.Len(t, p.Path, bits.Len(uint(n))-1)
				require.Equal(t, n, p.Leaves)
				require.True(t, merkle.Verify(hash, p.Root, p.Leaves, p), "%s n=%d i=%d", hash.Name(), n, i)
				require.True(t, merkle.Verify(hash, tree.Root(), n, p))
				tamperFails(t, hash, p)
			}
			_, err = tree.Proof(n)
			require.ErrorContains(t, err, "leaves 0..")
			_, err = tree.Proof(-1)
			require.Error(t, err)
		}
	}
}

// tamperFails flips one byte at a time, in turn in the leaf, the root and
// every path entry, and changes the index and the size; each must fail
// verification.
func tamperFails(t *testing.T, hash merkle.Hash, p merkle.Proof) {
	t.Helper()
	for b := 0; b < merkle.DigestSize; b += 7 {
		q := p
		q.Leaf[b] ^= 0x01
		require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "tampered leaf byte %d verified", b)
		q = p
		q.Root[b] ^= 0x80
		require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "tampered root byte %d verified", b)
		for k := range p.Path {
			q = p
			q.Path = append([][32]byte(nil), p.Path...)
			q.Path[k][b] ^= 0x10
			require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "tampered path[%d] byte %d verified", k, b)
		}
	}
	for _, d := range []int{p.Index ^ 1, p.Leaves, -1} {
		q := p
		q.Index = d
		require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "index %d verified as %d", p.Index, q.Index)
	}
	for _, n := range []int{p.Leaves / 2, p.Leaves * 2, p.Leaves + 1, 0} {
		q := p
		q.Leaves = n
		require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q), "%d leaves verified as %d", p.Leaves, n)
	}
	q := p
	q.Path = p.Path[:len(p.Path)-1]
	require.False(t, merkle.Verify(hash, q.Root, q.Leaves, q))
	// The root and size a verifier trusts must be the proof's.
	require.False(t, merkle.Verify(hash, p.Root, 2*p.Leaves, p))
	other := p.Root
	other[0] ^= 1
	require.False(t, merkle.Verify(hash, other, p.Leaves, p))
}

// TestInteriorNodeAsLeaf is issue 14's case: node 2 of an 8-leaf tree,
// presented as leaf 0 with the path [node 3], hashes to the root. It is a
// proof for a 2-leaf tree, not for the 8-leaf tree.
func TestInteriorNodeAsLeaf(t *testing.T) {
	for _, hash := range hashes {
		tree, err := merkle.Build(nil, randomLeaves(hash, 8, 14), hash, merkle.Options{})
		require.NoError(t, err)
		nodes := tree.Nodes()
		require.Equal(t, tree.Root(), hash.Merge(nodes[2], nodes[3]))
		p := merkle.Proof{Index: 0, Leaves: 8, Leaf: nodes[2], Path: [][32]byte{nodes[3]}, Root: tree.Root()}
		require.False(t, merkle.Verify(hash, p.Root, p.Leaves, p), "%s: node 2 verified as leaf 0 of 8", hash.Name())
		require.False(t, merkle.Verify(hash, tree.Root(), 8, p))
		// Stating the size it fits makes the proof consistent, and a
		// verifier that knows the size is 8 still rejects it.
		p.Leaves = 2
		require.True(t, merkle.Verify(hash, p.Root, p.Leaves, p))
		require.False(t, merkle.Verify(hash, tree.Root(), 8, p), "%s: node 2 verified as leaf 0 of 8", hash.Name())
		// Without "leaves" in its JSON, a proof does not parse.
		var q merkle.Proof
		b, err := json.Marshal(p)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		delete(m, "leaves")
		b, err = json.Marshal(m)
		require.NoError(t, err)
		require.ErrorContains(t, json.Unmarshal(b, &q), `no "leaves"`)
	}
}

func TestGoldenProofs(t *testing.T) {
	for _, hash := range []merkle.Hash{blake3.MerkleMerge{}, rescue.MerkleMerge{}} {
		t.Run(hash.Name(), func(t *testing.T) {
			tree, err := merkle.Build(nil, randomLeaves(hash, 64, 42), hash, merkle.Options{})
			require.NoError(t, err)
			p, err := tree.Proof(37)
			require.NoError(t, err)
			got, err := json.MarshalIndent(p, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", "proof_"+hash.Name()+".json")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to write it")
			require.Equal(t, string(want), string(got))

			var back merkle.Proof
			require.NoError(t, json.Unmarshal(want, &back))
			require.Equal(t, p, back)
			require.True(t, merkle.Verify(hash, back.Root, back.Leaves, back))
			// A one-byte tamper of the file's text breaks verification.
			for _, field := range []string{"leaf", "root", "path"} {
				var m map[string]any
				require.NoError(t, json.Unmarshal(want, &m))
				var s string
				if field == "path" {
					s = m["path"].([]any)[2].(string)
				} else {
					s = m[field].(string)
				}
				c := "0"
				if s[10] == '0' {
					c = "1"
				}
				s = s[:10] + c + s[11:]
				if field == "path" {
					m["path"].([]any)[2] = s
				} else {
					m[field] = s
				}
				bad, err := json.Marshal(m)
				require.NoError(t, err)
				var tampered merkle.Proof
				require.NoError(t, json.Unmarshal(bad, &tampered))
				require.False(t, merkle.Verify(hash, tampered.Root, tampered.Leaves, tampered), "tampered %s verified", field)
			}
		})
	}
}

func TestProofJSONErrors(t *testing.T) {
	var p merkle.Proof
	require.ErrorContains(t, json.Unmarshal([]byte(`{"index":1,"leaves":2,"leaf":"zz","path":[],"root":""}`), &p), "digest of 2 characters: want 64 hex digits")
	require.ErrorContains(t, json.Unmarshal([]byte(`{"index":1,"leaves":2,"leaf":"`+fmt.Sprintf("%064d", 0)[:63]+`z","path":[],"root":""}`), &p), "want 64 hex digits")
	require.Error(t, json.Unmarshal([]byte(`[1]`), &p))
	_, err := merkle.ParseDigest("abc")
	require.ErrorContains(t, err, "merkle: digest of 3 characters")
}

func TestNoLeaks(t *testing.T) {
	small := func(t *testing.T, ctx *wgpu.Context) {
		for _, h := range hashes {
			for _, o := range variants {
				leaves := randomLeaves(h, 1<<12, 6) // two subtrees under small limits
				gputest.NoLeaks(t, ctx, func() error {
					_, err := merkle.Build(ctx, leaves, h, o)
					return err
				})
			}
		}
		gputest.NoLeaks(t, ctx, func() error { // a non-canonical Rescue leaf
			leaves := make([][32]byte, 8)
			for i := range leaves[3] {
				leaves[3][i] = 0xff
			}
			_, err := merkle.Build(ctx, leaves, rescue.MerkleMerge{}, merkle.Options{})
			return err
		})
		gputest.NoLeaks(t, ctx, func() error { // a Builder reused, then released
			b, err := merkle.NewBuilder(ctx, mixHash{}, merkle.Options{})
			if err != nil {
				return err
			}
			defer b.Release()
			for _, n := range []int{2, 1 << 12, 64} {
				if _, err := b.Build(randomLeaves(mixHash{}, n, 1)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	gputest.ForEach(t, small)
	gputest.ForEachSmall(t, small)
}

// TestGroupSplits builds trees over Groups of 2, 3 and 7 devices
// (different limits among the members) and compares every node and the
// root with the reference.
func TestGroupSplits(t *testing.T) {
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		for _, hash := range hashes {
			for _, n := range []int{2, 8, 1 << 10, 1 << 13} {
				if n > 1<<10 && hash.Name() == "rescue" {
					continue // the software adapters' Rescue is slow; mix covers the splits
				}
				leaves := randomLeaves(hash, n, uint64(n))
				want := reference(leaves, hash)
				var tm wgpu.Timing
				tree, err := merkle.Build(g, leaves, hash, merkle.Options{Timing: &tm})
				require.NoError(t, err)
				requireNodes(t, want, tree, fmt.Sprintf("%s n=%d", hash.Name(), n))
				require.NotZero(t, tm.Wall)
				root, err := merkle.Root(g, leaves, hash, merkle.Options{})
				require.NoError(t, err)
				require.Equal(t, want[1], root, "%s n=%d", hash.Name(), n)
			}
		}
		_, err := merkle.Root(g, nil, blake3.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "at least 1 leaf")
		_, err = merkle.Build(g, make([][32]byte, 4), blake3.MerkleMerge{}, merkle.Options{CapHeight: 1})
		require.ErrorContains(t, err, "a capped tree is built on one device")
		bad := randomLeaves(rescue.MerkleMerge{}, 16, 3)
		bad[11] = [32]byte{0: 1, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff}
		_, err = merkle.Build(g, bad, rescue.MerkleMerge{}, merkle.Options{})
		require.ErrorContains(t, err, "leaf 11")
		for _, c := range g.Contexts() {
			require.Zero(t, c.LiveBuffers())
		}
	})
	// A nil *Group is the CPU.
	var none *sched.Group
	leaves := randomLeaves(blake3.MerkleMerge{}, 5, 2)
	root, err := merkle.Root(none, leaves, blake3.MerkleMerge{}, merkle.Options{})
	require.NoError(t, err)
	require.Equal(t, refNodes(refLevels(leaves, blake3.MerkleMerge{}))[1], root)
}

// countingHash is mix, counting the digests it checks.
type countingHash struct {
	mixHash
	checks *atomic.Int64
}

func (h countingHash) CheckDigest([32]byte) error { h.checks.Add(1); return nil }

// TestGroupCPUMembers builds over Groups with CPU members (nil), beside a
// GPU or alone: the nodes and the root equal the reference's, and the
// leaves are checked once, by the whole tree's check, not again by the
// member that builds a range.
func TestGroupCPUMembers(t *testing.T) {
	const n = 1 << 10
	leaves := randomLeaves(mixHash{}, n, 7)
	want := reference(leaves, mixHash{})
	groups := map[string][]*wgpu.Context{"cpu+cpu": {nil, nil}}
	for _, b := range gputest.Backends() {
		groups[b+"+cpu"] = []*wgpu.Context{gputest.Context(t, b), nil}
	}
	for name, members := range groups {
		g, err := sched.NewGroup(members...)
		require.NoError(t, err)
		g = g.SplitAll()
		var checks atomic.Int64
		hash := countingHash{checks: &checks}
		tree, err := merkle.Build(g, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		requireNodes(t, want, tree, name)
		// n leaves, and the few range roots the top levels are built from.
		require.Less(t, checks.Load(), int64(n+n/8), "%s: digests checked", name)
		root, err := merkle.Root(g, leaves, hash, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want[1], root, name)
	}
}

// TestGroupTimingIdleMember builds trees of fewer ranges than the Group
// has members: the timing is measured whenever one device's is, a member
// that took no range aside.
func TestGroupTimingIdleMember(t *testing.T) {
	for _, b := range gputest.Backends() {
		ctx := gputest.Context(t, b)
		g, err := sched.NewGroup(ctx, ctx, ctx)
		require.NoError(t, err)
		g = g.SplitAll()
		leaves := randomLeaves(mixHash{}, 4, 1) // two ranges over three members
		var one, tm wgpu.Timing
		_, err = merkle.Build(ctx, leaves, mixHash{}, merkle.Options{Timing: &one})
		require.NoError(t, err)
		_, err = merkle.Build(g, leaves, mixHash{}, merkle.Options{Timing: &tm})
		require.NoError(t, err)
		require.Equal(t, one.Measured, tm.Measured, b)
		_, err = merkle.Root(g, leaves, mixHash{}, merkle.Options{Timing: &tm})
		require.NoError(t, err)
		require.Equal(t, one.Measured, tm.Measured, b)
	}
}

// TestGroupSmallTreeOnOneDevice builds a tree too small to pay for a
// second device on a Group whose second member is closed: the tree is
// built on the first alone (Group.Fit), and equals Root's; the same Group
// told to split everything fails on the closed member, so the first
// result was no accident.
func TestGroupSmallTreeOnOneDevice(t *testing.T) {
	for _, b := range gputest.Backends() {
		closed, err := wgpu.Open(gputest.Options(t, b))
		require.NoError(t, err)
		require.NoError(t, closed.Close())
		g, err := sched.NewGroup(gputest.Context(t, b), closed)
		require.NoError(t, err)
		leaves := randomLeaves(mixHash{}, 1<<10, 3)
		want, err := merkle.Root(nil, leaves, mixHash{}, merkle.Options{})
		require.NoError(t, err)
		root, err := merkle.Root(g, leaves, mixHash{}, merkle.Options{})
		require.NoError(t, err, b)
		require.Equal(t, want, root, b)
		tree, err := merkle.Build(g, leaves, mixHash{}, merkle.Options{})
		require.NoError(t, err, b)
		require.Equal(t, want, tree.Root(), b)
		_, err = merkle.Root(g.SplitAll(), leaves, mixHash{}, merkle.Options{})
		require.Error(t, err, "%s: a closed member built a range", b)
	}
}
