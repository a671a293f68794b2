//!include blake3_many_lib.wgsl
// hash_record for Merkle trees over BLAKE3 records (package merkle's
// records kernel, merkle_records.wgsl): the BLAKE3 hash of a record
// (blake3.Sum256 in Go), one invocation per record, reading the records
// through the kernel's mk_word.

fn b3_word(i: u32) -> u32 {
	return mk_word(i);
}

fn hash_record(start: u32, len: u32) -> array<u32, 8> {
	return b3_hash_input(start, len, B3_IV0, B3_IV1, 0u);
}
