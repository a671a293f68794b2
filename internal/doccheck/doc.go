// Package doccheck holds the tests that keep the docs and the code in
// step: every Go snippet in the Markdown docs is an Example that go test
// compiles, README.md lists exactly the WGCOMPUTE_* variables envopts.FromEnv
// translates, and no library file reads the environment.
package doccheck
