// merge_node for Merkle trees over a 31-bit field: Plonky3's
// TruncatedPermutation<perm, 2, 8, PERM_WIDTH> over whichever permutation
// the module names before this file (perm_permute on a state in
// Montgomery form, a poseidon2_31_*.wgsl file). A digest is 8 canonical
// elements, one word each.
//
// Plain-Go meaning: symmetric.TruncatedPermutation{Perm, N: 2, Chunk:
// 8}.Compress(a, b): s = a || b || zeros, one permutation, s[0..8].
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
	return array<u32, 8>(monty31_leave(s[0]), monty31_leave(s[1]), monty31_leave(s[2]), monty31_leave(s[3]),
		monty31_leave(s[4]), monty31_leave(s[5]), monty31_leave(s[6]), monty31_leave(s[7]));
}
