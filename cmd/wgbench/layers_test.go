package main

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCommandPackagesApart holds wgbench's packages to their layering: a
// command package (cmd/wgbench/internal/NAME) imports of wgbench's own only
// cli, what the commands share, and its tests clitest too; cli and
// clitest import no command package. main alone wires them together.
func TestCommandPackagesApart(t *testing.T) {
	const own = "github.com/wgcompute/wgcompute/cmd/wgbench/internal/"
	dirs, err := os.ReadDir("internal")
	require.NoError(t, err)
	checked := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join("internal", d.Name(), "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			require.NoError(t, err)
			test := strings.HasSuffix(f, "_test.go")
			for _, imp := range file.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				if !strings.HasPrefix(p, own) {
					continue
				}
				if name := path.Base(p); name != "cli" && (name != "clitest" || !test) {
					t.Errorf("%s imports %s: a command package imports only cli (and its tests clitest)", f, p)
				}
			}
			checked++
		}
	}
	require.Greater(t, checked, 50, "wgbench's packages were not found")
}
