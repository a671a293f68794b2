package wgsl

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func fakeFS(files map[string]string) func(string) (string, string, error) {
	return named(func(name string) (string, error) {
		s, ok := files[name]
		if !ok {
			return "", fmt.Errorf("wgsl: no embedded shader %q", name)
		}
		return s, nil
	})
}

// named adapts a reader of files by name to build's reader.
func named(read func(string) (string, error)) func(string) (string, string, error) {
	return func(name string) (string, string, error) {
		s, err := read(name)
		return name, s, err
	}
}

func TestBuildResolvesIncludesOnce(t *testing.T) {
	read := fakeFS(map[string]string{
		"field.wgsl":  "fn f() {}",
		"hash.wgsl":   "//!include field.wgsl\nfn h() { f(); }",
		"merge.wgsl":  "//!include field.wgsl\n//!include hash.wgsl\nfn m() { h(); }",
		"kernel.wgsl": "//!include merge.wgsl\n//!include hash.wgsl\n@compute @workgroup_size(WG) fn main() { m(); }",
	})
	got, err := build(read, []string{"kernel.wgsl"}, []Const{{"WG", uint32(64)}, {"SCALE", float32(2)}, {"ON", true}, {"OFF", int32(-3)}})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(got, "\n") {
		if name, ok := strings.CutPrefix(line, "// ---- "); ok {
			order = append(order, strings.TrimSuffix(name, " ----"))
		}
	}
	want := []string{"prelude", "field.wgsl", "hash.wgsl", "merge.wgsl", "kernel.wgsl"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for _, c := range []string{"const WG: u32 = 64u;", "const SCALE: f32 = 2.0f;", "const ON: bool = true;", "const OFF: i32 = -3i;"} {
		if !strings.Contains(got, c) {
			t.Errorf("prelude lacks %q:\n%s", c, got)
		}
	}
	if n := strings.Count(got, "fn f() {}"); n != 1 {
		t.Errorf("field.wgsl appears %d times", n)
	}
}

func TestBuildErrors(t *testing.T) {
	read := fakeFS(map[string]string{
		"a.wgsl": "//!include b.wgsl",
		"b.wgsl": "//!include a.wgsl",
		"c.wgsl": "//!include missing.wgsl",
	})
	for _, tc := range []struct {
		names  []string
		consts []Const
		want   string
	}{
		{[]string{"a.wgsl"}, nil, "include cycle a.wgsl -> b.wgsl -> a.wgsl"},
		{[]string{"c.wgsl"}, nil, `no embedded shader "missing.wgsl" (included by c.wgsl)`},
		{[]string{"nope.wgsl"}, nil, `no embedded shader "nope.wgsl"`},
		{nil, []Const{{"X", 3}}, "accepted are uint32, int32, float32 and bool"},
		{nil, []Const{{"bad name", uint32(1)}}, "not an identifier"},
	} {
		_, err := build(read, tc.names, tc.consts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("build(%v, %v) = %v, want an error containing %q", tc.names, tc.consts, err, tc.want)
		}
	}
}

// Every embedded file's includes name embedded files, with no cycle.
func TestEmbeddedIncludesResolve(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".wgsl") {
			continue
		}
		if _, err := build(named(Source), []string{name}, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestModuleIDAndCache(t *testing.T) {
	a := Module{Files: []string{"goldilocks.wgsl"}, Consts: []Const{{"B", uint32(2)}, {"A", uint32(1)}}}
	b := Module{Files: []string{"goldilocks.wgsl"}, Consts: []Const{{"A", uint32(1)}, {"B", uint32(2)}}}
	if a.ID() != b.ID() {
		t.Fatalf("IDs differ for the same constants: %q %q", a.ID(), b.ID())
	}
	if c := (Module{Files: []string{"goldilocks.wgsl"}, Consts: []Const{{"A", uint32(3)}}}); c.ID() == a.ID() {
		t.Fatalf("IDs equal for different constants: %q", c.ID())
	}
	s1, err := a.Source()
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := b.Source()
	if s1 != s2 || !strings.Contains(s1, "const A: u32 = 1u;") {
		t.Fatalf("sources differ or lack the prelude")
	}
}

// A feature's file replaces the file it names wherever that is included,
// and the module's ID says so; without the feature nothing changes.
func TestModuleFeatures(t *testing.T) {
	plain := Module{Files: []string{"u64emu.wgsl"}}
	id, src, err := plain.ForFeatures([]string{"shader-int64"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src, "GL_P64") || !strings.Contains(src, "---- goldilocks.shader-int64.wgsl ----") {
		t.Fatalf("shader-int64 variant not included:\n%.300s", src)
	}
	if strings.Contains(src, "---- goldilocks.wgsl ----") || id == plain.ID() {
		t.Fatalf("both variants, or the same ID %q", id)
	}
	src, err = plain.Source()
	if err != nil || strings.Contains(src, "GL_P64") {
		t.Fatalf("plain module took the variant (err %v)", err)
	}
	_, other, err := plain.ForFeatures([]string{"subgroups"})
	if err != nil || other != src {
		t.Fatalf("a feature without files changed the text (err %v)", err)
	}
}

// fnSignature matches a top-level function's name and signature.
var fnSignature = regexp.MustCompile(`(?m)^fn\s+(\w+)\s*(\([^)]*\)\s*(?:->\s*[^{]+)?)\{`)

// A feature's file stands in for the file it replaces in every kernel that
// includes it, so it must define every function of that file with the same
// signature (it may add its own helpers).
func TestFeatureFilesKeepSignatures(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	variants := 0
	for _, e := range entries {
		parts := strings.Split(e.Name(), ".")
		if len(parts) != 3 {
			continue
		}
		variants++
		base, err := Source(parts[0] + ".wgsl")
		if err != nil {
			t.Fatalf("%s replaces %s.wgsl, which is not embedded", e.Name(), parts[0])
		}
		variant, err := Source(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]string{}
		for _, m := range fnSignature.FindAllStringSubmatch(variant, -1) {
			have[m[1]] = strings.Join(strings.Fields(m[2]), " ")
		}
		for _, m := range fnSignature.FindAllStringSubmatch(base, -1) {
			want := strings.Join(strings.Fields(m[2]), " ")
			if got, ok := have[m[1]]; !ok {
				t.Errorf("%s does not define %s, which %s.wgsl does", e.Name(), m[1], parts[0])
			} else if got != want {
				t.Errorf("%s: %s%s, but %s.wgsl has %s%s", e.Name(), m[1], got, parts[0], m[1], want)
			}
		}
	}
	if variants < 2 {
		t.Fatalf("found %d feature files; the shader-int64 and subgroups ones exist", variants)
	}
}

var (
	structDecl = regexp.MustCompile(`(?s)struct\s+(\w+)\s*\{(.*?)\}`)
	builtinUse = regexp.MustCompile(`@builtin\((\w+)\)`)
)

// Tint's uniformity analysis (Chrome) takes a struct parameter as
// non-uniform where any member is, so a struct that carries workgroup_id or
// num_workgroups beside a per-invocation builtin makes everything computed
// from it non-uniform, and a barrier after an early exit on it is rejected
// (naga, which has no such analysis, accepts it). docs/PORTABILITY.md.
func TestBuiltinStructsKeepUniformity(t *testing.T) {
	uniform := map[string]bool{"workgroup_id": true, "num_workgroups": true}
	varying := map[string]bool{"local_invocation_id": true, "local_invocation_index": true,
		"global_invocation_id": true, "subgroup_invocation_id": true}
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	structs := 0
	for _, e := range entries {
		src, err := Source(e.Name())
		if err != nil {
			continue
		}
		for _, m := range structDecl.FindAllStringSubmatch(src, -1) {
			var u, v []string
			for _, b := range builtinUse.FindAllStringSubmatch(m[2], -1) {
				if uniform[b[1]] {
					u = append(u, b[1])
				} else if varying[b[1]] {
					v = append(v, b[1])
				}
			}
			if len(u)+len(v) > 0 {
				structs++
			}
			if len(u) > 0 && len(v) > 0 {
				t.Errorf("%s: struct %s holds the workgroup-uniform %v with the per-invocation %v: Tint takes all of them as non-uniform; give the uniform ones a struct of their own",
					e.Name(), m[1], u, v)
			}
		}
	}
	if structs == 0 {
		t.Fatal("found no struct of builtins; merkle.wgsl has two")
	}
}

// TestGoldilocksHasNoShortCircuit keeps && and || out of every file on the
// Goldilocks or the Monty-31 library (the fields, and the permutations and
// kernels built on them): each is a branch in Tint's output, and SwiftShader's compiler
// (Chromium without a GPU) grew past 8 GB on the Rescue round loop with
// about a hundred of them (docs/PORTABILITY.md, "WGSL in browsers"). & and
// | on the comparisons give the same bits without one.
func TestGoldilocksHasNoShortCircuit(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".wgsl") {
			continue
		}
		all, err := Module{Files: []string{name}}.Source()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(all, "---- goldilocks.wgsl ----") && !strings.HasPrefix(name, "goldilocks") &&
			!strings.Contains(all, "---- monty31.wgsl ----") && !strings.Contains(name, "31") {
			continue
		}
		checked++
		src, _ := Source(name)
		for i, line := range strings.Split(src, "\n") {
			code, _, _ := strings.Cut(line, "//")
			if strings.Contains(code, "&&") || strings.Contains(code, "||") {
				t.Errorf("%s:%d: %s: use & or | on the comparisons (no branch)", name, i+1, strings.TrimSpace(code))
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files on goldilocks.wgsl; the Rescue, RPO and Poseidon2 files alone are more", checked)
	}
}

// TestAddGenerated: a generated file is named and included as an embedded
// one is; adding it again with its text is nothing, with other text or
// under an embedded name an error that adds none of the files given.
func TestAddGenerated(t *testing.T) {
	a := map[string]string{"test_gen_a.wgsl": "//!include monty31.wgsl\nconst GEN_A: u32 = 1u;\n"}
	for i := range 2 {
		if err := AddGenerated(a); err != nil {
			t.Fatalf("adding test_gen_a.wgsl, time %d: %v", i+1, err)
		}
	}
	src, err := Module{Files: []string{"test_gen_a.wgsl"}}.Source()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// ---- monty31.wgsl ----", "// ---- test_gen_a.wgsl ----\n//!include monty31.wgsl\nconst GEN_A"} {
		if !strings.Contains(src, want) {
			t.Errorf("the module's source lacks %q:\n%s", want, src)
		}
	}
	err = AddGenerated(map[string]string{"test_gen_b.wgsl": "", "test_gen_a.wgsl": "const GEN_A: u32 = 2u;\n"})
	if err == nil || !strings.Contains(err.Error(), `"test_gen_a.wgsl" added twice with different text`) {
		t.Errorf("other text under a generated name: got %v", err)
	}
	if _, err := Source("test_gen_b.wgsl"); err == nil {
		t.Error("a refused call added one of its files")
	}
	if err := AddGenerated(map[string]string{"monty31.wgsl": ""}); err == nil || !strings.Contains(err.Error(), "embedded shader's") {
		t.Errorf("an embedded name: got %v", err)
	}
}
