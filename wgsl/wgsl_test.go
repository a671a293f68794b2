package wgsl

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
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
	lib := mapLib("t/kernel", map[string]string{"k.wgsl": "//!include goldilocks.wgsl\nfn k() {}"}, Shared)
	plain := Module{Library: lib, Files: []string{"k.wgsl"}}
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

// mapLib is an unregistered library named name of the given files.
func mapLib(name string, files map[string]string, deps ...*Library) *Library {
	fsys := fstest.MapFS{}
	for f, src := range files {
		fsys[f] = &fstest.MapFile{Data: []byte(src)}
	}
	l := newLibrary(fsys, deps)
	l.name = name
	return l
}

// sections lists the files of a module's text in order, as their comments
// name them.
func sections(src string) []string {
	var order []string
	for _, line := range strings.Split(src, "\n") {
		if name, ok := strings.CutPrefix(line, "// ---- "); ok {
			order = append(order, strings.TrimSuffix(name, " ----"))
		}
	}
	return order
}

// A package's file includes files of the libraries it builds on, each
// once, in include order; a feature's file is taken from beside the file
// it replaces; and a module's ID names its library.
func TestLibraryResolvesOverItsPath(t *testing.T) {
	base := mapLib("t/base", map[string]string{
		"field.wgsl":   "fn f() {}",
		"field.x.wgsl": "fn f() { /* x */ }",
	})
	mid := mapLib("t/mid", map[string]string{"hash.wgsl": "//!include field.wgsl\nfn h() { f(); }"}, base)
	pkg := mapLib("t/pkg", map[string]string{
		"kernel.wgsl": "//!include hash.wgsl\n//!include field.wgsl\n@compute @workgroup_size(1) fn main() { h(); }",
		"field2.wgsl": "//!include field.wgsl",
	}, mid, base)
	m := Module{Library: pkg, Files: []string{"kernel.wgsl", "field2.wgsl"}}
	src, err := m.Source()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t/base/field.wgsl", "t/mid/hash.wgsl", "t/pkg/kernel.wgsl", "t/pkg/field2.wgsl"}
	if got := sections(src); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if m.ID() != "t/pkg:kernel.wgsl+field2.wgsl" {
		t.Fatalf("ID %q", m.ID())
	}
	id, src, err := m.ForFeatures([]string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sections(src); got[0] != "t/base/field.x.wgsl" || len(got) != 4 || id == m.ID() {
		t.Fatalf("with feature x: files %v, ID %q", got, id)
	}
	// The same file names in another library are another module.
	other := mapLib("t/other", map[string]string{"kernel.wgsl": "fn k() {}", "field2.wgsl": ""})
	if o := (Module{Library: other, Files: m.Files}); o.ID() == m.ID() {
		t.Fatalf("two libraries' modules share the ID %q", o.ID())
	}
	if got, err := pkg.Source("hash.wgsl"); err != nil || !strings.Contains(got, "fn h()") {
		t.Fatalf("pkg.Source(hash.wgsl) = %q, %v", got, err)
	}
}

func TestLibraryErrors(t *testing.T) {
	base := mapLib("t/base", map[string]string{"field.wgsl": "fn f() {}"})
	pkg := mapLib("t/pkg", map[string]string{
		"field.wgsl":  "fn f() {}",
		"kernel.wgsl": "//!include field.wgsl",
		"lost.wgsl":   "//!include nowhere.wgsl",
	}, base)
	for _, tc := range []struct{ file, want string }{
		{"kernel.wgsl", "field.wgsl is both t/pkg/field.wgsl and t/base/field.wgsl"},
		{"lost.wgsl", `no embedded shader "nowhere.wgsl" in t/pkg, t/base (included by lost.wgsl)`},
		{"none.wgsl", `no embedded shader "none.wgsl" in t/pkg, t/base`},
	} {
		_, err := Module{Library: pkg, Files: []string{tc.file}}.Source()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.file, err, tc.want)
		}
	}
}

