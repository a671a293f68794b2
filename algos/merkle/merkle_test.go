package merkle

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
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/blake3"
	"github.com/wgcompute/wgcompute/internal/gputest"
	"github.com/wgcompute/wgcompute/wgpu"
)

func TestMain(m *testing.M) { os.Exit(gputest.Main(m)) }

var update = flag.Bool("update", false, "rewrite the golden proof files in testdata/")

// mixHash is a cheap, order-sensitive merge that tests the tree logic of
// every kernel at sizes where the real hashes would be slow on a CPU-emulated
// GPU. The same arithmetic is written in Go and WGSL.
var mixHash = &Hash{
	name: "mix",
	merge: func(a, b *[32]byte) [32]byte {
		var out [32]byte
		for k := 0; k < 8; k++ {
			x := binary.LittleEndian.Uint32(a[4*k:])
			y := binary.LittleEndian.Uint32(b[4*((k+1)%8):])
			v := bits.RotateLeft32(x, 5) ^ (y*0x9e3779b9 + uint32(k))
			binary.LittleEndian.PutUint32(out[4*k:], v)
		}
		return out
	},
	source: `
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
`,
}

// randomLeaves returns n seeded random leaves the hash accepts.
func randomLeaves(hash *Hash, n int, seed uint64) [][32]byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	leaves := make([][32]byte, n)
	for i := range leaves {
		for j := 0; j < 4; j++ {
			v := r.Uint64()
			if hash == Rescue {
				v %= goldilocksP
			}
			binary.LittleEndian.PutUint64(leaves[i][8*j:], v)
		}
	}
	return leaves
}

// requireSameNodes compares every node, naming the first that differs.
func requireSameNodes(t *testing.T, want, got *Tree, what string) {
	t.Helper()
	require.Equal(t, len(want.nodes), len(got.nodes), what)
	for i := range want.nodes {
		if want.nodes[i] != got.nodes[i] {
			t.Fatalf("%s: node %d of %d is %x, want %x", what, i, len(want.nodes), got.nodes[i], want.nodes[i])
		}
	}
}

func TestCheckSize(t *testing.T) {
	for _, n := range []int{-4, 0, 1, 3, 6, 12, 1000} {
		err := CheckSize(n)
		require.ErrorContains(t, err, "power of two", "n=%d", n)
		require.ErrorContains(t, err, strconv.Itoa(n)+" leaves")
	}
	for n := 2; n <= 1<<30; n *= 2 {
		require.NoError(t, CheckSize(n))
	}
}

func TestChunkLeaves(t *testing.T) {
	for _, tc := range []struct {
		binding, buffer uint64
		limit, want     int
	}{
		{128 << 20, 2<<30 - 1, 0, 4 << 20},
		{2 << 30, 1 << 36, 0, 64 << 20},
		{2<<30 - 4, 1 << 36, 0, 32 << 20},
		{128 << 20, 64 << 20, 0, 2 << 20},
		{128 << 20, 2 << 30, 100, 64},
		{128 << 20, 2 << 30, 1, 2},
		{100, 100, 0, 2},
	} {
		got, err := chunkLeaves(wgpu.Limits{MaxStorageBindingSize: tc.binding, MaxBufferSize: tc.buffer}, tc.limit)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%+v", tc)
	}
	_, err := chunkLeaves(wgpu.Limits{MaxStorageBindingSize: 32, MaxBufferSize: 1 << 20}, 0)
	require.ErrorContains(t, err, "storage bindings hold 32 bytes")
}

func TestPlan(t *testing.T) {
	require.Equal(t, []int{1}, plan(2, 8))
	require.Equal(t, []int{8, 8, 4}, plan(1<<20, 8))
	require.Equal(t, []int{1, 1, 1}, plan(8, 1))
	require.Equal(t, []int{7}, plan(128, 7))
}

