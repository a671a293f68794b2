package wgpu

import (
	"errors"
	"testing"

	gpu "github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stretchr/testify/require"
)

// TestInstanceBackends: a named backend's instance holds that backend
// alone (opening Vulkan never initialises EGL); no backend is every one.
func TestInstanceBackends(t *testing.T) {
	for name, want := range map[string]uint64{
		"vulkan": uint64(backendVulkan), "VK": uint64(backendVulkan), "gl": uint64(backendGL), "gles": uint64(backendGL),
		"metal": uint64(backendMetal), "dx12": uint64(backendDX12), "d3d12": uint64(backendDX12),
		"": uint64(backendVulkan | backendMetal | backendDX12 | backendBrowser | backendGL),
	} {
		got, err := instanceBackends(name)
		require.NoError(t, err, name)
		require.Equal(t, want, uint64(got), "backend %q", name)
	}
	_, err := instanceBackends("webgpu")
	require.ErrorContains(t, err, `unknown backend "webgpu": accepted are vulkan, gl, metal, dx12`)
}

// TestPrimarySuffices: Open skips GL's instance only where the primary
// backends' first adapter is one no GL adapter outranks, whatever the GL
// adapter's type or driver.
func TestPrimarySuffices(t *testing.T) {
	types := []string{"discrete", "integrated", "cpu", "unknown"}
	for _, typ := range types {
		for _, unusable := range []string{"", "no compute"} {
			first := AdapterInfo{Backend: "vulkan", Type: typ, Unusable: unusable}
			if !primarySuffices(first) {
				continue
			}
			for _, glType := range types {
				gl := AdapterInfo{Backend: "gl", Type: glType}
				require.Less(t, rank(first), rank(gl), "a %s GL adapter would be chosen before a %s %s one", glType, typ, first.Backend)
			}
		}
	}
	require.True(t, primarySuffices(AdapterInfo{Backend: "vulkan", Type: "discrete"}))
	for _, a := range []AdapterInfo{{Type: "integrated"}, {Type: "cpu"}, {Type: "discrete", Unusable: "no compute"}} {
		require.False(t, primarySuffices(a), "%+v", a)
	}
}

// TestMergedEqualsOneInstance: every backend's adapters, listed from the
// primary backends' instance and GL's apart, are those one instance of
// all lists, in the same order with the same indices.
func TestMergedEqualsOneInstance(t *testing.T) {
	key, err := instanceKeyOf(Options{})
	require.NoError(t, err)
	require.Equal(t, backendPrimary|backendGL, key.backends)
	inst, err := createInstance(key.backends, key.minor)
	require.NoError(t, err)
	_, want := enumerate(inst, key.backends) // never released: see enumeration
	e := instanceOf(key)
	require.NoError(t, e.err)
	require.Len(t, e.adapters, len(e.infos))
	require.Equal(t, want, e.infos)
	if len(want) < 2 {
		t.Logf("only %d adapters here: the order is not tested", len(want))
	}
}

// TestOneBackendIsPrimaryFiltered: a primary backend named alone lists
// what its own instance would, taken from the primary instance, which is
// not made a second time.
func TestOneBackendIsPrimaryFiltered(t *testing.T) {
	key, err := instanceKeyOf(Options{Backend: "vulkan"})
	require.NoError(t, err)
	inst, err := createInstance(backendVulkan, key.minor)
	require.NoError(t, err)
	_, want := enumerate(inst, backendVulkan) // never released: see enumeration
	got, err := Adapters(Options{Backend: "vulkan"})
	require.NoError(t, err)
	require.Equal(t, want, got)
	enumMu.Lock()
	_, own := enumerations[key]
	_, primary := enumerations[instanceKey{backendPrimary, key.minor}]
	enumMu.Unlock()
	require.False(t, own, "a Vulkan instance of its own was made")
	require.True(t, primary, "the primary instance was not made")
	if len(want) == 0 {
		t.Log("no Vulkan adapter here: the listing is not tested")
	}
}

// TestMergedKeepsWhatListed: a backend that could not be listed (a broken
// GL driver) leaves the other's adapters, ranked and indexed; both
// failing names both errors.
func TestMergedKeepsWhatListed(t *testing.T) {
	vk := &enumeration{adapters: make([]*gpu.Adapter, 2), infos: []AdapterInfo{{Name: "gpu", Backend: "vulkan", Type: "discrete"}, {Name: "lavapipe", Backend: "vulkan", Type: "cpu", Index: 1}}}
	glErr := &enumeration{err: errors.New("no EGL")}
	vkErr := &enumeration{err: errors.New("no loader")}
	for _, e := range []*enumeration{merged(vk, glErr), merged(glErr, vk)} {
		require.NoError(t, e.err)
		require.Equal(t, vk.infos, e.infos)
	}
	e := merged(vkErr, glErr)
	require.ErrorContains(t, e.err, "no loader")
	require.ErrorContains(t, e.err, "no EGL")
	both := merged(vk, &enumeration{adapters: make([]*gpu.Adapter, 1), infos: []AdapterInfo{{Name: "llvmpipe", Backend: "gl", Type: "cpu"}}})
	require.Equal(t, []string{"gpu", "lavapipe", "llvmpipe"}, []string{both.infos[0].Name, both.infos[1].Name, both.infos[2].Name})
	require.Equal(t, 2, both.infos[2].Index)
}