// Every library's name is unique in the process, Shared's included, so
// module IDs are.
func TestLibraryNamesUnique(t *testing.T) {
	a := NewLibrary("t/same", fstest.MapFS{})
	b := NewLibrary("t/same", fstest.MapFS{})
	c := NewLibrary("wgsl", fstest.MapFS{})
	if a.String() == b.String() || c.String() == Shared.String() {
		t.Fatalf("names %q %q %q %q", a, b, c, Shared)
	}
	ids := map[string]bool{}
	for _, l := range []*Library{a, b, c, Shared, nil} {
		id := Module{Library: l, Files: []string{"x.wgsl"}}.ID()
		if l != nil && ids[id] {
			t.Fatalf("ID %q twice", id)
		}
		ids[id] = true
	}
}

// TestGenerated: a generated file is named and included as an embedded
// one is, by its library and by a library built on it; adding it again
// with its text is nothing, with other text or under a name that is not a
// shader file's an error that adds none of the files given; a name also
// held by a library on the same path is refused when a module names it.
func TestGenerated(t *testing.T) {
	// Libraries over Generated list no files to the checks of the tree's
	// files (Files), as the user's library here holds none in the tree.
	var g, u Generated
	gen := NewLibrary("test/generated", &g, Shared)
	user := NewLibrary("test/user", &u, gen, Shared)
	if err := u.Add(map[string]string{"test_user.wgsl": "//!include test_gen_a.wgsl\nconst USER: u32 = GEN_A;\n"}); err != nil {
		t.Fatal(err)
	}
	a := map[string]string{"test_gen_a.wgsl": "//!include monty31.wgsl\nconst GEN_A: u32 = 1u;\n"}
	for i := range 2 {
		if err := g.Add(a); err != nil {
			t.Fatalf("adding test_gen_a.wgsl, time %d: %v", i+1, err)
		}
	}
	for _, m := range []Module{{Library: gen, Files: []string{"test_gen_a.wgsl"}}, {Library: user, Files: []string{"test_user.wgsl"}}} {
		src, err := m.Source()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"// ---- monty31.wgsl ----", "test_gen_a.wgsl ----\n//!include monty31.wgsl\nconst GEN_A"} {
			if !strings.Contains(src, want) {
				t.Errorf("%v's source lacks %q:\n%s", m.Files, want, src)
			}
		}
	}
	err := g.Add(map[string]string{"test_gen_b.wgsl": "", "test_gen_a.wgsl": "const GEN_A: u32 = 2u;\n"})
	if err == nil || !strings.Contains(err.Error(), `"test_gen_a.wgsl" added twice with different text`) {
		t.Errorf("other text under a generated name: got %v", err)
	}
	if _, err := fs.ReadFile(&g, "test_gen_b.wgsl"); err == nil {
		t.Error("a refused call added one of its files")
	}
	for _, name := range []string{"x/test_gen_c.wgsl", "test_gen_c.txt", "../test_gen_c.wgsl"} {
		if err := g.Add(map[string]string{name: ""}); err == nil || !strings.Contains(err.Error(), "NAME.wgsl") {
			t.Errorf("name %q: got %v", name, err)
		}
	}
	if err := g.Add(map[string]string{"monty31.wgsl": "const SHADOW: u32 = 1u;\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := (Module{Library: gen, Files: []string{"monty31.wgsl"}}).Source(); err == nil {
		t.Error("a generated file of a name the shared library holds was taken")
	}
}

// A sub-library (NewSubLibrary) holds the files of its folder alone, and
// one of an invalid folder none.
func TestSubLibrary(t *testing.T) {
	fsys := fstest.MapFS{"top.wgsl": {Data: []byte("fn t() {}")}, "sub/s.wgsl": {Data: []byte("//!include top.wgsl\nfn s() { t(); }")}}
	top := mapLib("t/top", map[string]string{"top.wgsl": "fn t() {}"})
	sub := newLibrary(subFS(fsys, "sub"), []*Library{top})
	sub.name = "t/sub"
	if got := sub.Files(); len(got) != 1 || got[0] != "s.wgsl" {
		t.Fatalf("sub-library files %v, want [s.wgsl]", got)
	}
	if src, err := (Module{Library: sub, Files: []string{"s.wgsl"}}).Source(); err != nil || !strings.Contains(src, "fn t()") {
		t.Fatalf("sub-library module: %v\n%s", err, src)
	}
	if got := newLibrary(subFS(fsys, "../sub"), nil).Files(); len(got) != 0 {
		t.Fatalf("invalid folder: files %v, want none", got)
	}
}
