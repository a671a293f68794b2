package blake3

import (
	"encoding/hex"
	"encoding/json"
	zeebo "github.com/zeebo/blake3"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

type vectors struct {
	Key     string `json:"key"`
	Context string `json:"context_string"`
	Cases   []struct {
		InputLen  int    `json:"input_len"`
		Hash      string `json:"hash"`
		KeyedHash string `json:"keyed_hash"`
		DeriveKey string `json:"derive_key"`
	} `json:"cases"`
}

func loadVectors(t testing.TB) vectors {
	raw, err := os.ReadFile("../../testdata/blake3_test_vectors.json")
	require.NoError(t, err)
	var v vectors
	require.NoError(t, json.Unmarshal(raw, &v))
	require.NotEmpty(t, v.Cases)
	return v
}

// vectorInput is the official vectors' input: 0, 1, ..., 250, 0, 1, ...
func vectorInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func TestReferenceVectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		in := vectorInput(c.InputLen)
		for _, m := range []struct {
			name string
			h    *Hasher
			want string
		}{
			{"hash", New(), c.Hash},
			{"keyed_hash", must(NewKeyed([]byte(v.Key))), c.KeyedHash},
			{"derive_key", NewDeriveKey(v.Context), c.DeriveKey},
		} {
			m.h.Write(in)
			want, _ := hex.DecodeString(m.want)
			got := make([]byte, len(want))
			m.h.XOF(got)
			require.Equal(t, m.want, hex.EncodeToString(got), "%s len %d", m.name, c.InputLen)
			require.Equal(t, want[:32], m.h.Sum(nil), "%s len %d Sum", m.name, c.InputLen)
			if m.name == "hash" {
				d := Sum256(in)
				require.Equal(t, want[:32], d[:])
			}
		}
	}
}

func must(h *Hasher, err error) *Hasher {
	if err != nil {
		panic(err)
	}
	return h
}

func TestReferenceWriteSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 20000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for trial := 0; trial < 50; trial++ {
		n := rng.IntN(len(data))
		want := Sum256(data[:n])
		h := New()
		for pos := 0; pos < n; {
			step := min(rng.IntN(3000), n-pos)
			h.Write(data[pos : pos+step])
			pos += step
			if rng.IntN(4) == 0 {
				// Sum in the middle must not disturb the state.
				h.Sum(nil)
			}
		}
		require.Equal(t, want[:], h.Sum(nil), "n=%d", n)
		h.Reset()
		h.Write(data[:n])
		require.Equal(t, want[:], h.Sum([]byte{}), "after Reset")
	}
}

func TestReferenceBadInput(t *testing.T) {
	_, err := NewKeyed(make([]byte, 31))
	require.ErrorContains(t, err, "32-byte key, got 31")
	h := New()
	require.Equal(t, 32, h.Size())
	require.Equal(t, 64, h.BlockSize())
}

func TestMergeReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20; i++ {
		var l, r [32]byte
		for j := range l {
			l[j], r[j] = byte(rng.Uint32()), byte(rng.Uint32())
		}
		want := Sum256(append(l[:], r[:]...))
		require.Equal(t, want, Merge(l, r))
	}
}

// TestReferenceAgainstZeebo checks the reference against a well-kept
// independent Go implementation, in all three modes, on random lengths
// and extended-output lengths.
func TestReferenceAgainstZeebo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	key := data[:32]
	for trial := 0; trial < 60; trial++ {
		n := rng.IntN(len(data))
		if trial%3 == 0 {
			n = rng.IntN(5000)
		}
		outLen := 1 + rng.IntN(300)
		in := data[:n]
		ours := [3]*Hasher{New(), must(NewKeyed(key)), NewDeriveKey("zeebo ctx")}
		zk, err := zeebo.NewKeyed(key)
		require.NoError(t, err)
		theirs := [3]*zeebo.Hasher{zeebo.New(), zk, zeebo.NewDeriveKey("zeebo ctx")}
		for m := range ours {
			ours[m].Write(in)
			theirs[m].Write(in)
			got := make([]byte, outLen)
			ours[m].XOF(got)
			want := make([]byte, outLen)
			_, err := theirs[m].Digest().Read(want)
			require.NoError(t, err)
			require.Equal(t, want, got, "mode %d length %d out %d", m, n, outLen)
		}
	}
}
