// The transpose of a rows × cols matrix of elements of TR_WORDS words
// each (1: a 31-bit field's, 2: Goldilocks'), stored row by row.
//
// Plain-Go meaning: for r < rows { for c < cols { dst[c*rows + r] = src[r*cols + c] } }
//
// A workgroup moves one 32 × 32 tile through workgroup memory, so that
// both its reads and its writes are runs of 32 consecutive elements; the
// tile's rows are padded by one element against bank conflicts.

@group(0) @binding(0) var<storage, read> tr_src: array<u32>;
@group(0) @binding(1) var<storage, read_write> tr_dst: array<u32>;

struct TrParams {
	rows: u32,
	cols: u32,
}
@group(0) @binding(2) var<uniform> tr_p: TrParams;

const TR_SIDE: u32 = 32u;
const TR_PITCH: u32 = 33u;

var<workgroup> tr_tile: array<u32, 1056u * TR_WORDS>; // TR_SIDE × TR_PITCH elements

@compute @workgroup_size(32, 8)
fn tr_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
	@builtin(local_invocation_id) lid: vec3<u32>) {
	let across = (tr_p.cols + TR_SIDE - 1u) / TR_SIDE;
	let tile = wid.x + wid.y * nwg.x;
	let tr = tile / across;
	if (tr * TR_SIDE >= tr_p.rows) {
		return; // past the last tile: the grid's rounding
	}
	let tc = tile % across;
	for (var i = lid.y; i < TR_SIDE; i += 8u) {
		let r = tr * TR_SIDE + i;
		let c = tc * TR_SIDE + lid.x;
		if (r < tr_p.rows && c < tr_p.cols) {
			for (var w = 0u; w < TR_WORDS; w++) {
				tr_tile[(i * TR_PITCH + lid.x) * TR_WORDS + w] = tr_src[(r * tr_p.cols + c) * TR_WORDS + w];
			}
		}
	}
	workgroupBarrier();
	for (var i = lid.y; i < TR_SIDE; i += 8u) {
		let c = tc * TR_SIDE + i;
		let r = tr * TR_SIDE + lid.x;
		if (r < tr_p.rows && c < tr_p.cols) {
			for (var w = 0u; w < TR_WORDS; w++) {
				tr_dst[(c * tr_p.rows + r) * TR_WORDS + w] = tr_tile[(lid.x * TR_PITCH + i) * TR_WORDS + w];
			}
		}
	}
}
