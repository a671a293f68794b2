package params31

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/wgcompute/wgcompute/algos/field"
)

// FileName returns the name of s's WGSL file, which modules name before
// the constructions over the permutation.
func FileName(s Set) string { return "poseidon2_31_" + s.Name + ".wgsl" }

// widthFile and internalFile name the generated files that instances
// share: the layers that depend on the width alone (the S-box on every
// element, the external linear layer), and the internal layer, which
// depends on the field and the width (gnark-crypto's instances take
// Plonky3's diagonals).
func widthFile(w int) string { return fmt.Sprintf("poseidon2_31_width%d.wgsl", w) }
func internalFile(field string, w int) string {
	return fmt.Sprintf("poseidon2_31_internal_%s%d.wgsl", field, w)
}

// CheckFiles returns an error where Files(s) would: s's own (Check), or
// a diagonal entry the generator cannot write. It generates nothing, so
// that an instance is checked when it is made and its files written when
// its first kernel is.
func CheckFiles(s Set) error {
	if err := s.Check(); err != nil {
		return err
	}
	for i := range s.DiagNum {
		if _, err := diagTerm(s, i); err != nil {
			return err
		}
	}
	return nil
}

// diagTerm returns the WGSL of (*s)[i] times entry i of s's diagonal, by
// additions and halvings, or an error for an entry the generator cannot
// write.
func diagTerm(s Set, i int) (string, error) {
	n, k := s.DiagNum[i], s.DiagShift[i]
	x := fmt.Sprintf("(*s)[%d]", i)
	if k > 0 {
		if n != 1 && n != -1 {
			return "", fmt.Errorf("params31: %s diagonal %d is %d/2^%d: the generator writes ±1/2^k and small integers", s.Name, i, n, k)
		}
		return fmt.Sprintf("monty31_div_2exp(%s, %du)", x, k), nil
	}
	switch abs(n) {
	case 1:
		return x, nil
	case 2:
		return fmt.Sprintf("monty31_add(%s, %s)", x, x), nil
	case 3:
		return fmt.Sprintf("monty31_add(monty31_add(%s, %s), %s)", x, x, x), nil
	case 4:
		return fmt.Sprintf("p31_quad(%s)", x), nil
	}
	return "", fmt.Errorf("params31: %s diagonal %d is %d: the generator writes ±1..4 and ±1/2^k", s.Name, i, n)
}

// FileKeys returns, for each of the files Files(s) returns, what
// determines its text: two rows whose files share a name share their
// text where their keys are equal, and would write one name with two
// texts where not.
func FileKeys(s Set) map[string]string {
	diag := sha256.New()
	for i, n := range s.DiagNum {
		binary.Write(diag, binary.LittleEndian, [2]uint64{uint64(n), uint64(s.DiagShift[i])}) // a hash.Hash's Write does not fail
	}
	row := sha256.New()
	for _, t := range []string{s.Name, s.Field, s.Source} {
		binary.Write(row, binary.LittleEndian, uint64(len(t)))
		row.Write([]byte(t))
	}
	binary.Write(row, binary.LittleEndian, [2]uint64{uint64(s.Width), uint64(s.Degree)})
	for _, rows := range [][][]uint32{s.ExternalInitial, s.ExternalFinal, {s.Internal}} {
		binary.Write(row, binary.LittleEndian, uint64(len(rows)))
		for _, r := range rows {
			binary.Write(row, binary.LittleEndian, uint64(len(r)))
			binary.Write(row, binary.LittleEndian, r)
		}
	}
	row.Write(diag.Sum(nil))
	return map[string]string{
		FileName(s):                    string(row.Sum(nil)),
		widthFile(s.Width):             "",
		internalFile(s.Field, s.Width): string(diag.Sum(nil)),
	}
}

