package merkle

import (
	"fmt"

	"github.com/wgcompute/wgcompute/internal/base/par"
	"github.com/wgcompute/wgcompute/wgpu"
)

// RecordHash hashes byte records of one length into leaves, in Go and in
// WGSL, and merges nodes as a Hash: blake3.MerkleMerge, whose leaf of a
// record is its BLAKE3 hash. Like Hash, it is satisfied without importing
// merkle.
type RecordHash interface {
	Hash
	// HashRecord returns the leaf of one record (any length, 0
	// included): the plain-Go oracle of the kernel.
	HashRecord(record []byte) [32]byte
	// RecordModule returns the WGSL module that defines
	//
	//	fn hash_record(start: u32, len: u32) -> array<u32, 8>
	//
	// the digest of the len bytes at byte offset start of the records,
	// as 8 little-endian words, reading the records' little-endian words
	// with
	//
	//	fn mk_word(i: u32) -> u32
	//
	// which the records kernel defines (bytes past the records read as
	// zeros, or as anything: the hash masks what it does not hash). Like
	// MergeModule, it brings its own includes and no bindings or entry
	// points, and its identifiers must not start with mk_ or MK_.
	RecordModule() wgpu.Module
}

// checkRecords returns an error unless records holds n records of size
// bytes, n at least 1.
func checkRecords(records []byte, size int) (int, error) {
	if size < 0 {
		return 0, fmt.Errorf("merkle: records of %d bytes: a record has 0 bytes or more", size)
	}
	if size == 0 {
		return 0, fmt.Errorf("merkle: records of 0 bytes: every leaf would be the same; give records of 1 byte or more")
	}
	if len(records)%size != 0 {
		return 0, fmt.Errorf("merkle: %d bytes of records of %d bytes: the bytes must be a whole number of records", len(records), size)
	}
	n := len(records) / size
	if n < 1 {
		return 0, fmt.Errorf("merkle: no records: a tree needs at least 1 record of the %d bytes given", size)
	}
	return n, nil
}

func recordLeavesCPU(leaves [][32]byte, records []byte, size int, hash RecordHash) {
	par.For(len(leaves), max(1, 64<<10/size), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			leaves[i] = hash.HashRecord(records[i*size : (i+1)*size])
		}
	})
}

// CommitRecords returns the tree whose leaf i is hash.HashRecord of
// record i, the size bytes at records[i*size:], merged with hash: on
// ctx's GPU, the records hashed straight into the leaf buffer the levels
// are built from (for BLAKE3, one invocation per record, every chunk and
// parent of it), or with a nil ctx on all CPU cores. size is at least 1,
// and the records any number from 1, as Build takes leaves. A Committer
// with a Schedule builds mixed trees over records (BLAKE3 leaves and low
// levels, Rescue above), of a power of two of records.
func CommitRecords(t wgpu.Target, records []byte, size int, hash RecordHash, opts Options) (*Tree, error) {
	return commitOnce(first(t), hash, opts, func(c *Committer) (*Tree, error) { return c.commitRecords(records, size, hash) })
}
