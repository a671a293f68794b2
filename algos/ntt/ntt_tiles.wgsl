// ntt.wgsl's output cut into 2^NT_TILES_LOG column tiles of 2^out_log
// columns each, each tile bound apart (Go: a tiled output's last pass,
// Extender.TileDispatches): column c of output row r goes to tile c >>
// out_log, at r·2^out_log + c mod 2^out_log. Tile 0 is nt_data; tiles 1
// to 7 follow binding 4 (ntt_check.wgsl's, or unused), and the uniform
// follows them (NT_PARAMS_AT = 12). Tiles from 2^NT_TILES_LOG on are
// bound but never written.
//
// Only the last round of a DIT pass on a row's top four bits writes
// tiles (Go checks that the last pass is one): its element x lies in
// tile x >> (4 - NT_TILES_LOG), a constant of each of its sixteen stores
// (nt_slot), so that each store names its binding outright. A tile
// chosen from the column's index in every store (a switch the compiler
// cannot resolve) made the encoding slower than writing whole rows and
// copying them (BENCHMARKS.md).

@group(0) @binding(5) var<storage, read_write> nt_tile1: array<u32>;
@group(0) @binding(6) var<storage, read_write> nt_tile2: array<u32>;
@group(0) @binding(7) var<storage, read_write> nt_tile3: array<u32>;
@group(0) @binding(8) var<storage, read_write> nt_tile4: array<u32>;
@group(0) @binding(9) var<storage, read_write> nt_tile5: array<u32>;
@group(0) @binding(10) var<storage, read_write> nt_tile6: array<u32>;
@group(0) @binding(11) var<storage, read_write> nt_tile7: array<u32>;

// nt_put writes element i of the output, r·2^out_log + c for column c
// of row r (c from slot·2^out_log, the tile's first column, up: the
// index runs on past the row's tile), into tile slot.
fn nt_put(i: u32, slot: u32, v: NtElem) {
	let j = (i - (slot << nt.out_log)) * NE_WORDS;
	for (var h = 0u; h < NE_WORDS; h++) {
		let w = ne_word(v, h);
		switch slot {
			case 0u: {
				nt_data[j + h] = w;
			}
			case 1u: {
				nt_tile1[j + h] = w;
			}
			case 2u: {
				nt_tile2[j + h] = w;
			}
			case 3u: {
				nt_tile3[j + h] = w;
			}
			case 4u: {
				nt_tile4[j + h] = w;
			}
			case 5u: {
				nt_tile5[j + h] = w;
			}
			case 6u: {
				nt_tile6[j + h] = w;
			}
			default: {
				nt_tile7[j + h] = w;
			}
		}
	}
}
