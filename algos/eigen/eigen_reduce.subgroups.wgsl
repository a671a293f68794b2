// eigen_reduce.wgsl on devices with subgroup operations: the same
// functions, the same results to the bit. naga (wgpu-native 29) takes the
// subgroup builtins without an enable directive where the device has the
// feature, and rejects `enable subgroups;`, which Tint (Chrome) requires:
// no one text serves both, so a browser build is to decline the feature and
// run eigen_reduce.wgsl (docs/PORTABILITY.md). The trees' levels whose stride is
// at least the subgroup size run in workgroup memory as there; the rest run
// inside every subgroup on the first subgroup-size partial values, by
// subgroupShuffleDown: lane i adds lane i + k's value to its own, the same
// addition, with the same operands in the same order, that the workgroup
// tree makes for i < k (lanes i >= k compute values nothing reads). Each
// subgroup reduces those values itself, indexed by its own lane numbers
// (an exclusive scan of ones), so nothing assumes how invocations are
// grouped into subgroups, and every invocation takes the total from its own
// subgroup's first lane. The subgroup size is made workgroup-uniform through
// workgroup memory, as the barriers need, in the load that stands for the
// first barrier. A subgroup larger than half the workgroup (never seen)
// runs every level in workgroup memory. Sizes are powers of two.
// Library only: sh, sh_f and WG are eigen.wgsl's.

var<workgroup> wg_low: u32;

// first_shared_level returns the smallest stride the workgroup levels
// take: the subgroup size, or 1 where a subgroup would span more than half
// the workgroup. Called in uniform control flow after the partial values
// are stored; it is the barrier that publishes them.
fn first_shared_level(lid: u32) -> u32 {
	let sg = subgroupAdd(1u);
	if (lid == 0u) {
		wg_low = select(sg, 1u, sg > WG / 2u);
	}
	return workgroupUniformLoad(&wg_low);
}

fn sum_tree(lid: u32, x: f32) -> f32 {
	sh_f[lid] = x;
	let low = first_shared_level(lid);
	for (var k = WG / 2u; k >= low; k >>= 1u) {
		if (lid < k) {
			sh_f[lid] += sh_f[lid + k];
		}
		workgroupBarrier();
	}
	var t = sh_f[subgroupExclusiveAdd(1u)];
	for (var k = low / 2u; k > 0u; k >>= 1u) {
		t = t + subgroupShuffleDown(t, k);
	}
	let total = subgroupBroadcastFirst(t);
	workgroupBarrier();
	return total;
}

fn max_tree(lid: u32, x: u32) -> u32 {
	sh[lid] = x;
	let low = first_shared_level(lid);
	for (var k = WG / 2u; k >= low; k >>= 1u) {
		if (lid < k) {
			sh[lid] = max(sh[lid], sh[lid + k]);
		}
		workgroupBarrier();
	}
	var m = sh[subgroupExclusiveAdd(1u)];
	if (low > 1u) {
		m = subgroupMax(m);
	}
	m = subgroupBroadcastFirst(m);
	workgroupBarrier();
	return m;
}
