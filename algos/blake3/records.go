package blake3

import (
	"github.com/wgcompute/wgcompute/wgpu"
	"github.com/wgcompute/wgcompute/wgsl"
)

// HashRecord returns Sum256(record): the leaf of a record in package
// merkle's trees over byte records (a merkle.RecordHash, CommitRecords).
func (MerkleMerge) HashRecord(record []byte) [32]byte { return Sum256(record) }

// RecordModule returns merkle_blake3_record.wgsl, which defines
// hash_record with blake3_many_lib.wgsl's b3_hash_input: the BLAKE3 hash
// of one record in one invocation, as SumMany hashes each input.
func (MerkleMerge) RecordModule() wgpu.Module {
	return wgsl.Module{Library: shaders, Files: []string{"merkle_blake3_record.wgsl"}}
}
