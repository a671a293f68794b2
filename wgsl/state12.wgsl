// st12_rotate moves every element of a width-12 state one place down,
// s[0] to s[11]: the S-box loops of the Goldilocks permutations (Rescue's
// rescue_round.wgsl, Poseidon2's poseidon2_lib.wgsl) take s[0], rotate, and
// write s[11]. After twelve steps the order is back, every index is a
// constant (the state stays in registers), and the loop is not indexed by
// its counter, which Mesa's NIR would otherwise unroll into twelve copies
// of the S-box. Library only.
fn st12_rotate(s: ptr<function, array<vec2<u32>, 12>>) -> vec2<u32> {
	let x = (*s)[0];
	(*s)[0] = (*s)[1];
	(*s)[1] = (*s)[2];
	(*s)[2] = (*s)[3];
	(*s)[3] = (*s)[4];
	(*s)[4] = (*s)[5];
	(*s)[5] = (*s)[6];
	(*s)[6] = (*s)[7];
	(*s)[7] = (*s)[8];
	(*s)[8] = (*s)[9];
	(*s)[9] = (*s)[10];
	(*s)[10] = (*s)[11];
	return x;
}
