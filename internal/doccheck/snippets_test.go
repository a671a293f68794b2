package doccheck

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = "../.."

// snippet is one ```go block of a Markdown file.
type snippet struct {
	file  string
	line  int // of the opening fence, from 1
	lines []string
	text  string // the block as written, each line ending in a newline
}

// goSnippets returns the ```go blocks of the Markdown text b of file.
func goSnippets(file string, b []byte) []snippet {
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{file: file, line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, strings.TrimSpace(line))
			cur.text += line + "\n"
		}
	}
	return out
}

// trimmedLines returns b's lines without their indentation.
func trimmedLines(b []byte) []string {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// contains reports whether want is a run of consecutive lines of have.
func contains(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		match := true
		for j := range want {
			if have[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// docs returns the Markdown files whose Go snippets must compile.
func docs(t *testing.T) []string {
	files := []string{"README.md", "ARCHITECTURE.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, rel)
	}
	return files
}

// examples returns the lines of every example_test.go in the repository
// and of every program under examples/.
func examples(t *testing.T) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.Name() != "example_test.go" && !isExampleProgram(path) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = trimmedLines(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no example_test.go under %s", root)
	}
	return out
}

// isExampleProgram reports whether path is the main.go of a program under
// examples/.
func isExampleProgram(path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) == 3 && parts[0] == "examples" && parts[2] == "main.go"
}

// TestDocSnippets checks that every ```go block of README.md,
// ARCHITECTURE.md and docs/*.md is, line for line up to indentation, a
// part of an example_test.go or of a program under examples/, so that go
// test compiles (and runs) what the docs show and the two cannot drift
// apart.
func TestDocSnippets(t *testing.T) {
	ex := examples(t)
	found := 0
	for _, doc := range docs(t) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range goSnippets(doc, b) {
			found++
			ok := false
			for _, lines := range ex {
				if contains(lines, s.lines) {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("%s:%d: this ```go block is in no example_test.go and no examples/*/main.go: copy it, as it is, into an Example function of the package it documents (or make the block what an Example already holds), so that go test compiles it", s.file, s.line)
			}
		}
	}
	if found == 0 {
		t.Error("no ```go block in the docs: is root right?")
	}
}