// Files returns the WGSL files of s, generated from the row, by name: its
// own (its constants and round constants, FileName(s)), which includes
// poseidon2_31.wgsl and the other two: its width's layers and its
// internal layer. Package poseidon2 adds them to its library of
// generated files at run time (wgsl.Generated): no instance has a file in
// the tree. The
// round constants are literals in switches over the round and every
// index into the state a constant, as the kernels had them when these
// files were written by a generator at build time.
func Files(s Set) (map[string]string, error) {
	if err := CheckFiles(s); err != nil {
		return nil, err
	}
	in, err := internalWGSL(s)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		FileName(s):                    string(ownWGSL(s)),
		widthFile(s.Width):             string(widthWGSL(s.Width)),
		internalFile(s.Field, s.Width): string(in),
	}, nil
}

const generated = "// Generated at run time by package algos/poseidon2/internal/params31\n// from the instance's row: no file holds it.\n\n"

// stateType is the WGSL type of a pointer to a state of width w.
func stateType(w int) string { return fmt.Sprintf("ptr<function, array<u32, %d>>", w) }

// ownWGSL returns the text of s's generated file, s checked (CheckFiles):
// its constants, with the round constants as literals in switches over
// the round (no kernel indexes a constant array at run time, which naga
// spills to local memory), in Montgomery form, as the state is; it
// includes poseidon2_31.wgsl and the width's and internal layer's files.
func ownWGSL(s Set) []byte {
	f, _ := field.ParseField(s.Field) // checked
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w := s.Width
	p(generated)
	p("//!include poseidon2_31.wgsl\n")
	p("//!include %s\n", widthFile(w))
	p("//!include %s\n", internalFile(s.Field, w))
	src := fmt.Sprintf("Plonky3 default_%s_poseidon2_%d", s.Field, w)
	if s.Source != "" {
		src = s.Source
	}
	p("// The constants of Poseidon2 over %s of width %d (%s),\n", s.Field, w, src)
	p("// from package algos/poseidon2/internal/params31, for poseidon2_31.wgsl.\n")
	p("// Every constant is in Montgomery form.\n\n")
	p("const P31_HALF_FULL_ROUNDS: u32 = %du;\n", len(s.ExternalInitial))
	p("const P31_PARTIAL_ROUNDS: u32 = %du;\n", len(s.Internal))
	p("const P31_DEGREE: u32 = %du;\n\n", s.Degree)

	h := len(s.ExternalInitial)
	p("// p31_rc_full is s[i] += RC[r][i] for all i: rounds 0..%d are the initial\n", h-1)
	p("// full rounds' constants, %d..%d the final ones'.\n", h, 2*h-1)
	p("fn p31_rc_full(s: %s, r: u32) {\n\tswitch r {\n", stateType(w))
	rows := append(append([][]uint32(nil), s.ExternalInitial...), s.ExternalFinal...)
	for r, row := range rows {
		if r < len(rows)-1 {
			p("\t\tcase %du: {\n", r)
		} else {
			p("\t\tdefault: {\n")
		}
		for i, c := range row {
			p("\t\t\t(*s)[%d] = monty31_add((*s)[%d], 0x%08xu);\n", i, i, f.ToMonty(c))
		}
		p("\t\t}\n")
	}
	p("\t}\n}\n\n")

	p("// p31_rc_partial returns partial round r's constant.\n")
	p("fn p31_rc_partial(r: u32) -> u32 {\n\tswitch r {\n")
	for r, c := range s.Internal {
		if r < len(s.Internal)-1 {
			p("\t\tcase %du: { return 0x%08xu; }\n", r, f.ToMonty(c))
		} else {
			p("\t\tdefault: { return 0x%08xu; }\n", f.ToMonty(c))
		}
	}
	p("\t}\n}\n")
	return b.Bytes()
}

