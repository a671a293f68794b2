package wgsl_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/wgsl"

	// Every package that embeds shaders, so that their libraries are
	// checked here with the shared one (TestEveryFileInALibrary fails on
	// a file whose package is missing); the hash packages bring the
	// internal ones they build on (rescueprime, goldilocks).
	_ "github.com/wgcompute/wgcompute/algos/blake3"
	_ "github.com/wgcompute/wgcompute/algos/eigen"
	_ "github.com/wgcompute/wgcompute/algos/field/u64emu"
	_ "github.com/wgcompute/wgcompute/algos/lde"
	_ "github.com/wgcompute/wgcompute/algos/merkle"
	_ "github.com/wgcompute/wgcompute/algos/ntt"
	_ "github.com/wgcompute/wgcompute/algos/poseidon2"
	_ "github.com/wgcompute/wgcompute/algos/rescue"
	_ "github.com/wgcompute/wgcompute/algos/rpo"
	_ "github.com/wgcompute/wgcompute/algos/sis"
	_ "github.com/wgcompute/wgcompute/algos/vortex"
	_ "github.com/wgcompute/wgcompute/wgpu/sched"
)

// shaderFile is one file of a library.
type shaderFile struct {
	lib  *wgsl.Library
	name string
}

func (f shaderFile) String() string { return path.Join(f.lib.String(), f.name) }

// source is the file's own text.
func (f shaderFile) source(t *testing.T) string {
	t.Helper()
	src, err := f.lib.Source(f.name)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// allFiles lists every file of every library made in the process.
func allFiles() []shaderFile {
	var out []shaderFile
	for _, l := range wgsl.Libraries() {
		for _, f := range l.Files() {
			out = append(out, shaderFile{l, f})
		}
	}
	return out
}

// Every .wgsl file of the module is a file of one library, named as its
// folder, so the checks below see every shader; and every library's file
// is the file of that name in its folder.
func TestEveryFileInALibrary(t *testing.T) {
	if _, err := os.Stat("wgsl.go"); err != nil {
		t.Skip("no sources here (a packed test binary): ", err)
	}
	root := ".."
	var onDisk []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "tools") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".wgsl") {
			rel, _ := filepath.Rel(root, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, f := range allFiles() {
		held[f.String()] = true
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.String())))
		if err != nil {
			t.Errorf("library %s holds %s, which is not in its folder: a library is named as the folder of its files (%v)", f.lib, f.name, err)
		} else if string(b) != f.source(t) {
			t.Errorf("%s differs from the file embedded", f)
		}
	}
	for _, p := range onDisk {
		if !held[p] {
			t.Errorf("%s is in no library this test imports: embed it in its package's library, and import the package here", p)
		}
	}
	if len(onDisk) < 30 {
		t.Fatalf("found %d .wgsl files under the module: the walk did not see the tree", len(onDisk))
	}
}

// Every file's includes resolve on its library's path, with no cycle.
func TestEmbeddedIncludesResolve(t *testing.T) {
	for _, f := range allFiles() {
		if _, err := (wgsl.Module{Library: f.lib, Files: []string{f.name}}).Source(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// fnSignature matches a top-level function's name and signature.
var fnSignature = regexp.MustCompile(`(?m)^fn\s+(\w+)\s*(\([^)]*\)\s*(?:->\s*[^{]+)?)\{`)

// A feature's file stands in for the file it replaces in every kernel that
// includes it, so it must define every function of that file with the same
// signature (it may add its own helpers).
func TestFeatureFilesKeepSignatures(t *testing.T) {
	variants := 0
	for _, f := range allFiles() {
		parts := strings.Split(f.name, ".")
		if len(parts) != 3 {
			continue
		}
		variants++
		if !slices.Contains(f.lib.Files(), parts[0]+".wgsl") {
			t.Fatalf("%s replaces %s.wgsl, which is not beside it", f, parts[0])
		}
		base := shaderFile{f.lib, parts[0] + ".wgsl"}.source(t)
		variant := f.source(t)
		have := map[string]string{}
		for _, m := range fnSignature.FindAllStringSubmatch(variant, -1) {
			have[m[1]] = strings.Join(strings.Fields(m[2]), " ")
		}
		for _, m := range fnSignature.FindAllStringSubmatch(base, -1) {
			want := strings.Join(strings.Fields(m[2]), " ")
			if got, ok := have[m[1]]; !ok {
				t.Errorf("%s does not define %s, which %s.wgsl does", f, m[1], parts[0])
			} else if got != want {
				t.Errorf("%s: %s%s, but %s.wgsl has %s%s", f, m[1], got, parts[0], m[1], want)
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
	structs := 0
	for _, f := range allFiles() {
		src := f.source(t)
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
					f, m[1], u, v)
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
	checked := 0
	for _, f := range allFiles() {
		name := f.name
		all, err := wgsl.Module{Library: f.lib, Files: []string{name}}.Source()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !strings.Contains(all, "---- goldilocks.wgsl ----") && !strings.HasPrefix(name, "goldilocks") &&
			!strings.Contains(all, "---- monty31.wgsl ----") && !strings.Contains(name, "31") {
			continue
		}
		checked++
		for i, line := range strings.Split(f.source(t), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if strings.Contains(code, "&&") || strings.Contains(code, "||") {
				t.Errorf("%s:%d: %s: use & or | on the comparisons (no branch)", f, i+1, strings.TrimSpace(code))
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files on goldilocks.wgsl; the Rescue, RPO and Poseidon2 files alone are more", checked)
	}
}
