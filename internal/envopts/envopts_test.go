package envopts

import (
	"os"
	"strings"
	"testing"
)

// Load translates the process's variables, refuses a bad one, and sets
// XDG_RUNTIME_DIR where it is unset.
func TestLoad(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("WGCOMPUTE_ADAPTER", "H100")
	env, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if env.Options.Adapter != "H100" {
		t.Errorf("WGCOMPUTE_ADAPTER=H100 gave Adapter %q", env.Options.Adapter)
	}
	if os.Getenv("XDG_RUNTIME_DIR") != os.TempDir() {
		t.Errorf("XDG_RUNTIME_DIR = %q, want %q", os.Getenv("XDG_RUNTIME_DIR"), os.TempDir())
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1")
	t.Setenv("WGCOMPUTE_SUBGROUPS", "maybe")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), `WGCOMPUTE_SUBGROUPS="maybe"`) {
		t.Errorf("WGCOMPUTE_SUBGROUPS=maybe: error %v", err)
	}
	if os.Getenv("XDG_RUNTIME_DIR") != "/run/user/1" {
		t.Errorf("a set XDG_RUNTIME_DIR was changed to %q", os.Getenv("XDG_RUNTIME_DIR"))
	}
}
