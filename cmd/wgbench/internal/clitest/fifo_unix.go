//go:build unix

package clitest

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fifo makes a FIFO at path and writes data into it once a reader opens
// it; at the end of the test an unopened FIFO is opened to let the writer
// go.
func Fifo(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		os.Remove(path)
	})
}