// widthWGSL returns the layers of width w, unrolled so that every index
// into the state is a constant: PERM_WIDTH, the S-box on every element,
// the external linear layer and the sum the internal layer adds.
func widthWGSL(w int) []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	st := stateType(w)
	p(generated)
	p("// The layers of Poseidon2 over a 31-bit field that depend on the width\n")
	p("// alone (%d), from package algos/poseidon2/internal/params31, for\n", w)
	p("// poseidon2_31.wgsl: every instance of this width includes this file.\n\n")
	p("const PERM_WIDTH: u32 = %du;\n\n", w)
	p("// p31_sbox_all is s[i] = s[i]^D for all i.\n")
	p("fn p31_sbox_all(s: %s) {\n", st)
	for i := range w {
		p("\t(*s)[%d] = p31_sbox((*s)[%d]);\n", i, i)
	}
	p("}\n\n")

	p("// p31_mds_light is s = M_E*s: MDSMat4 on each block of four, then every\n")
	p("// element plus the sum of the blocks' elements at its place.\n")
	p("fn p31_mds_light(s: %s) {\n", st)
	for k := 0; k < w/4; k++ {
		p("\tlet b%d = p31_mat4((*s)[%d], (*s)[%d], (*s)[%d], (*s)[%d]);\n", k, 4*k, 4*k+1, 4*k+2, 4*k+3)
	}
	for j := range 4 {
		p("\tvar u%d = b0[%d];\n", j, j)
		for k := 1; k < w/4; k++ {
			p("\tu%d = monty31_add(u%d, b%d[%d]);\n", j, j, k, j)
		}
	}
	for i := range w {
		p("\t(*s)[%d] = monty31_add(b%d[%d], u%d);\n", i, i/4, i%4, i%4)
	}
	p("}\n\n")

	// A tree of sums rather than a chain: the partial rounds wait on it,
	// and its depth is log2(w) sums instead of w-1.
	p("// p31_sum returns the sum of the state's elements, as a tree of\n")
	p("// pairwise sums (its depth bounds the partial rounds' latency).\n")
	p("fn p31_sum(s: %s) -> u32 {\n", st)
	terms := make([]string, w)
	for i := range w {
		terms[i] = fmt.Sprintf("(*s)[%d]", i)
	}
	for n := 0; len(terms) > 1; {
		var next []string
		for i := 0; i+1 < len(terms); i += 2 {
			v := fmt.Sprintf("t%d", n)
			n++
			p("\tlet %s = monty31_add(%s, %s);\n", v, terms[i], terms[i+1])
			next = append(next, v)
		}
		if len(terms)%2 == 1 {
			next = append(next, terms[len(terms)-1])
		}
		terms = next
	}
	p("\treturn %s;\n}\n", terms[0])
	return b.Bytes()
}

// internalWGSL returns s's internal layer, unrolled: the sum, and each
// element times its diagonal entry by additions and halvings.
func internalWGSL(s Set) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w := s.Width
	p(generated)
	p("// The internal layer of Poseidon2 over %s of width %d (Plonky3's\n", s.Field, w)
	p("// diagonal, which gnark-crypto's instances take too), from package\n")
	p("// algos/poseidon2/internal/params31, for poseidon2_31.wgsl.\n\n")
	p("// p31_internal is the internal layer s[i] = sum(s) + V[i]*s[i], V =\n// ")
	for i, n := range s.DiagNum {
		if s.DiagShift[i] == 0 {
			p("%d", n)
		} else {
			p("%d/2^%d", n, s.DiagShift[i])
		}
		if i < w-1 {
			p(", ")
		}
		if i%8 == 7 && i < w-1 {
			p("\n// ")
		}
	}
	p(":\n// small integers by additions, 1/2^k by monty31_div_2exp.\n")
	p("fn p31_internal(s: %s) {\n", stateType(w))
	p("\tlet sum = p31_sum(s);\n")
	for i, n := range s.DiagNum {
		term, err := diagTerm(s, i)
		if err != nil {
			return nil, err
		}
		op := "monty31_add"
		if n < 0 {
			op = "monty31_sub"
		}
		p("\t(*s)[%d] = %s(sum, %s);\n", i, op, term)
	}
	p("}\n")
	return b.Bytes(), nil
}

func abs(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}
