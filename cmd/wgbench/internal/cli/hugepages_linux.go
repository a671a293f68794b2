package cli

import (
	"fmt"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on x86-64 and arm64
// with 4 KiB pages.
const hugePage = 2 << 20

// AllocWords returns n zero uint32 in memory of their own, outside the Go
// heap, in transparent huge pages where the kernel allows them
// (MADV_HUGEPAGE; /sys/kernel/mm/transparent_hugepage/enabled "madvise"
// or "always"), and the function that frees them. A gigabyte input read
// into 4 KiB pages takes a page fault every 4 KiB while it is read and as
// many pages to free when the process exits, one core doing all of that;
// in huge pages both are 512 times fewer. The memory is the mapping's
// alone: the Go runtime neither scans nor frees it.
func AllocWords(n int) ([]uint32, func(), error) {
	if n == 0 {
		return nil, func() {}, nil
	}
	size := 4 * n
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot map %d bytes of memory for the input: %w", size, err)
	}
	// Huge pages are aligned: the words start at the first boundary.
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugePage - 1))
	b := m[off : off+size]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // only advice: 4 KiB pages serve too
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	return words, func() { _ = syscall.Munmap(m) }, nil
}
