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

// TestBaseImportsNothingAbove fails if a file under internal/base (the
// helpers below the library, ARCHITECTURE.md) imports a package of the
// module outside internal/base: such an arrow would run back up the
// layers.
func TestBaseImportsNothingAbove(t *testing.T) {
	base := filepath.Join(root, "internal", "base")
	if _, err := os.Stat(base); err != nil {
		t.Skip("no Go sources here (a packed test binary): ", err)
	}
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) && !strings.HasPrefix(p, module+"internal/base/") {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s, a package above internal/base", filepath.ToSlash(rel), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 {
		t.Fatalf("only %d files found under %s", checked, base)
	}
}
