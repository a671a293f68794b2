package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocSlurmScripts checks that docs/DISTRIBUTED.md shows each sbatch
// script of docs/slurm, which scripts/slurm-test.sh runs in CI, whole and
// as it is, in a ```sh block of its own, and shows no sbatch script that
// is not one of them: what the page shows is what ran.
func TestDocSlurmScripts(t *testing.T) {
	const doc = "docs/DISTRIBUTED.md"
	b, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shBlocks(string(b))
	scripts, err := filepath.Glob(filepath.Join(root, "docs", "slurm", "*.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatal("no docs/slurm/*.sbatch: is root right?")
	}
	shown := map[string]bool{}
	for _, path := range scripts {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		shown[string(text)] = true
		found := false
		for _, blk := range blocks {
			found = found || blk == string(text)
		}
		if !found {
			t.Errorf("%s: no ```sh block holds docs/slurm/%s as it is: copy the file into the page whole", doc, filepath.Base(path))
		}
	}
	for _, blk := range blocks {
		if strings.Contains(blk, "#SBATCH") && !shown[blk] {
			first, _, _ := strings.Cut(strings.TrimPrefix(blk, "#!/bin/sh\n"), "\n")
			t.Errorf("%s: the ```sh block that starts %q is an sbatch script that is not in docs/slurm, where scripts/slurm-test.sh would run it", doc, first)
		}
	}
}

// shBlocks returns the text of each ```sh block of the Markdown text md,
// every line with its newline.
func shBlocks(md string) []string {
	var out []string
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(md, "\n") {
		fence := strings.TrimSpace(line)
		switch {
		case cur == nil && fence == "```sh":
			cur = &strings.Builder{}
		case cur != nil && fence == "```":
			out = append(out, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
		}
	}
	return out
}
