package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go/parser"
	"go/token"
)

// module is the module's path, the prefix of its packages' import paths.
const module = "github.com/wgcompute/wgcompute/"

// A layer is a folder of packages and what its files may import of the
// module (ARCHITECTURE.md's table, from the bottom up): allow, where set,
// lists every package prefix its files may import, else deny lists those
// they may not. Paths are relative to the module; a prefix ending in "/"
// covers the packages under it, one without names that package alone.
type layer struct {
	dir string
	// only is the folder's own files, not its subfolders' (wgpu, whose
	// subpackages are layers of their own).
	only bool
	// tests: the rule holds for _test.go files too (below the library,
	// where a test importing upwards would be a cycle waiting to happen).
	// Elsewhere a package's tests may import what tests it (gputest).
	tests       bool
	allow, deny []string
	why         string
	// optional: a folder that may be gone (moved under another layer's,
	// which then checks it).
	optional bool
}

var layers = []layer{
	{dir: "internal/base", tests: true, allow: []string{"internal/base/"},
		why: "internal/base is the helpers below the library: they import nothing of the module but each other"},
	{dir: "internal", allow: []string{"internal/"},
		why: "internal/ holds only packages below wgpu: no folder holds packages on both sides of it"},
	{dir: "wgsl", allow: []string{"internal/base/"},
		why: "wgsl (shaders, //!include) sits below the device layer"},
	{dir: "wgpu", only: true, allow: []string{"internal/base/", "wgsl"},
		why: "wgpu, the device layer, imports nothing of the module but internal/base and wgsl"},
	{dir: "wgpu/sched", allow: []string{"internal/base/", "wgsl", "wgpu"},
		why: "wgpu/sched, the scheduling layer, imports the device layer and what is below it"},
	{dir: "wgpu/envopts", allow: []string{"internal/base/", "wgpu"},
		why: "envopts translates the environment into wgpu.Options, above wgpu alone"},
	{dir: "wgpu/gputest", allow: []string{"internal/base/", "wgpu", "wgpu/sched", "wgpu/envopts"},
		why: "gputest opens devices and Groups for the tests, above wgpu and sched alone"},
	{dir: "algos", deny: []string{"cmd/", "bench/", "web/", "examples/", "tools/"},
		why: "the algorithms import no program"},
	{dir: "u64emu", deny: []string{"cmd/", "bench/", "web/", "examples/", "tools/"},
		why: "the algorithms import no program", optional: true},
}

// allowed reports whether p, an import path relative to the module, is
// one of prefixes.
func allowed(p string, prefixes []string) bool {
	for _, a := range prefixes {
		if p == strings.TrimSuffix(a, "/") || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a) {
			return true
		}
	}
	return false
}

// layerViolations returns, for each Go file of l under root, the imports
// of the module that l's rule refuses, and how many files it read.
func layerViolations(t *testing.T, root string, l layer) (bad []string, checked int) {
	t.Helper()
	top := filepath.Join(root, filepath.FromSlash(l.dir))
	if _, err := os.Stat(top); err != nil && l.optional {
		return nil, 0
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != top && (l.only || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !l.tests && strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			if l.allow != nil && !allowed(rel, l.allow) || l.deny != nil && allowed(rel, l.deny) {
				file, _ := filepath.Rel(root, path)
				bad = append(bad, filepath.ToSlash(file)+" imports "+rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad, checked
}

// TestLayers fails where a file imports a package of a layer above its
// own (ARCHITECTURE.md): such an arrow runs back up the layers.
func TestLayers(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, "internal", "base")); err != nil {
		t.Skip("no Go sources here (a packed test binary): ", err)
	}
	for _, l := range layers {
		bad, checked := layerViolations(t, root, l)
		if checked == 0 && !l.optional {
			t.Errorf("%s: no Go files found: the layer moved, and its rule with it", l.dir)
		}
		for _, b := range bad {
			t.Errorf("%s: %s", b, l.why)
		}
	}
}

// TestLayersCatch: each kind of rule refuses a planted import, so that
// TestLayers can fail.
func TestLayersCatch(t *testing.T) {
	plant := func(dir, importPath string) string {
		root := t.TempDir()
		d := filepath.Join(root, filepath.FromSlash(dir))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package p\n\nimport _ \"" + module + importPath + "\"\n"
		if err := os.WriteFile(filepath.Join(d, "p.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return root
	}
	find := func(dir string) layer {
		for _, l := range layers {
			if l.dir == dir {
				return l
			}
		}
		t.Fatalf("no layer %s", dir)
		return layer{}
	}
	for _, c := range []struct {
		layer, file, imports string
		refused              bool
	}{
		{"internal", "internal/lineavec", "wgpu", true},
		{"internal", "internal/lineavec", "internal/base/par", false},
		{"internal/base", "internal/base/par", "internal/doccheck", true},
		{"wgpu", "wgpu", "wgpu/sched", true},
		{"wgpu", "wgpu", "algos/field", true},
		{"wgpu", "wgpu", "wgsl", false},
		{"wgpu", "wgpu/sched", "algos/merkle", false}, // not wgpu's own file
		{"wgpu/sched", "wgpu/sched", "algos/merkle", true},
		{"wgpu/sched", "wgpu/sched", "wgpu/gputest", true},
		{"wgpu/sched", "wgpu/sched", "wgpu", false},
		{"algos", "algos/merkle", "cmd/internal/fileout", true},
		{"algos", "algos/merkle", "wgpu/sched", false},
	} {
		bad, _ := layerViolations(t, plant(c.file, c.imports), find(c.layer))
		if got := len(bad) > 0; got != c.refused {
			t.Errorf("layer %s: %s importing %s: refused %v, want %v (%q)", c.layer, c.file, c.imports, got, c.refused, bad)
		}
	}
}
