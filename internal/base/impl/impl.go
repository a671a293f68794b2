// Package impl is the registry of kernel variants: the alternatives that
// exist to be measured against each other (a dense MDS product, round
// constants in memory) and that users never choose. Like the standard
// library's crypto/internal/impl, a package registers its variants when
// it is initialised, and the benchmarks, the self-test, the command
// line's --variant and the tests list and force them; the public API
// runs the default.
package impl

import (
	"fmt"
	"slices"
	"sync"
)

// Variant is one registered variant: its name and the value that runs it
// (for a batch family, the *batch.Family of that variant).
type Variant struct {
	Name string
	Impl any
}

var (
	mu       sync.Mutex
	registry = map[string][]Variant{}
)

// Register records the variants of hash, the default first. A second
// registration of the same hash replaces the first.
func Register(hash string, vs []Variant) {
	mu.Lock()
	defer mu.Unlock()
	registry[hash] = slices.Clone(vs)
}

// List returns the names of hash's variants, the default first, or nil
// for a hash that registered none.
func List(hash string) []string {
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for _, v := range registry[hash] {
		names = append(names, v.Name)
	}
	return names
}

// Select returns the value of hash's variant named name, or an error
// naming the accepted names.
func Select[T any](hash, name string) (T, error) {
	mu.Lock()
	vs := registry[hash]
	mu.Unlock()
	var zero T
	if len(vs) == 0 {
		return zero, fmt.Errorf("%s: no kernel variants registered", hash)
	}
	for _, v := range vs {
		if v.Name != name {
			continue
		}
		t, ok := v.Impl.(T)
		if !ok {
			return zero, fmt.Errorf("%s: variant %s is a %T, not a %T", hash, name, v.Impl, zero)
		}
		return t, nil
	}
	return zero, fmt.Errorf("%s: unknown variant %q: accepted are %v", hash, name, List(hash))
}

// All returns the values of every variant of hash in order, as Select
// would return them.
func All[T any](hash string) ([]T, error) {
	var out []T
	for _, name := range List(hash) {
		t, err := Select[T](hash, name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
