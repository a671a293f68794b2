// Package wgsl holds the project's compute shaders, one file per kernel family,
// embedded at build time.
//
// Shared WGSL (the Goldilocks u32-pair library) is never copied into another
// shader: Compose concatenates library files in front of a kernel file, so
// every kernel that needs field arithmetic compiles the one library text.
package wgsl

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

// Source returns the text of the named shader file, for example
// "goldilocks.wgsl". It returns an error for a name that is not embedded.
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("wgsl: no embedded shader %q", name)
	}
	return string(b), nil
}

// MustSource is Source for names that are fixed at compile time; it panics
// only if the binary was built without that file, which tests catch.
func MustSource(name string) string {
	s, err := Source(name)
	if err != nil {
		panic(err)
	}
	return s
}

// Compose returns the named files concatenated in order, each preceded by a
// comment naming it, so that compiler messages can be traced to a file.
func Compose(names ...string) (string, error) {
	var b strings.Builder
	for _, n := range names {
		s, err := Source(n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "// ---- %s ----\n%s\n", n, s)
	}
	return b.String(), nil
}
