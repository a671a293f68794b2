package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu/envopts"
)

// envFuncs are the calls that read or change the process's environment.
var envFuncs = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv", "Clearenv", "ExpandEnv"},
	"syscall": {"Getenv", "Setenv", "Environ", "Unsetenv", "Clearenv"},
}

// envReaders are the packages, not package main, allowed to touch the
// environment: the test helpers, and the one reader of the programs.
var envReaders = []string{"wgpu/gputest", "wgpu/envopts", "cmd/wgbench/internal/clitest"}

// envFiles are the library files allowed to touch the environment, and
// why.
var envFiles = map[string]string{
	// Mesa's EGL (through libwayland) prints an error for every process
	// without XDG_RUNTIME_DIR that lists GL adapters, and the library
	// prints nothing of its own accord: wgpu.Open sets it where it is
	// unset, and touches no other variable.
	"wgpu/xdg.go": "sets XDG_RUNTIME_DIR where it is unset, for Mesa",
	// wgbench's commands, in packages of its own: program code, as main is.
	"cmd/wgbench/internal/b3sum/b3sum.go": "reads RAYON_NUM_THREADS, as b3sum does",
	"cmd/wgbench/internal/bench/plot.go":  "passes the environment on to wgbench-plot",
}

// envCalls returns the calls of envFuncs in the Go source src, as
// "file:line: os.Getenv", whatever name the package is imported by.
func envCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envFuncs[path]; !ok {
			continue
		}
		name := path
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	var calls []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if path, ok := names[id.Name]; ok && slices.Contains(envFuncs[path], sel.Sel.Name) {
				calls = append(calls, fset.Position(sel.Pos()).String()+": "+path+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return calls
}

// TestEnvCalls checks envCalls itself: a renamed import is followed, a
// method of the same name on another value is not a call of os.
func TestEnvCalls(t *testing.T) {
	src := `package p
import (
	o "os"
	"syscall"
)
type env struct{}
func (env) Getenv(string) string { return "" }
func f() {
	_ = o.Getenv("A")
	_, _ = o.LookupEnv("B")
	_ = syscall.Environ()
	var os env
	_ = os.Getenv("C")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := envCalls(fset, f)
	want := []string{"p.go:9:6: os.Getenv", "p.go:10:9: os.LookupEnv", "p.go:11:6: syscall.Environ"}
	if !slices.Equal(got, want) {
		t.Fatalf("envCalls = %q, want %q", got, want)
	}
}

// TestLibraryReadsNoEnvironment fails if a library file (not a test, not
// package main, not the test helper or the programs' reader) reads or
// changes an environment variable: settings are the caller's, through
// Options (envopts.FromEnv translates the variables for programs).
func TestLibraryReadsNoEnvironment(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("no Go sources here (a packed test binary): ", err)
	}
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || slices.Contains(envReaders, rel) || nestedModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" || envFiles[rel] != "" {
			return nil
		}
		checked++
		for _, c := range envCalls(fset, f) {
			t.Errorf("%s: library code touches the environment; take the setting as an Options field, and translate the variable in envopts.FromEnv (read through envopts.Load in main)", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d library files found under %s", checked, root)
	}
}

// testVars are variables the docs may name that only tests read, by
// their reader.
var testVars = map[string]string{
	"WGCOMPUTE_REQUIRE_BACKENDS": "wgpu/gputest",
	"WGCOMPUTE_BENCH_FILE":       "algos/blake3's BenchmarkAutoFile",
}

var varName = regexp.MustCompile(`WGCOMPUTE_[A-Z0-9_]*[A-Z0-9]`)

// TestEnvVarsDocumented checks the docs against envopts.FromEnv: README.md
// names exactly the variables it translates (besides the tests' own), and
// no doc names a variable nothing reads.
func TestEnvVarsDocumented(t *testing.T) {
	known := envopts.Vars()
	for _, doc := range append(docs(t), "BENCHMARKS.md") {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, name := range varName.FindAllString(string(b), -1) {
			seen[name] = true
			if !slices.Contains(known, name) && testVars[name] == "" {
				t.Errorf("%s names %s, which envopts.FromEnv does not translate (it knows %s)", doc, name, strings.Join(known, ", "))
			}
		}
		if doc != "README.md" {
			continue
		}
		var missing []string
		for _, name := range known {
			if !seen[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("README.md does not document %s, which envopts.FromEnv translates", strings.Join(missing, ", "))
		}
	}
}

// nestedModule reports whether the folder dir holds a module of its own
// (a go.mod): a program outside ours, such as tools/lineagen, with the
// sources it lays out beside it, which neither the library's rules nor
// its figures govern.
func nestedModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
