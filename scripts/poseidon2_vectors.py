#!/usr/bin/env python3
"""Write testdata/poseidon2_goldilocks_w12.json from a Plonky3 checkout.

    python3 scripts/poseidon2_vectors.py PLONKY3_DIR COMMIT DATE > testdata/poseidon2_goldilocks_w12.json

PLONKY3_DIR is a checkout of github.com/Plonky3/Plonky3 at COMMIT, committed on
DATE (the JSON records both; the script does not check them). The script reads:

- goldilocks/src/poseidon2.rs: the width-12 round constants
  (GOLDILOCKS_POSEIDON2_RC_12_*), the internal diagonal
  (MATRIX_DIAG_12_GOLDILOCKS) and the official test vector
  (test_default_goldilocks_poseidon2_width_12), as literals;
- poseidon2/generate_constants.py, imported: its Grain LFSR regenerates the
  round constants (they must equal the Rust literals), and its reference
  permutation (big integers, dense matrices) computes the extra vectors,
  with the external matrix of p3-goldilocks (MDSMat4, not the script's
  default HLMDSMat4) and the diagonal above. It must reproduce the official
  vector first.

The sponge and compression vectors follow p3-symmetric's PaddingFreeSponge
<_, 12, 8, 4> and TruncatedPermutation<_, 2, 4, 12> (symmetric/src/sponge.rs,
symmetric/src/compression.rs), transcribed below on the Python permutation.
Nothing here is code of the Go package under test.
"""

import importlib.util
import json
import os
import random
import re
import sys

P = 2**64 - 2**32 + 1
WIDTH, RATE, OUT = 12, 8, 4
# MDSMat4 of poseidon2/src/external.rs (apply_mat4).
MAT4 = [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]]


