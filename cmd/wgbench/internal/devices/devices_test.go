package devices

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu/gputest"
)

// adapterJSON holds the fields of devices --json that scripts read; JSON
// field names match case-insensitively.
type adapterJSON struct {
	Index    int      `json:"index"`
	Name     string   `json:"name"`
	Backend  string   `json:"backend"`
	Type     string   `json:"type"`
	Features []string `json:"features"`
	Unusable string   `json:"unusable"`
	// Timestamps and Period: with --tick, every adapter that can run
	// kernels and has timestamps is listed with its device's tick.
	Timestamps bool    `json:"timestamps"`
	Period     float64 `json:"timestamp_period_ns"`
	Limits     struct {
		MaxStorageBindingSize uint64 `json:"max_storage_binding_size"`
	} `json:"limits"`
}

func listAdapters(t *testing.T, args ...string) []adapterJSON {
	t.Helper()
	stdout, _, err := wgbench(t, append([]string{"devices", "--json"}, args...)...)
	require.NoError(t, err)
	var as []adapterJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &as), stdout)
	return as
}

func TestDevicesJSON(t *testing.T) {
	all := listAdapters(t, "--tick")
	require.NotEmpty(t, all, "no adapter: this machine should have Mesa's lavapipe and llvmpipe")
	backends := map[string]bool{}
	for i, a := range all {
		require.Equal(t, i, a.Index, "adapters are listed in index order")
		require.NotEmpty(t, a.Name, "adapter %d has no name", i)
		require.NotEmpty(t, a.Backend, "adapter %d has no backend", i)
		require.Contains(t, []string{"discrete", "integrated", "cpu", "unknown"}, a.Type, "adapter %d", i)
		require.NotZero(t, a.Limits.MaxStorageBindingSize, "adapter %d", i)
		if a.Timestamps && a.Unusable == "" {
			require.Positive(t, a.Period, "adapter %d has timestamps but no tick", i)
		}
		backends[a.Backend] = true
	}
	for _, b := range gputest.Backends() {
		require.True(t, backends[b], "no %s adapter among %+v", b, all)
		only := listAdapters(t, "--backend", b)
		for _, a := range only {
			require.Zero(t, a.Period, "without --tick, devices opens no device for the period")
		}
		require.NotEmpty(t, only)
		for _, a := range only {
			require.Equal(t, b, a.Backend, "--backend %s listed another backend", b)
		}
	}

	stdout, _, err := wgbench(t, "devices", "--json", "--backend", "cpu")
	require.NoError(t, err)
	require.Equal(t, "[]\n", stdout, "the CPU path has no adapters, but the JSON is still a list")
}

func TestDevicesTable(t *testing.T) {
	plain, _, err := wgbench(t, "devices")
	require.NoError(t, err)
	require.Regexp(t, `^INDEX +NAME +BACKEND +TYPE +DRIVER +TIMESTAMPS +MAX BINDING +MAX BUFFER +WG STORAGE +FEATURES\n`, plain, "without --tick, no TICK column")
	stdout, _, err := wgbench(t, "devices", "--tick")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.Regexp(t, `^INDEX +NAME +BACKEND +TYPE +DRIVER +TIMESTAMPS +TICK +MAX BINDING +MAX BUFFER +WG STORAGE +FEATURES$`, lines[0])
	all := listAdapters(t, "--tick")
	// A row per adapter, then a note per adapter that cannot run kernels
	// (NVIDIA's GL adapter on wgpu-native 29).
	notes := []string{}
	for _, a := range all {
		if a.Unusable != "" {
			notes = append(notes, fmt.Sprintf("adapter %d cannot run kernels: %s", a.Index, a.Unusable))
		}
	}
	require.Equal(t, notes, lines[1+len(all):])
	for i, a := range all {
		require.Equal(t, strconv.Itoa(a.Index), strings.Fields(lines[i+1])[0])
		require.Contains(t, lines[i+1], a.Name)
		require.Contains(t, lines[i+1], "  "+a.Backend+"  ")
		require.Regexp(t, ` \d+ KiB +\S+$`, lines[i+1], "workgroup storage and features columns")
		if a.Timestamps && a.Unusable == "" {
			require.Regexp(t, `  true +[0-9.e+-]+ ns  `, lines[i+1], "timestamps and tick columns")
		}
		if len(a.Features) > 0 {
			require.True(t, strings.HasSuffix(lines[i+1], strings.Join(a.Features, ",")), lines[i+1])
		}
	}

	stdout, _, err = wgbench(t, "devices", "--backend", "cpu")
	require.NoError(t, err)
	require.Contains(t, stdout, "The CPU backend has no adapters: b3sum, rescue, rpo, poseidon2, poseidon2-gnark, merkle and eigen run")
}

func TestDevicesBadBackend(t *testing.T) {
	for _, args := range [][]string{{"devices", "--backend", "nope"}, {"devices", "--json", "--backend", "nope"}} {
		stdout, _, err := wgbench(t, args...)
		require.Error(t, err, "%q", args)
		require.Empty(t, stdout)
		for _, w := range []string{`unknown backend "nope"`, "vulkan, gl, metal, dx12", "cpu"} {
			require.Contains(t, err.Error(), w, "%q", args)
		}
	}
	_, _, err := wgbench(t, "devices", "extra")
	require.ErrorContains(t, err, `unknown command "extra"`)
}

// TestDevicesAdapter checks that --adapter narrows the list to the adapter
// it chooses, as every other command would open it, and that an adapter
// that does not exist is an error naming the ones that do.
func TestDevicesAdapter(t *testing.T) {
	all := listAdapters(t)
	require.NotEmpty(t, all)
	for _, a := range all {
		require.Equal(t, []adapterJSON{a}, listAdapters(t, "--adapter", strconv.Itoa(a.Index)), "--adapter %d", a.Index)
	}
	// A name matches by substring, in any case: the first adapter that has it.
	require.Equal(t, all[:1], listAdapters(t, "--adapter", strings.ToUpper(all[0].Name[:4])))
	for _, b := range gputest.Backends() {
		only := listAdapters(t, "--backend", b)
		require.Equal(t, only[:1], listAdapters(t, "--backend", b, "--adapter", "0"), "--backend %s --adapter 0", b)
	}

	stdout, _, err := wgbench(t, "--adapter", "0", "devices")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	require.Regexp(t, `^INDEX +NAME`, lines[0])
	require.Equal(t, "0", strings.Fields(lines[1])[0])
	for _, l := range lines[2:] {
		require.True(t, strings.HasPrefix(l, "adapter 0 "), "only adapter 0 is listed: %q", l)
	}

	missing := strconv.Itoa(max(7, len(all)))
	for _, args := range [][]string{{"--adapter", missing, "devices"}, {"devices", "--json", "--adapter", missing}, {"devices", "--adapter", "no such adapter"}} {
		stdout, _, err := wgbench(t, args...)
		require.Error(t, err, "%q", args)
		require.Empty(t, stdout, "%q", args)
		name := missing
		if args[len(args)-1] != missing && args[len(args)-1] != "devices" {
			name = args[len(args)-1]
		}
		require.ErrorContains(t, err, "no adapter matches "+strconv.Quote(name), "%q", args)
		require.ErrorContains(t, err, "adapters are: 0: "+all[0].Name, "%q", args)
	}
}
