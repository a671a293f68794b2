package selftest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/algos/eigen"
	"github.com/wgcompute/wgcompute/algos/registry"
	"github.com/wgcompute/wgcompute/internal/base/impl"
)

// portabilityDoc is the page whose family table TestDocFamilyTable checks.
const portabilityDoc = "../../../docs/PORTABILITY.md"

// names returns the String of each of vs.
func names[V fmt.Stringer](vs []V) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// gpuVariants returns, per family, the variant names its runner reports on
// a GPU, from the lists the runners loop over: a variant added to a
// package shows up here without a change.
func gpuVariants() map[string][]string {
	var eig []string
	for _, v := range names(eigen.Variants) {
		eig = append(eig, v, v+"/explicit", v+"/explicit-unfused")
	}
	vs := map[string][]string{
		"blake3": append(impl.List("blake3"), "merge"), // MergeMany's one kernel
		"u64emu": {"wgsl"},
		"linea":  {"wgsl"},
		"merkle": merkleApproaches(),
		"eigen":  eig,
	}
	for _, h := range registry.Batched() {
		vs[h.Name] = impl.List(h.Name)
		if h.ElementBits() == 32 {
			for _, a := range merkleApproaches() {
				vs[h.Name] = append(vs[h.Name], "commit-"+a)
			}
		}
	}
	return vs
}

// list writes ns as "1, 2 and 3".
func list(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// familyTable returns the rows of the table under the "| family | cases |
// variants | compared |" header in doc: each row's cells, trimmed.
func familyTable(doc string) ([][]string, error) {
	var rows [][]string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "| family | cases | variants |") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no table under a \"| family | cases | variants | compared |\" header")
	}
	return rows, nil
}

// TestDocFamilyTable checks docs/PORTABILITY.md's self-test table against
// Families and the variants each family runs, so that the page cannot
// drift from the code: a family added, removed or reordered, or a variant
// added, renamed or removed, fails here until the table says the same.
func TestDocFamilyTable(t *testing.T) {
	b, err := os.ReadFile(portabilityDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := familyTable(string(b))
	if err != nil {
		t.Fatalf("docs/PORTABILITY.md: %v", err)
	}
	var docFams, fams []string
	for _, r := range rows {
		docFams = append(docFams, r[0])
	}
	for _, f := range Families() {
		fams = append(fams, f.Name)
	}
	if strings.Join(docFams, ",") != strings.Join(fams, ",") {
		t.Errorf("docs/PORTABILITY.md's self-test table lists the families %q; selftest runs %q: give the table one row per family, in that order", docFams, fams)
	}
	want := gpuVariants()
	wantCases := map[string][]string{
		"blake3": {fmt.Sprintf("%d lengths", len(b3Lengths)), fmt.Sprintf("`MergeMany` of %d pairs", b3MergePairs)},
		"rescue": {
			fmt.Sprintf("permutation of %d states", rescueStates),
			fmt.Sprintf("hashing %d inputs of %s elements", rescueInputs, list(rescueLengths)),
			fmt.Sprintf("merging %d pairs", rescuePairs),
		},
		"merkle": {"trees of " + list(merkleSizes) + " leaves"},
		"poseidon2-babybear": {
			fmt.Sprintf("a %d×%d matrix", matrixRows, matrixCols),
		},
	}
	for _, r := range rows {
		if len(r) != 4 {
			t.Errorf("docs/PORTABILITY.md's self-test table, row %q: %d cells, want 4 (family, cases, variants, compared)", r[0], len(r))
			continue
		}
		w, ok := want[r[0]]
		if !ok {
			continue // reported above
		}
		for _, c := range wantCases[r[0]] {
			if !strings.Contains(r[1], c) {
				t.Errorf("docs/PORTABILITY.md's self-test table, row %q: the cases cell %q does not say %q, what selftest runs: put that in", r[0], r[1], c)
			}
		}
		if got := strings.Split(r[2], ", "); strings.Join(got, ", ") != strings.Join(w, ", ") {
			t.Errorf("docs/PORTABILITY.md's self-test table, row %q: the variants cell says %q; selftest runs %d on a GPU: write %q there", r[0], r[2], len(w), strings.Join(w, ", "))
		}
	}
	for name := range want {
		found := false
		for _, f := range fams {
			found = found || f == name
		}
		if !found {
			t.Errorf("gpuVariants names a family %q that Families does not run: keep the two in step", name)
		}
	}
}
