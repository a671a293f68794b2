package wgsl

import (
	"io/fs"
	"slices"
)

// Libraries returns every library made in the process, in order, for the
// checks that hold every shader file to the same rules.
func Libraries() []*Library {
	libsMu.Lock()
	defer libsMu.Unlock()
	return slices.Clone(libs)
}

// Files returns l's own .wgsl files, sorted (Shared's embedded ones);
// none for a library over Generated, whose files are in no folder.
func (l *Library) Files() []string {
	// Glob fails on a malformed pattern alone, and this one is fixed.
	found, _ := fs.Glob(l.fsys, "*.wgsl")
	return found
}
