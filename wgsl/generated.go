package wgsl

import (
	"bytes"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

// Generated is a file system of WGSL texts added at run time: files Go
// generates from data (a hash instance's round constants, unrolled),
// which no file in the tree could hold for an instance defined after the
// build. A Library over it (NewLibrary) names and includes them as it
// does embedded files, and a Library that builds on that one finds them
// by name. Its zero value is empty and ready; it is safe for concurrent
// use.
type Generated struct {
	mu    sync.RWMutex
	files map[string]string
}

// Add makes each text of srcs a file of its name. Adding a name again
// with the same text does nothing; a name added before with other text,
// or one that is not a shader file's (NAME.wgsl), is an error, and then
// none of srcs is added, since a module is identified by its files'
// names.
func (g *Generated) Add(srcs map[string]string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for name, src := range srcs {
		if !isShaderName(name) {
			return fmt.Errorf("wgsl: generated file %q: a shader file's name is NAME.wgsl", name)
		}
		if old, ok := g.files[name]; ok && old != src {
			return fmt.Errorf("wgsl: generated file %q added twice with different text", name)
		}
	}
	if g.files == nil {
		g.files = map[string]string{}
	}
	for name, src := range srcs {
		g.files[name] = src
	}
	return nil
}

// Open opens the generated file name (fs.FS).
func (g *Generated) Open(name string) (fs.File, error) {
	g.mu.RLock()
	src, ok := g.files[name]
	g.mu.RUnlock()
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &textFile{name: name, Reader: bytes.NewReader([]byte(src)), size: int64(len(src))}, nil
}

// textFile is an open generated file.
type textFile struct {
	name string
	*bytes.Reader
	size int64
}

func (f *textFile) Stat() (fs.FileInfo, error) { return textInfo{f}, nil }
func (f *textFile) Close() error               { return nil }

// textInfo describes a textFile.
type textInfo struct{ f *textFile }

func (i textInfo) Name() string       { return i.f.name }
func (i textInfo) Size() int64        { return i.f.size }
func (i textInfo) Mode() fs.FileMode  { return 0o444 }
func (i textInfo) ModTime() time.Time { return time.Time{} }
func (i textInfo) IsDir() bool        { return false }
func (i textInfo) Sys() any           { return nil }