func TestBadInput(t *testing.T) {
	for _, n := range []int{0, 1, 3, 24} {
		_, err := BuildCPU(make([][32]byte, n), Blake3)
		require.ErrorContains(t, err, "a power of two of leaves, at least 2")
		_, err = Build(nil, make([][32]byte, n), Blake3, Options{})
		require.ErrorContains(t, err, "a power of two of leaves, at least 2")
	}
	leaves := randomLeaves(Rescue, 16, 1)
	binary.LittleEndian.PutUint64(leaves[11][16:], goldilocksP)
	_, err := BuildCPU(leaves, Rescue)
	require.ErrorContains(t, err, "leaf 11: element 2")
	require.ErrorContains(t, err, "below p")
	_, err = ParseHash("sha1")
	require.ErrorContains(t, err, "accepted are blake3, rescue")
	h, err := ParseHash("Rescue")
	require.NoError(t, err)
	require.Same(t, Rescue, h)
	_, err = Build(nil, leaves[:2], nil, Options{})
	require.ErrorContains(t, err, "no hash")

	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		_, err := Build(ctx, leaves, Rescue, Options{})
		require.ErrorContains(t, err, "leaf 11")
		good := randomLeaves(Blake3, 8, 2)
		_, err = Build(ctx, good, Blake3, Options{Approach: 4})
		require.ErrorContains(t, err, "accepted are 1")
		_, err = Build(ctx, good, Blake3, Options{WorkgroupSize: 48})
		require.ErrorContains(t, err, "powers of two")
		_, err = Build(ctx, good[:5], Blake3, Options{})
		require.ErrorContains(t, err, "5 leaves")
	})
}

// approaches are the build variants every GPU test covers.
var approaches = []Options{
	{Approach: LevelPerDispatch},
	{Approach: LevelPerDispatch, PassPerLevel: true},
	{Approach: WorkgroupLevels},
	{Approach: Subtrees},
}

func TestTreeLogicMix(t *testing.T) {
	// The cheap merge reaches sizes, workgroup shapes and subtree splits
	// that the real hashes cannot afford on a CPU-emulated GPU.
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		for _, n := range []int{2, 4, 8, 16, 32, 64, 128, 256, 512, 1 << 10, 1 << 13, 1 << 16} {
			leaves := randomLeaves(mixHash, n, 7)
			want, err := BuildCPU(leaves, mixHash)
			require.NoError(t, err)
			for _, o := range approaches {
				for _, wg := range []int{2, 64, 256} {
					if wg == 256 && ctx.Info().Backend == "gl" {
						continue // llvmpipe compiles it slowly; Vulkan covers it.
					}
					o := o
					o.WorkgroupSize = wg
					got, err := Build(ctx, leaves, mixHash, o)
					require.NoError(t, err)
					requireSameNodes(t, want, got, fmt.Sprintf("n=%d %+v", n, o))
				}
			}
			// Subtrees smaller than a binding: several levels of splitting.
			for _, chunk := range []int{2, 8, 64} {
				if chunk >= n || n > 1<<10 {
					continue
				}
				got, err := Build(ctx, leaves, mixHash, Options{MaxSubtreeLeaves: chunk})
				require.NoError(t, err)
				requireSameNodes(t, want, got, fmt.Sprintf("n=%d chunk=%d", n, chunk))
			}
		}
	})
}

// sweep is the sizes of TestGPUMatchesCPU: every power of two to 2^16, and
// for BLAKE3 also 2^18 and 2^20. Rescue stops at 2^16 here: on lavapipe
// and llvmpipe a Rescue merge costs about 30 times a BLAKE3 merge, and so
// does the plain-Go reference.
func sweep(hash *Hash) []int {
	var ns []int
	for n := 2; n <= 1<<16; n *= 2 {
		ns = append(ns, n)
	}
	if hash == Blake3 {
		ns = append(ns, 1<<18, 1<<20)
	}
	return ns
}

