//go:build !linux

package cli

// AllocWords returns n zero uint32 and the function that frees them: a
// slice of the Go heap, which the runtime frees (huge pages are asked for
// on Linux alone).
func AllocWords(n int) ([]uint32, func(), error) {
	return make([]uint32, n), func() {}, nil
}
