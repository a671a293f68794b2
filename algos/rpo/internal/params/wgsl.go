package params

import (
	"bytes"
	"fmt"

	"github.com/wgcompute/wgcompute/algos/internal/goldilocks"
)

// WGSL returns the text of algos/rpo/rpo_consts.wgsl: the round constants as
// literals in code (goldilocks.ArkFunc), so that no kernel indexes a
// constant array at run time.
func WGSL() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("%s\n\n", goldilocks.Generated("algos/rpo/internal/gen"))
	p("// RPO256 round constants (miden-crypto Rescue Prime Optimized,\n")
	p("// Goldilocks field), from package algos/rpo/internal/params. State\n")
	p("// layout: capacity s[0..4], rate s[4..12], digest s[4..8].\n\n")
	p("const RPO_ROUNDS: u32 = %du;\n\n", Rounds)
	p("// rpo_add_ark1 is s[i] += ARK1[r][i] for all i (mod p).\n")
	goldilocks.ArkFunc(&b, "rpo_add_ark1", ARK1[:])
	p("// rpo_add_ark2 is s[i] += ARK2[r][i] for all i (mod p).\n")
	goldilocks.ArkFunc(&b, "rpo_add_ark2", ARK2[:])
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Files maps each generated file, by its path from algos/rpo, to its text.
func Files() map[string][]byte {
	return map[string][]byte{"rpo_consts.wgsl": WGSL()}
}