// prefixNodes returns the nodes of the tree of ref's first n leaves: the
// subtree under ref's node N/n, whose level of width w is the first w nodes
// of ref's level of width w*N/n. One reference build thus serves every size.
func prefixNodes(ref *Tree, n int) [][32]byte {
	k := len(ref.nodes) / n
	out := make([][32]byte, n)
	for w := 1; w < n; w *= 2 {
		copy(out[w:2*w], ref.nodes[w*k:w*k+w])
	}
	return out
}

func TestPrefixNodes(t *testing.T) {
	leaves := randomLeaves(Blake3, 64, 5)
	ref, err := BuildCPU(leaves, Blake3)
	require.NoError(t, err)
	for n := 2; n <= 64; n *= 2 {
		small, err := BuildCPU(leaves[:n], Blake3)
		require.NoError(t, err)
		require.Equal(t, small.nodes, prefixNodes(ref, n), "n=%d", n)
	}
}

func TestGPUMatchesCPU(t *testing.T) {
	for _, hash := range Hashes {
		t.Run(hash.name, func(t *testing.T) {
			seed := rand.Uint64()
			t.Logf("seed %d", seed)
			ns := sweep(hash)
			ref, err := BuildCPU(randomLeaves(hash, ns[len(ns)-1], seed), hash)
			require.NoError(t, err)
			want := func(n int) *Tree {
				return &Tree{hash: hash, leaves: ref.leaves[:n], nodes: prefixNodes(ref, n)}
			}
			gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
				for _, n := range ns {
					w := want(n)
					got, err := Build(ctx, w.leaves, hash, Options{})
					require.NoError(t, err)
					requireSameNodes(t, w, got, fmt.Sprintf("n=%d", n))
					if ctx.Info().Timestamps {
						_, measured := got.KernelTime()
						require.True(t, measured)
					}
				}
				// The other approaches, and a split build, at a few sizes.
				for _, n := range []int{2, 512, 1 << 12} {
					w := want(n)
					for _, o := range append(approaches, Options{MaxSubtreeLeaves: 64}) {
						got, err := Build(ctx, w.leaves, hash, o)
						require.NoError(t, err)
						requireSameNodes(t, w, got, fmt.Sprintf("n=%d %+v", n, o))
					}
				}
			})
		})
	}
}

func TestMerklizeVector(t *testing.T) {
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
			var e [4]uint64
			for j := range e {
				v, err := strconv.ParseUint(s[4*i+j], 10, 64)
				require.NoError(t, err)
				e[j] = v
			}
			out[i] = FromElements(e)
		}
		return out
	}
	found := 0
	for _, v := range file.Vectors {
		if v.Fn != "merklize" {
			continue
		}
		found++
		leaves, want, root := digests(v.Input), digests(v.Output), digests(v.Root)[0]
		cpu, err := BuildCPU(leaves, Rescue)
		require.NoError(t, err)
		require.Equal(t, want, cpu.Nodes())
		require.Equal(t, root, cpu.Root())
		gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
			for _, o := range approaches {
				got, err := Build(ctx, leaves, Rescue, o)
				require.NoError(t, err)
				require.Equal(t, want, got.Nodes(), "%+v", o)
			}
		})
	}
	require.NotZero(t, found, "no merklize vector in rp64_256.json")
}

