package wgpu

// Grid returns the workgroup counts for a 1-D job of invocations threads in
// workgroups of workgroupSize, spilling into y once x reaches maxPerDim
// (65535 on every adapter we have met). A kernel recovers its linear index as
//
//	let i = gid.x + gid.y * nwg.x * WORKGROUP_SIZE;
//
// (gid = global_invocation_id, nwg = num_workgroups) and must ignore i past
// its count, since the grid rounds up.
func Grid(invocations uint64, workgroupSize, maxPerDim uint32) [3]uint32 {
	if invocations == 0 {
		return [3]uint32{0, 1, 1}
	}
	groups := (invocations + uint64(workgroupSize) - 1) / uint64(workgroupSize)
	if groups <= uint64(maxPerDim) {
		return [3]uint32{uint32(groups), 1, 1}
	}
	y := (groups + uint64(maxPerDim) - 1) / uint64(maxPerDim)
	x := (groups + y - 1) / y
	return [3]uint32{uint32(x), uint32(y), 1}
}

// Grid is the package-level Grid with this device's dimension limit.
func (c *Context) Grid(invocations uint64, workgroupSize uint32) [3]uint32 {
	return Grid(invocations, workgroupSize, c.info.Limits.MaxWorkgroupsPerDimension)
}
