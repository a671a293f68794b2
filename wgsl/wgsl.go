// Package wgsl builds compute shaders into modules, and holds the shaders
// several packages share: the fields' arithmetic (goldilocks.wgsl,
// monty31.wgsl) and what the permutations over them share (state12.wgsl).
//
// Each package embeds its own kernels beside its Go code and makes them a
// Library whose files may include those of the libraries it names, this
// package's Shared first of all:
//
//	//go:embed *.wgsl
//	var shaderFiles embed.FS
//
//	var shaders = wgsl.NewLibrary("algos/vortex", shaderFiles, wgsl.Shared)
//
// A shader names what it needs with include lines,
//
//	//!include goldilocks.wgsl
//
// which Module.Source resolves depth first, each file once, over its
// library's files and then the libraries it builds on, so the Goldilocks
// library is written once and every kernel that needs field arithmetic says
// so itself; Go never lists a shader's dependencies or writes WGSL text.
// What varies between variants of one family (a workgroup size, a lane
// width) is a prelude of typed constants, declared by Go as Consts and
// placed in front of the files.
package wgsl

import (
	"embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed *.wgsl
var files embed.FS

// includeDirective starts a line that names a file the shader needs.
const includeDirective = "//!include "

// Source returns the text of the named shader file as embedded, for example
// "goldilocks.wgsl", include lines untouched. It returns an error for a
// name that is not one.
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("wgsl: no embedded shader %q", name)
	}
	return string(b), nil
}

// Const is one constant of a module's prelude, declared as
// `const Name: T = Value;` with T from Value's Go type: uint32 (u32),
// int32 (i32), float32 (f32) or bool.
type Const struct {
	Name  string
	Value any
}

func (c Const) wgsl() (string, error) {
	var t, v string
	switch x := c.Value.(type) {
	case uint32:
		t, v = "u32", strconv.FormatUint(uint64(x), 10)+"u"
	case int32:
		t, v = "i32", strconv.FormatInt(int64(x), 10)+"i"
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return "", fmt.Errorf("wgsl: const %s = %v: WGSL has no literal for it", c.Name, x)
		}
		t, v = "f32", strconv.FormatFloat(float64(x), 'g', -1, 32)
		if !strings.ContainsAny(v, ".e") {
			v += ".0"
		}
		v += "f"
	case bool:
		t, v = "bool", strconv.FormatBool(x)
	default:
		return "", fmt.Errorf("wgsl: const %s has Go type %T: accepted are uint32, int32, float32 and bool", c.Name, c.Value)
	}
	if c.Name == "" || strings.ContainsAny(c.Name, " \t\n;:=") {
		return "", fmt.Errorf("wgsl: const name %q is not an identifier", c.Name)
	}
	return "const " + c.Name + ": " + t + " = " + v + ";\n", nil
}

// Module is a WGSL module: the prelude of Consts, then Files in order, each
// after the files it includes, the names looked up on Library's path. Two
// Modules of the same library, files and constants are the same module:
// ID names it, and Source builds its text once per process.
type Module struct {
	// Library holds the files, or the libraries it builds on do; nil is
	// Shared.
	Library *Library
	Files   []string
	Consts  []Const
	// Features names optional device features the module may use: where
	// feature F is on, a file NAME.F.wgsl beside NAME.wgsl (in the same
	// library) replaces it wherever it is named or included
	// (goldilocks.shader-int64.wgsl, the field on native 64-bit integers,
	// for goldilocks.wgsl). The kernel layer sets it from the device
	// (ForFeatures); the replacement must define the same functions with
	// the same results.
	Features []string
}

// ForFeatures returns the ID and text of m on a device with the given
// optional features (see Module.Features); the kernel layer calls it.
func (m Module) ForFeatures(features []string) (id, src string, err error) {
	m.Features = features
	src, err = m.Source()
	return m.ID(), src, err
}

// library returns the library m's files are looked up on.
func (m Module) library() *Library {
	if m.Library == nil {
		return Shared
	}
	return m.Library
}

// resolve returns the library holding the file that stands for name under
// m's features, and that file's name.
func (m Module) resolve(name string) (*Library, string, error) {
	at, err := m.library().find(name)
	if err != nil {
		return nil, "", err
	}
	if stem, ok := strings.CutSuffix(name, ".wgsl"); ok {
		for _, f := range m.Features {
			if alt := stem + "." + f + ".wgsl"; at.holds(alt) {
				return at, alt, nil
			}
		}
	}
	return at, name, nil
}

// ID identifies the module, for pipeline caches and error messages:
// "goldilocks.wgsl" (a module of Shared),
// "algos/merkle:merkle.wgsl{MK_SH=1024}" (of another library, its name
// first), so that no two modules of a process share an ID.
func (m Module) ID() string {
	var b strings.Builder
	if l := m.library(); l.name != "" {
		b.WriteString(l.name + ":")
	}
	b.WriteString(strings.Join(m.Files, "+"))
	if len(m.Consts) > 0 {
		cs := make([]string, len(m.Consts))
		for i, c := range m.Consts {
			cs[i] = fmt.Sprintf("%s=%v", c.Name, c.Value)
		}
		sort.Strings(cs)
		b.WriteString("{" + strings.Join(cs, ",") + "}")
	}
	if len(m.Features) > 0 {
		b.WriteString("[" + strings.Join(m.Features, ",") + "]")
	}
	return b.String()
}

var (
	builtMu sync.Mutex
	built   = map[string]string{}
)

// Source returns the module's WGSL text, built on first use and cached.
func (m Module) Source() (string, error) {
	id := m.ID()
	builtMu.Lock()
	defer builtMu.Unlock()
	if s, ok := built[id]; ok {
		return s, nil
	}
	s, err := build(func(name string) (string, string, error) {
		at, file, err := m.resolve(name)
		if err != nil {
			return "", "", err
		}
		src, err := at.read(file)
		return at.label(file), src, err
	}, m.Files, m.Consts)
	if err != nil {
		return "", err
	}
	built[id] = s
	return s, nil
}

// build returns the text of files, read with read, with their includes
// resolved: every file, its includes first (depth first, in the order they
// are named), appears once, preceded by a comment naming it so that
// compiler messages can be traced to a file; the constants come first. An
// include cycle or a missing file is an error naming the chain.
// read returns the label of the file that stands for a name, and its text.
func build(read func(string) (string, string, error), names []string, consts []Const) (string, error) {
	var b strings.Builder
	if len(consts) > 0 {
		b.WriteString("// ---- prelude ----\n")
		for _, c := range consts {
			line, err := c.wgsl()
			if err != nil {
				return "", err
			}
			b.WriteString(line)
		}
	}
	done := map[string]bool{}
	active := map[string]bool{}
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		if done[name] {
			return nil
		}
		chain = append(chain, name)
		if active[name] {
			return fmt.Errorf("wgsl: include cycle %s", strings.Join(chain, " -> "))
		}
		active[name] = true
		file, src, err := read(name)
		if err != nil {
			if len(chain) > 1 {
				return fmt.Errorf("%w (included by %s)", err, strings.Join(chain[:len(chain)-1], " -> "))
			}
			return err
		}
		for _, dep := range includes(src) {
			if err := visit(dep, chain); err != nil {
				return err
			}
		}
		active[name] = false
		done[name] = true
		fmt.Fprintf(&b, "// ---- %s ----\n%s\n", file, src)
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// includes lists the files src names on its include lines, in order.
func includes(src string) []string {
	var deps []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, includeDirective); ok {
			if dep := strings.TrimSpace(rest); dep != "" {
				deps = append(deps, dep)
			}
		}
	}
	return deps
}
