package wgsl

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Library is a set of shader files that modules are built from: the files
// one package embeds, and the libraries its files may include from.
// A file's name (an include line's, a Module's Files) is looked up on the
// library's path, the library itself and then each library it builds on
// (theirs after them, depth first, each once); a name must be held by one
// library of the path only, so no file quietly stands in for another.
type Library struct {
	// name prefixes its modules' IDs and its files' labels; "" for Shared,
	// whose modules' IDs are their files alone. Unique in the process.
	name string
	fsys fs.FS
	deps []*Library
	// read returns the text of one of the library's own files, and an
	// error for a name it does not hold.
	read func(name string) (string, error)
}

// Shared is the library of this package's files, which Source reads: the
// fields' arithmetic and what several packages include (the hash
// constructions are their packages' own libraries). Shared.Source(name)
// is Source(name).
var Shared = register("", &Library{fsys: files, read: Source})

var (
	libsMu sync.Mutex
	libs   []*Library // every library registered, in order
	taken  = map[string]bool{}
)

// NewLibrary returns the library of the .wgsl files at the top of fsys,
// named name, whose files may include those of deps (and of what deps build
// on). name is the folder of the files from the module's root, as in
// "algos/vortex": it names the library's files in compiled text
// ("algos/vortex/vortex.wgsl") and prefixes the IDs of its modules
// ("algos/vortex:vortex.wgsl"), so that a module is told apart from
// another package's of the same file name wherever modules are cached by
// ID. A name already taken (or empty) is made unique with a suffix.
func NewLibrary(name string, fsys fs.FS, deps ...*Library) *Library {
	if name == "" {
		name = "library"
	}
	return register(name, newLibrary(fsys, deps))
}

// NewSubLibrary is NewLibrary of the folder dir of fsys: the library of
// the files a package embeds from a folder of its own
// (//go:embed measured/*.wgsl), such as its kernel variants kept only to
// be measured, named as that folder ("algos/rescue/measured"). An invalid
// dir (fs.ValidPath) makes a library that holds no file.
func NewSubLibrary(name string, fsys fs.FS, dir string, deps ...*Library) *Library {
	return NewLibrary(name, subFS(fsys, dir), deps...)
}

// subFS returns the folder dir of fsys, or an empty file system where dir
// is not a valid path, fs.Sub's one error.
func subFS(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return embed.FS{} // holds nothing
	}
	return sub
}

// newLibrary returns the unnamed library of fsys's .wgsl files.
func newLibrary(fsys fs.FS, deps []*Library) *Library {
	l := &Library{fsys: fsys}
	l.read = func(name string) (string, error) {
		if !isShaderName(name) {
			return "", fmt.Errorf("wgsl: %q is not a shader file's name (NAME.wgsl)", name)
		}
		b, err := fs.ReadFile(fsys, name)
		return string(b), err
	}
	for _, d := range deps {
		if d != nil {
			l.deps = append(l.deps, d)
		}
	}
	return l
}

// isShaderName reports whether name is a shader file's name in a
// library's root: NAME.wgsl, no folder.
func isShaderName(name string) bool {
	return strings.HasSuffix(name, ".wgsl") && !strings.Contains(name, "/") && fs.ValidPath(name)
}

// register names l, uniquely, and records it.
func register(name string, l *Library) *Library {
	libsMu.Lock()
	defer libsMu.Unlock()
	if name == "" {
		taken["wgsl"] = true // Shared's String
	} else {
		base := name
		for i := 2; taken[name]; i++ {
			name = base + "#" + strconv.Itoa(i)
		}
		taken[name] = true
	}
	l.name = name
	libs = append(libs, l)
	return l
}

// String names the library: "wgsl" for Shared, else the name it was made with.
func (l *Library) String() string {
	if l.name == "" {
		return "wgsl"
	}
	return l.name
}

// label names file of l in compiled text and error messages.
func (l *Library) label(file string) string {
	if l.name == "" {
		return file
	}
	return path.Join(l.name, file)
}

// holds reports whether name is one of l's own files.
func (l *Library) holds(name string) bool {
	_, err := l.read(name)
	return err == nil
}

// path returns l and the libraries it builds on, depth first, each once.
func (l *Library) path() []*Library {
	var out []*Library
	seen := map[*Library]bool{}
	var walk func(*Library)
	walk = func(x *Library) {
		if seen[x] {
			return
		}
		seen[x] = true
		out = append(out, x)
		for _, d := range x.deps {
			walk(d)
		}
	}
	walk(l)
	return out
}

// find returns the library on l's path that holds the file name.
func (l *Library) find(name string) (*Library, error) {
	var at *Library
	var names []string
	for _, x := range l.path() {
		names = append(names, x.String())
		if !x.holds(name) {
			continue
		}
		if at != nil {
			return nil, fmt.Errorf("wgsl: %s is both %s and %s: a file's name must be held by one library of a module's path", name, at.label(name), x.label(name))
		}
		at = x
	}
	if at == nil {
		return nil, fmt.Errorf("wgsl: no embedded shader %q in %s", name, strings.Join(names, ", "))
	}
	return at, nil
}

// Source returns the text of the named shader file, for example
// "goldilocks.wgsl", as l's modules read it (l's own file, or one of the
// libraries it builds on), include lines untouched. It returns an error
// for a name that none of them holds.
func (l *Library) Source(name string) (string, error) {
	at, err := l.find(name)
	if err != nil {
		return "", err
	}
	return at.read(name)
}
