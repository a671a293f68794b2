package doccheck

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/wgcompute/wgcompute/algos/merkle"
	"github.com/wgcompute/wgcompute/algos/rescue"
)

// programs returns the directories of the programs under examples/, from
// the repository root ("examples/merkle").
func programs(t *testing.T) []string {
	t.Helper()
	mains, err := filepath.Glob(filepath.Join(root, "examples", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mains) == 0 {
		t.Skip("no examples/*/main.go here (a packed test binary)")
	}
	var dirs []string
	for _, m := range mains {
		rel, err := filepath.Rel(root, filepath.Dir(m))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	return dirs
}

// TestExampleProgramsInReadme checks that README.md shows each program
// under examples/ whole: one ```go block equal to its main.go, byte for
// byte, so that what a reader copies is what CI compiles and runs.
func TestExampleProgramsInReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goSnippets("README.md", readme)
	for _, dir := range programs(t) {
		src, err := os.ReadFile(filepath.Join(root, dir, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, b := range blocks {
			if b.text == string(src) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md has no ```go block equal to %s/main.go: paste the file, as it is, between a ```go and a ``` line", dir)
		}
	}
}

// wantOutput is what each program prints on the CPU backend; a line
// ending in "..." is a prefix. The Rescue root is also computed below
// from the leaves the program describes, by the plain-Go tree.
var wantOutput = map[string][]string{
	"examples/merkle": {
		"root %s",
		"leaves 5, 3, 17 and 99 verified: true",
		"refused: merkle: leaf 0: element 0 is 18446744069414584321, not a Goldilocks field element...",
	},
	"examples/vortex": {
		"root 09e2464fb501040603f58f16a4cabf3117544142a0504f49dfbffe4e6f2b515a",
		"gnark-crypto's state, same root: true",
		"verified by gnark-crypto: true",
		"refused: vortex: gnark-crypto option 0 changes the column or Merkle hash (WithColumnHash, WithMerkleHash): supported are its defaults, SIS column hashes and a Poseidon2 tree, which the kernels compute",
	},
	"examples/babybear": {
		"root 4112981f15085017f132183441d5b93c1be22d20d938592833700758a9289118",
		"row 5 verified: true",
		"refused: merkle: matrix element 55 (row 3, column 7) is 2013265921, not a babybear field element...",
	},
}

// rescueRoot is the root examples/merkle prints: its leaves, made here
// again, through merkle.Build on the CPU.
func rescueRoot(t *testing.T) string {
	leaves := make([][32]byte, 1000)
	for i := range leaves {
		record := []uint64{uint64(i), uint64(i) * 0x9e3779b97f4a7c15 % rescue.P, rescue.P - 1}
		d := rescue.HashElements(record)
		for j, e := range d {
			binary.LittleEndian.PutUint64(leaves[i][8*j:], e)
		}
	}
	tree, err := merkle.Build(nil, leaves, rescue.MerkleMerge{}, merkle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", tree.Root())
}

// TestExampleProgramsRun builds each program under examples/ and runs it
// on the CPU backend (WGCOMPUTE_BACKEND=cpu), checking what it prints.
func TestExampleProgramsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs: not with -short")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Skip("no go command beside this toolchain: ", err)
	}
	bin := t.TempDir()
	for _, dir := range programs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want, ok := wantOutput[dir]
			if !ok {
				t.Fatalf("%s: no expected output in wantOutput", dir)
			}
			exe := filepath.Join(bin, filepath.Base(dir))
			build := exec.Command(gobin, "build", "-o", exe, "./"+dir)
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build ./%s: %v\n%s", dir, err, out)
			}
			run := exec.Command(exe)
			run.Env = append(os.Environ(), "WGCOMPUTE_BACKEND=cpu")
			var stderr bytes.Buffer
			run.Stderr = &stderr
			out, err := run.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s%s", dir, err, out, stderr.Bytes())
			}
			if stderr.Len() > 0 {
				t.Errorf("%s wrote to standard error:\n%s", dir, stderr.Bytes())
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(got) != len(want) {
				t.Fatalf("%s printed %d lines, want %d:\n%s", dir, len(got), len(want), out)
			}
			for i, w := range want {
				if strings.Contains(w, "%s") {
					w = fmt.Sprintf(w, rescueRoot(t))
				}
				if p, ok := strings.CutSuffix(w, "..."); ok {
					if !strings.HasPrefix(got[i], p) {
						t.Errorf("%s line %d: %q, want it to start %q", dir, i+1, got[i], p)
					}
				} else if got[i] != w {
					t.Errorf("%s line %d: %q, want %q", dir, i+1, got[i], w)
				}
			}
		})
	}
}