func TestProofs(t *testing.T) {
	for _, hash := range Hashes {
		for _, n := range []int{2, 4, 64, 1024} {
			tree, err := BuildCPU(randomLeaves(hash, n, 3), hash)
			require.NoError(t, err)
			for _, i := range []int{0, 1, n/2 - 1, n / 2, n - 1} {
				p, err := tree.Proof(i)
				require.NoError(t, err)
				require.Len(t, p.Path, bits.Len(uint(n))-1)
				require.True(t, p.Verify(hash), "%s n=%d i=%d", hash, n, i)
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
// every path entry, and changes the index; each must fail verification.
func tamperFails(t *testing.T, hash *Hash, p Proof) {
	t.Helper()
	for b := 0; b < DigestSize; b += 7 {
		q := p
		q.Leaf[b] ^= 0x01
		require.False(t, q.Verify(hash), "tampered leaf byte %d verified", b)
		q = p
		q.Root[b] ^= 0x80
		require.False(t, q.Verify(hash), "tampered root byte %d verified", b)
		for k := range p.Path {
			q = p
			q.Path = append([][32]byte(nil), p.Path...)
			q.Path[k][b] ^= 0x10
			require.False(t, q.Verify(hash), "tampered path[%d] byte %d verified", k, b)
		}
	}
	q := p
	q.Index ^= 1
	require.False(t, q.Verify(hash), "index %d verified as %d", p.Index, q.Index)
	q.Index = 1 << len(p.Path)
	require.False(t, q.Verify(hash))
	q = p
	q.Path = p.Path[:len(p.Path)-1]
	require.False(t, q.Verify(hash))
}

func TestGoldenProofs(t *testing.T) {
	for _, hash := range Hashes {
		t.Run(hash.name, func(t *testing.T) {
			tree, err := BuildCPU(randomLeaves(hash, 64, 42), hash)
			require.NoError(t, err)
			p, err := tree.Proof(37)
			require.NoError(t, err)
			got, err := json.MarshalIndent(p, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", "proof_"+hash.name+".json")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to write it")
			require.Equal(t, string(want), string(got))

			var back Proof
			require.NoError(t, json.Unmarshal(want, &back))
			require.Equal(t, p, back)
			require.True(t, back.Verify(hash))
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
				var tampered Proof
				require.NoError(t, json.Unmarshal(bad, &tampered))
				require.False(t, tampered.Verify(hash), "tampered %s verified", field)
			}
		})
	}
}

func TestProofJSONErrors(t *testing.T) {
	var p Proof
	require.ErrorContains(t, json.Unmarshal([]byte(`{"index":1,"leaf":"zz","path":[],"root":""}`), &p), "64 hex digits")
	require.Error(t, json.Unmarshal([]byte(`[1]`), &p))
}

func TestHashMerges(t *testing.T) {
	// Blake3's merge is BLAKE3 of the 64 concatenated bytes.
	a, b := randomLeaves(Blake3, 2, 9)[0], randomLeaves(Blake3, 2, 9)[1]
	require.Equal(t, blake3.Sum256(append(a[:], b[:]...)), Blake3.Merge(a, b))
	// Rescue's merge reads digests as 4 little-endian elements.
	raw, err := os.ReadFile("../../testdata/rp64_256.json")
	require.NoError(t, err)
	var file struct {
		Vectors []struct {
			Fn     string   `json:"fn"`
			Input  []string `json:"input"`
			Output []string `json:"output"`
		} `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	found := 0
	for _, v := range file.Vectors {
		if v.Fn != "merge" {
			continue
		}
		found++
		var in [8]uint64
		var out [4]uint64
		for j := range in {
			in[j], err = strconv.ParseUint(v.Input[j], 10, 64)
			require.NoError(t, err)
		}
		for j := range out {
			out[j], err = strconv.ParseUint(v.Output[j], 10, 64)
			require.NoError(t, err)
		}
		l, r := FromElements([4]uint64(in[:4])), FromElements([4]uint64(in[4:]))
		require.Equal(t, FromElements(out), Rescue.Merge(l, r))
	}
	require.NotZero(t, found)
}

func TestKernelTimes(t *testing.T) {
	gputest.ForEach(t, func(t *testing.T, ctx *wgpu.Context) {
		leaves := randomLeaves(Blake3, 256, 4)
		ts, err := KernelTimes(ctx, leaves, Blake3, Options{}, 3)
		if !ctx.Info().Timestamps {
			require.ErrorContains(t, err, "no timestamp queries")
			return
		}
		require.NoError(t, err)
		require.Len(t, ts, 3)
		_, err = KernelTimes(ctx, leaves, Blake3, Options{MaxSubtreeLeaves: 64}, 1)
		require.ErrorContains(t, err, "exceed one subtree")
	})
}
