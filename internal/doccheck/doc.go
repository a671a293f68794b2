// Package doccheck holds the tests that keep the Markdown docs in step with
// the code: every Go snippet in them is an Example that go test compiles.
package doccheck
