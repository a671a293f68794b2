// merge_node for Merkle trees over a 31-bit field: one of the two
// compressions of two digests over whichever permutation the module names
// before this file (perm_permute on a state in Montgomery form, an
// instance's poseidon2_31_*.wgsl file), as the prelude's C31_FEED_FORWARD
// chooses. A digest is 8 canonical elements, one word each.
//
// Plain-Go meaning: s = a || b || zeros, one permutation, then
//   C31_FEED_FORWARD false: s[0..8], Plonky3's TruncatedPermutation<perm,
//     2, 8, PERM_WIDTH> (symmetric.TruncatedPermutation{Perm, N: 2,
//     Chunk: 8}.Compress(a, b));
//   C31_FEED_FORWARD true: out[i] = b[i] + s[8+i], the second half fed
//     forward with the second input, as gnark-crypto merges two digests
//     (poseidon2.Permutation.Compress, vortex.CompressPoseidon2;
//     symmetric.FeedForwardCompression{Perm, Chunk: 8}.Compress(a, b)).
fn merge_node(a: array<u32, 8>, b: array<u32, 8>) -> array<u32, 8> {
	var s: array<u32, PERM_WIDTH>;
	s[0] = monty31_enter(a[0]);
	s[1] = monty31_enter(a[1]);
	s[2] = monty31_enter(a[2]);
	s[3] = monty31_enter(a[3]);
	s[4] = monty31_enter(a[4]);
	s[5] = monty31_enter(a[5]);
	s[6] = monty31_enter(a[6]);
	s[7] = monty31_enter(a[7]);
	s[8] = monty31_enter(b[0]);
	s[9] = monty31_enter(b[1]);
	s[10] = monty31_enter(b[2]);
	s[11] = monty31_enter(b[3]);
	s[12] = monty31_enter(b[4]);
	s[13] = monty31_enter(b[5]);
	s[14] = monty31_enter(b[6]);
	s[15] = monty31_enter(b[7]);
	perm_permute(&s);
	if (C31_FEED_FORWARD) {
		// A sum is the same in either form, so the canonical b is added to
		// the canonical output.
		return array<u32, 8>(monty31_add(monty31_leave(s[8]), b[0]), monty31_add(monty31_leave(s[9]), b[1]),
			monty31_add(monty31_leave(s[10]), b[2]), monty31_add(monty31_leave(s[11]), b[3]),
			monty31_add(monty31_leave(s[12]), b[4]), monty31_add(monty31_leave(s[13]), b[5]),
			monty31_add(monty31_leave(s[14]), b[6]), monty31_add(monty31_leave(s[15]), b[7]));
	}
	return array<u32, 8>(monty31_leave(s[0]), monty31_leave(s[1]), monty31_leave(s[2]), monty31_leave(s[3]),
		monty31_leave(s[4]), monty31_leave(s[5]), monty31_leave(s[6]), monty31_leave(s[7]));
}
