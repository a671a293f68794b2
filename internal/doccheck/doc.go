// Package doccheck holds the tests that keep the docs and the code in
// step: every Go snippet in the Markdown docs is an Example that go test
// compiles, README.md lists exactly the WGCOMPUTE_* variables envopts.FromEnv
// translates, no library file reads the environment, and no code comment
// quotes a dated measurement (those live in BENCHMARKS.md and
// bench/results/HISTORY.md).
package doccheck
