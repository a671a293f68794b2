package sched_test

import (
	"os"
	"testing"

	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

func TestMain(m *testing.M) {
	os.Exit(gputest.Main(m))
}

// text is a WGSL module given as its text.
type text struct{ id, src string }

func (t text) ID() string              { return "test:" + t.id }
func (t text) Source() (string, error) { return t.src, nil }
