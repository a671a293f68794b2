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
