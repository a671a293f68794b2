package params

import (
	"bytes"
	"fmt"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// Header is the first line of the generated WGSL file.
var Header = goldilocks.Generated("algos/poseidon2/internal/gen")

// FileName is the generated file's name in algos/poseidon2.
const FileName = "poseidon2_consts.wgsl"

// WGSL returns the text of algos/poseidon2/poseidon2_consts.wgsl: the round constants
// as literals in switches over the round (so that no kernel indexes a
// constant array at run time, which naga spills to local memory) and the
// internal diagonal as one constant per element.
func WGSL() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("%s\n\n", Header)
	p("// Poseidon2 constants (Plonky3 p3-goldilocks, width 12), from package\n")
	p("// algos/poseidon2/internal/params. Included by poseidon2_lib.wgsl, after\n")
	p("// goldilocks.wgsl, whose goldilocks_add it uses.\n\n")
	p("const P2_WIDTH: u32 = %du;\n", Width)
	p("const P2_HALF_FULL_ROUNDS: u32 = %du;\n", HalfFullRounds)
	p("const P2_PARTIAL_ROUNDS: u32 = %du;\n\n", PartialRounds)

	p("// P2_D0 .. P2_D11 are the internal matrix's diagonal minus one\n")
	p("// (MATRIX_DIAG_12_GOLDILOCKS): -2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/4,\n")
	p("// -1/4, 1/8 as field elements.\n")
	for i, d := range DiagM1 {
		p("const P2_D%d = %s;\n", i, goldilocks.Vec2(d))
	}
	p("\n")

	p("// p2_add_rc_full is s[i] += RC[r][i] for all i (mod p): rounds 0..3 are\n")
	p("// the initial full rounds' constants, 4..7 the final ones'.\n")
	goldilocks.ArkFunc(&b, "p2_add_rc_full", append(ExternalInitial[:], ExternalFinal[:]...))
	p("// p2_rc_partial returns the constant of partial round r (0..21).\n")
	p("fn p2_rc_partial(r: u32) -> vec2<u32> {\n\tvar c: vec2<u32>;\n\tswitch r {\n")
	for r, c := range Internal {
		if r < len(Internal)-1 {
			p("\t\tcase %du: { c = %s; }\n", r, goldilocks.Vec2(c))
		} else {
			p("\t\tdefault: { c = %s; }\n", goldilocks.Vec2(c))
		}
	}
	p("\t}\n\treturn c;\n}\n")
	return b.Bytes()
}

// Files maps each generated file, by its path from algos/poseidon2, to
// its text.
func Files() map[string][]byte {
	return map[string][]byte{FileName: WGSL()}
}
