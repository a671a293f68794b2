package poseidon2

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
	"github.com/wgcompute/wgcompute/wgpu/sched"
)

// FuzzGPUMatches31 reads data as little-endian uint32 elements, reduced
// into BabyBear (pick even) or KoalaBear (odd), and holds the first GPU
// backend to the reference: the width-16 and width-24 permutations of as
// many whole states as fit, and the commitment of a matrix of 2 rows and
// cols (1 to 64) columns of them.
//
//	go test ./algos/poseidon2 -run '^$' -fuzz FuzzGPUMatches31 -fuzztime 1m
func FuzzGPUMatches31(f *testing.F) {
	ramp := make([]byte, 4*48)
	for i := range 48 {
		binary.LittleEndian.PutUint32(ramp[4*i:], uint32(i)*0x9e3779b9)
	}
	f.Add(ramp, uint8(0), uint8(7))
	f.Add(ramp, uint8(1), uint8(8))
	f.Add(ramp[:4*17], uint8(2), uint8(63))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint8(3), uint8(0))
	if len(gputest.Backends()) == 0 {
		f.Skip("no GPU backend")
	}
	ctx := gputest.Context(f, gputest.Backends()[0])
	f.Fuzz(func(t *testing.T, data []byte, pick, cols uint8) {
		h := merkle31[int(pick)%2]
		els := make([]uint32, len(data)/4)
		for i := range els {
			els[i] = binary.LittleEndian.Uint32(data[4*i:]) % h.Modulus()
		}
		for _, p := range []*Permutation31{h.Permutation(), perm31(t, h.FieldName()+"24")} {
			w := p.Width()
			states := append([]uint32(nil), els[:len(els)/w*w]...)
			want := append([]uint32(nil), states...)
			for i := 0; i < len(want); i += w {
				require.NoError(t, p.Permute(want[i:i+w]))
			}
			_, err := p.permuteMany31(ctx, states)
			require.NoError(t, err)
			require.Equal(t, want, states, p.Name())
		}
		c := int(cols%64) + 1
		if len(els) < 2*c {
			return
		}
		m := merkle.Matrix[uint32]{Rows: 2, Cols: c, Data: els[:2*c]}
		cpu, err := merkle.CommitMatrix(nil, m, h, merkle.Options{})
		require.NoError(t, err)
		gpu, err := merkle.CommitMatrix(ctx, m, h, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, cpu.Root(), gpu.Root(), "%s, 2 x %d", h.Name(), c)
	})
}

// TestMerkle31Group computes a BabyBear root split over several devices.
func TestMerkle31Group(t *testing.T) {
	leaves := randLeaves31(BabyBearMerkle, newRand(t), 2048)
	want, err := merkle.Build(nil, leaves, BabyBearMerkle, merkle.Options{})
	require.NoError(t, err)
	gputest.ForEachGroup(t, func(t *testing.T, g *sched.Group) {
		root, err := merkle.Root(g, leaves, BabyBearMerkle, merkle.Options{})
		require.NoError(t, err)
		require.Equal(t, want.Root(), root, "%d devices", len(g.Contexts()))
	})
}
