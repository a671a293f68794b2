package rescueprime

import (
	"bytes"
	"fmt"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// rowSum is the sum of MDSRow, the bound of an output limb's factor.
func rowSum() uint64 {
	var s uint64
	for _, c := range MDSRow {
		s += c
	}
	return s
}

// MDSWGSL returns the text of rescue_mds.wgsl: RP_WIDTH and the two
// MDS products both hashes' kernels use, unrolled with literal constants.
func MDSWGSL() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("%s\n\n", goldilocks.Generated("algos/internal/rescueprime/gen"))
	p("// The MDS products of Rp64_256 (winterfell) and RPO256 (miden-crypto),\n")
	p("// whose circulant matrices are the same, from package\n")
	p("// algos/internal/rescueprime. Included by rescue_round.wgsl, whose\n")
	p("// rp_fold_limbs rp_mds_small uses.\n\n")
	p("const RP_WIDTH: u32 = %du;\n\n", Width)

	p("// rp_mds_small is s = MDS*s with the circulant matrix's small constants\n")
	p("// (first row %v): every element is cut into four 16-bit limbs, each\n", MDSRow)
	p("// output limb sum is a u32 (row sum %d times 2^16 < 2^24), and one\n", rowSum())
	p("// 96-bit reduction per output replaces twelve 64-bit products.\n")
	p("fn rp_mds_small(s: ptr<function, array<vec2<u32>, 12>>) {\n")
	for j := 0; j < Width; j++ {
		p("\tlet v%d = (*s)[%d];\n", j, j)
		p("\tlet h%d = vec4<u32>(v%d.x & 0xffffu, v%d.x >> 16u, v%d.y & 0xffffu, v%d.y >> 16u);\n", j, j, j, j, j)
	}
	for i := 0; i < Width; i++ {
		p("\t(*s)[%d] = rp_fold_limbs(", i)
		for j := 0; j < Width; j++ {
			if j > 0 {
				p(" + ")
			}
			p("%du * h%d", MDSRow[(j-i+Width)%Width], j)
		}
		p(");\n")
	}
	p("}\n\n")

	p("// rp_mds_dense is s = MDS*s by twelve goldilocks_mul and eleven goldilocks_add per output\n")
	p("// (the plain matrix product, kept to measure rp_mds_small against).\n")
	p("fn rp_mds_dense(s: ptr<function, array<vec2<u32>, 12>>) {\n")
	for j := 0; j < Width; j++ {
		p("\tlet v%d = (*s)[%d];\n", j, j)
	}
	for i := 0; i < Width; i++ {
		p("\tvar a%d = goldilocks_mul(%s, v0);\n", i, goldilocks.Vec2(MDSRow[(Width-i)%Width]))
		for j := 1; j < Width; j++ {
			p("\ta%d = goldilocks_add(a%d, goldilocks_mul(%s, v%d));\n", i, i, goldilocks.Vec2(MDSRow[(j-i+Width)%Width]), j)
		}
		p("\t(*s)[%d] = a%d;\n", i, i)
	}
	p("}\n")
	return b.Bytes()
}

// Files maps each WGSL file this package generates, by its path from
// algos/internal/rescueprime, to its text.
func Files() map[string][]byte {
	return map[string][]byte{"rescue_mds.wgsl": MDSWGSL()}
}
