// Package sched is the scheduling layer above package wgpu's devices:
// how work is cut and spread, never how a device is driven.
//
//   - Item-parallel work on one device: a Job (count items through the
//     kernels of each piece) is run by a Runner, which sizes pieces from
//     the device's limits (PieceItems), overlaps one piece's transfers
//     with the previous piece's kernels, keeps each submission near
//     SubmitTarget and sums the timings; Run is the one-shot form.
//   - Several devices at once: a Group (OpenGroup, Open over a
//     wgpu.Choice, NewGroup) splits work over its members (Split, Each,
//     Deal), decides how many pay for their fixed costs (Fit, FitFor,
//     SplitPays, FastestCount) from what they measured (UploadRates,
//     Learn, KernelTimes), and warms them (Warm).
//   - Targets: every algorithm takes one wgpu.Target (a *wgpu.Context, a
//     *Group or nil for the CPU) and reads it through GroupOf, Device and
//     OneDevice.
//
// It imports wgpu and nothing above it; wgpu never imports it.
package sched
