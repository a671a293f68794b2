package wgsl

import (
	"slices"
	"sort"
)

// Libraries returns every library made in the process, in order, for the
// checks that hold every shader file to the same rules.
func Libraries() []*Library {
	libsMu.Lock()
	defer libsMu.Unlock()
	return slices.Clone(libs)
}

// Files returns l's own .wgsl files, sorted.
func (l *Library) Files() []string {
	var out []string
	for f := range l.names {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
