package wgpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wgcompute/wgcompute/wgpu"
)

// CheckTransferOptions accepts the zero values (the defaults) and the
// ranges it documents, refuses the rest naming the field and what is
// accepted, and Open applies it before it looks at an adapter.
func TestCheckTransferOptions(t *testing.T) {
	for _, ok := range []wgpu.TransferOptions{
		{},
		{SlotBytes: wgpu.MinSlotBytes, Slots: 1, Workers: 1},
		{SlotBytes: wgpu.MaxSlotBytes, Slots: wgpu.MaxSlots, Workers: 1000},
		{SlotBytes: 32 << 20, Slots: 2, MapWriteUploads: true},
	} {
		require.NoError(t, wgpu.CheckTransferOptions(ok), "%+v", ok)
	}
	for _, c := range []struct {
		t    wgpu.TransferOptions
		want string
	}{
		{wgpu.TransferOptions{SlotBytes: 1}, "TransferOptions.SlotBytes 1: accepted are 0 (the default, 32 MiB) and 65536 (64 KiB) to"},
		{wgpu.TransferOptions{SlotBytes: wgpu.MinSlotBytes - 1}, "TransferOptions.SlotBytes 65535"},
		{wgpu.TransferOptions{SlotBytes: wgpu.MaxSlotBytes + 1}, "TransferOptions.SlotBytes 68719476737"},
		{wgpu.TransferOptions{SlotBytes: 999999999 << 20}, "TransferOptions.SlotBytes 1048575998951424"},
		{wgpu.TransferOptions{Slots: -1}, "TransferOptions.Slots -1: accepted are 0 (the default, 2) to 64"},
		{wgpu.TransferOptions{Slots: 1000}, "TransferOptions.Slots 1000"},
		{wgpu.TransferOptions{Workers: -1}, "TransferOptions.Workers -1: accepted are 0 (the default"},
	} {
		err := wgpu.CheckTransferOptions(c.t)
		require.ErrorContains(t, err, c.want, "%+v", c.t)
		_, err = wgpu.Open(wgpu.Options{Backend: "vulkan", Transfer: c.t})
		require.ErrorContains(t, err, c.want, "Open, %+v", c.t)
		require.ErrorContains(t, wgpu.Options{Transfer: c.t}.Check(), c.want, "Check, %+v", c.t)
	}
}

// TestOptionsCheck: Check refuses what Open and sched.OpenGroup would, without
// opening anything.
func TestOptionsCheck(t *testing.T) {
	for _, o := range []wgpu.Options{{}, {Backend: "cpu"}, {Backend: "Vulkan"}, {Backend: "gl", Devices: "all"}, {Devices: "2"}, {Devices: "1,0"}} {
		require.NoError(t, o.Check(), "%+v", o)
	}
	for o, want := range map[wgpu.Options]string{
		{Backend: "bogus"}:               `wgpu: unknown backend "bogus": accepted are vulkan, gl, metal, dx12 (or cpu for the reference path)`,
		{Devices: "0,0"}:                 `wgpu: devices "0,0": adapter 0 is named twice; accepted: "all", a count N, or distinct adapter indices separated by commas ("0,1")`,
		{Backend: "cpu", Devices: "1,1"}: "adapter 1 is named twice",
		{Devices: "0"}:                   "a count must be at least 1",
		{Devices: "0,x"}:                 `"x" is not an adapter index`,
	} {
		require.ErrorContains(t, o.Check(), want, "%+v", o)
	}
}