def rust_array(src, name):
    """The integer literals of `pub const NAME ... = ...;` in src."""
    i = src.index("pub const " + name)
    i = src.index("= ", i)
    j = re.compile(r"^\]\)?;", re.M).search(src, i).start()
    return [int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", src[i:j])]


def rust_test_vector(src, test):
    """Input and expected output of the named width-12 test."""
    body = src[src.index("fn " + test) :]
    body = body[: body.index("assert_eq!")]
    inp = re.search(r"new_array\(\[([^\]]*)\]\)", body)
    inputs = [int(x, 0) for x in inp.group(1).replace(" ", "").split(",") if x]
    exp = body[body.index("let expected") :]
    outputs = [int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", exp)]
    return inputs, outputs


def main():
    root, commit, date = sys.argv[1], sys.argv[2], sys.argv[3]
    rs_path = os.path.join(root, "goldilocks/src/poseidon2.rs")
    py_path = os.path.join(root, "poseidon2/generate_constants.py")
    src = open(rs_path).read()
    spec = importlib.util.spec_from_file_location("p3_generate_constants", py_path)
    gc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gc)

    ei = rust_array(src, "GOLDILOCKS_POSEIDON2_RC_12_EXTERNAL_INITIAL")
    ef = rust_array(src, "GOLDILOCKS_POSEIDON2_RC_12_EXTERNAL_FINAL")
    internal = rust_array(src, "GOLDILOCKS_POSEIDON2_RC_12_INTERNAL")
    diag = rust_array(src, "MATRIX_DIAG_12_GOLDILOCKS")
    assert len(ei) == 48 and len(ef) == 48 and len(internal) == 22 and len(diag) == 12
    ei = [ei[12 * r : 12 * r + 12] for r in range(4)]
    ef = [ef[12 * r : 12 * r + 12] for r in range(4)]

    # The constants are the Grain LFSR's for t=12, R_F=8, R_P=22.
    r_f, r_p = gc.compute_round_numbers(P, WIDTH, 7, 128)
    assert (r_f, r_p) == (8, 22), (r_f, r_p)
    g_ei, g_int, g_ef = gc.generate_round_constants_poseidon2(gc.GrainLFSR(64, WIDTH, r_f, r_p), P, 64, WIDTH, r_f, r_p)
    assert (g_ei, g_int, g_ef) == (ei, internal, ef), "Rust constants differ from the Grain LFSR's"

    me = [[(2 if i // 4 == j // 4 else 1) * MAT4[i % 4][j % 4] for j in range(WIDTH)] for i in range(WIDTH)]

    def permute(state):
        return gc.poseidon2_permutation(list(state), me, diag, ei, internal, ef, 7, P, WIDTH)

    def sponge(els):
        # PaddingFreeSponge<_, 12, 8, 4>::hash_iter: overwrite the rate,
        # permute after each full block and after a partial last one.
        state = [0] * WIDTH
        i = 0
        for x in els:
            state[i] = x
            i += 1
            if i == RATE:
                state = permute(state)
                i = 0
        if i:
            state = permute(state)
        return state[:OUT]

    def compress(a, b):
        # TruncatedPermutation<_, 2, 4, 12>::compress.
        return permute(list(a) + list(b) + [0] * 4)[:OUT]

    test = "test_default_goldilocks_poseidon2_width_12"
    vin, vout = rust_test_vector(src, test)
    assert vin == list(range(12)) and len(vout) == 12, (vin, vout)
    assert permute(vin) == vout, "the Python permutation does not reproduce the official vector"

    rng = random.Random(20261124)

    def rand_el():
        k = rng.randrange(6)
        if k == 0:
            return P - 1 - rng.randrange(64)
        if k == 1:
            return rng.randrange(64)
        return rng.randrange(P)

    hx = lambda xs: ["0x%016x" % x for x in xs]
    perm_inputs = [[0] * 12, [P - 1] * 12, [1] + [0] * 11] + [[rand_el() for _ in range(12)] for _ in range(5)]
    computed = []
    for s in perm_inputs:
        computed.append({"fn": "permutation", "input": hx(s), "output": hx(permute(s))})
    merges = [([0] * 4, [0] * 4), ([P - 1] * 4, [P - 1] * 4)] + [([rand_el() for _ in range(4)], [rand_el() for _ in range(4)]) for _ in range(3)]
    for a, b in merges:
        out = compress(a, b)
        assert out == sponge(a + b)
        computed.append({"fn": "merge", "input": hx(a + b), "output": hx(out)})
    for m in [0, 1, 4, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25, 40]:
        els = [rand_el() for _ in range(m)]
        computed.append({"fn": "hash_elements", "input": hx(els), "output": hx(sponge(els))})

    doc = {
        "name": "Poseidon2 over Goldilocks, width 12 (Plonky3 p3-goldilocks default_goldilocks_poseidon2_12)",
        "source": {
            "repo": "Plonky3/Plonky3",
            "commit": commit,
            "commit_date": date,
            "files": [
                "goldilocks/src/poseidon2.rs",
                "poseidon2/src/external.rs",
                "poseidon2/src/internal.rs",
                "poseidon2/src/lib.rs",
                "poseidon2/generate_constants.py",
                "symmetric/src/sponge.rs",
                "symmetric/src/compression.rs",
            ],
            "constants": "GOLDILOCKS_POSEIDON2_RC_12_EXTERNAL_INITIAL, GOLDILOCKS_POSEIDON2_RC_12_EXTERNAL_FINAL, GOLDILOCKS_POSEIDON2_RC_12_INTERNAL, MATRIX_DIAG_12_GOLDILOCKS",
            "constants_note": "Round constants from the Grain LFSR (field_type=1, alpha=7, n=64, t=12, R_F=8, R_P=22), regenerated by this script with Plonky3's generate_constants.py and equal to the Rust literals. Before fe49e8262fbb9ef1afced0e11e40361c2a1c3139 (2026-03-10) Plonky3 had no fixed width-12 Goldilocks constants (Horizen Labs constants exist for width 8 only).",
            "generated_by": "scripts/poseidon2_vectors.py",
        },
        "field_modulus": str(P),
        "state_width": WIDTH,
        "rate": RATE,
        "digest_size": OUT,
        "alpha": 7,
        "full_rounds": r_f,
        "partial_rounds": r_p,
        "round_function": [
            "state = M_E * state",
            "4 times: state[i] += external_initial[r][i]; state[i] = state[i]^7; state = M_E * state",
            "22 times: state[0] += internal[r]; state[0] = state[0]^7; state[i] = sum(state) + matrix_diag_m1[i] * state[i]",
            "4 times: state[i] += external_final[r][i]; state[i] = state[i]^7; state = M_E * state",
        ],
        "mds4": MAT4,
        "external_matrix_note": "M_E = circ(2*M4, M4, M4) on the three 4-element blocks (mds_light_permutation with MDSMat4)",
        "external_initial": [hx(r) for r in ei],
        "external_final": [hx(r) for r in ef],
        "internal": hx(internal),
        "matrix_diag_m1": hx(diag),
        "sponge": "PaddingFreeSponge<Poseidon2Goldilocks<12>, 12, 8, 4>: state zero; each element overwrites state[i], i = 0..8 in turn; permute after every 8th and after a partial last block (no padding: lanes past it keep their values); digest state[0..4]. No elements: the zero digest.",
        "compression": "TruncatedPermutation<Poseidon2Goldilocks<12>, 2, 4, 12>: state = left || right || 0,0,0,0; permute; digest state[0..4].",
        "vectors": [
            {"fn": "permutation", "input": hx(vin), "output": hx(vout), "source": "goldilocks/src/poseidon2.rs " + test},
        ],
        "computed_vectors_note": "Computed by scripts/poseidon2_vectors.py with Plonky3's Python reference permutation (poseidon2/generate_constants.py poseidon2_permutation) and the sponge and compression of p3-symmetric transcribed on it; inputs from Python's random.Random(20261124). Not from Plonky3's Rust tests, which have no width-12 sponge or compression vectors.",
        "computed_vectors": computed,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
