package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is the anchor GitHub gives a heading: lower case, letters, numbers,
// '_' and '-' kept, spaces made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of the Markdown file path,
// numbered as GitHub numbers repeated ones ("x", "x-1", ...); headings
// inside fenced code blocks are not headings.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		s := slug(strings.TrimLeft(line, "#"))
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocLinks checks every relative link of README.md, ARCHITECTURE.md,
// BENCHMARKS.md and docs/*.md: the file or folder it names exists, and
// the anchor after '#', if any, is a heading of that file, so that a
// section moved or renamed cannot leave a link behind.
func TestDocLinks(t *testing.T) {
	docsWithLinks := append(docs(t), "BENCHMARKS.md")
	checked := 0
	for _, doc := range docsWithLinks {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, filepath.Dir(doc), file)
			if file == "" {
				path = filepath.Join(root, doc)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q: %v", doc, target, err)
				continue
			}
			checked++
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") || !anchors(t, path)[anchor] {
				t.Errorf("%s: link %q: no heading of %s has the anchor #%s", doc, target, file, anchor)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found in the docs: is root right?")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"b3sum against b3sum 1.2.0":                           "b3sum-against-b3sum-120",
		"`go test` benchmarks on the H200":                    "go-test-benchmarks-on-the-h200",
		"Targets and results (H200, 2026-11-21/22)":           "targets-and-results-h200-2026-11-2122",
		"Rescue Prime Rp64_256: merge kernel at 4096² inputs": "rescue-prime-rp64_256-merge-kernel-at-4096²-inputs",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
