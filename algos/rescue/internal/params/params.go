// Package params holds the Rp64_256 round constants (winterfell's Rescue
// Prime over the Goldilocks field) once, for the Go reference and for the
// generator of the WGSL constants file, so that the two cannot drift
// apart. What RPO256 shares with it (the MDS matrix, the widths, the
// inverse S-box exponent) is in package rescueprime.
package params

import "github.com/wgcompute/wgcompute/algos/internal/rescueprime"

// Rounds is the number of Rescue rounds.
const Rounds = rescueprime.Rounds

// Width is the state width: 4 capacity elements then 8 rate elements.
const Width = rescueprime.Width

// ARK1 are the constants added after the forward half-round, one row per round.
var ARK1 = [Rounds][Width]uint64{
	{0xc12511fe3f05bc93, 0xde138177d4bc8d50, 0x41a41133ed513bab, 0x8b9b358bf1541407, 0x8811ac5b71f566fc, 0xd96b7b8d6eb551ed, 0x8cde21b6e08fab9f, 0xbd202d5ecae6b667, 0x203fbf544d885590, 0x08898687fec7d215, 0x7b1ae5ead4f885b7, 0x9230e13f804371c8},
	{0xca3aae98583875b2, 0x83150d8142c884af, 0x5b1e6a10ac7929b6, 0xafcc3ccaa7f1687f, 0x63d572fefbe31a88, 0xa4cbce92b20eecba, 0xf881f994b450b291, 0x112b95fd4afa6d29, 0x5ec89de8dd3749ef, 0x1db2d98ba5c8bf25, 0x168af46ab08a5719, 0x00b506fcc319607e},
	{0xe20ade8256ca1c4d, 0xb8810f1ea71e24d8, 0xb98de6597b3be5a0, 0x087c9a49334ec939, 0xb28a72e84b1411cb, 0xaa460370410f62ff, 0x7239e665c1d9ad88, 0xbae2f135b2d28670, 0x8d3bed3d779b93c0, 0xcf7e41c71dd1769d, 0x51a28102cd3daa49, 0xfb897286aeea1585},
	{0x5455c1d8cadcd8ee, 0x679ec163ff57abfa, 0x4c758208aee29b8b, 0xcbe61b2da5d15d78, 0xb4238d0882a9e9d2, 0x12e3e889fb9ad102, 0x549213cedf124231, 0x46ed8115d4caf607, 0x770bd0fe0d1b6fc3, 0x8139fa71ca3132bd, 0xeb70a63394d0d235, 0x4fc30f4895870690},
	{0xbde8166196a5e3fb, 0x004515cfa1305ab9, 0xe6a1b98244d828cd, 0x03dc750779ccf882, 0x4559c961075d20a9, 0x0adc681392eb1cb4, 0xe3ecf19c59ac1bec, 0x8aa71b96ee8b348a, 0xe88d40a09de061a1, 0x1d326a95f8091d30, 0xde4dd832fda7951c, 0x59ecf508d3302a87},
	{0xc1b3a7376a3106b9, 0x86a7574489ce3257, 0xfec250d2bb878c5b, 0x2a0ac6f28e435edb, 0x191c01651878cbcd, 0xace886adf99d7a1f, 0xa6539c51d67cd482, 0xb2972f697cc878bc, 0x6d3f9f15645dfbe1, 0x946a0b1395613652, 0x77f9313120e2e752, 0x13bf3a438c89044c},
	{0xf4851a1e79c68508, 0x55ad547627280b3d, 0xd10384e6e3b7f0e8, 0x3e808bc8f78ccbe7, 0xa0210b8e3f0d224d, 0xb152a80e4e69a723, 0xf79e69711d17daf1, 0xba8a7f232dfa643c, 0x52952bc7e8c11c0d, 0xec7bd7773de3d610, 0x79f401667ece5515, 0x67209c07b5e0be7a},
}

// ARK2 are the constants added after the inverse half-round, one row per round.
var ARK2 = [Rounds][Width]uint64{
	{0x6edf8b19ad8f4219, 0x77e5b3c5f75e2b50, 0x5a0c009b62aeeb6f, 0x4c9807de7add4629, 0x293f47e2cf706afd, 0xcec6fdb2025b035b, 0xc482cc108e143a06, 0x52d8c53c7de7fc5d, 0x46ffdd098d718ec0, 0xa832e5af91ebe0f3, 0xf18919f8ef4993ec, 0x25b8ddd3b26d63dc},
	{0x227dd59d41e99fb2, 0xc74530a8275a53bd, 0x2e2becac8cead640, 0x534b13b8b181d3e4, 0xf1bd493c6fa7b59f, 0xa3e81bc699c88f97, 0xcd6d16d216b19d26, 0x0a6f82a7f22b0e28, 0x8298a7a24ff71f41, 0xe3ac374bcd19c3ea, 0x5f4dd2f35796ab55, 0xc20ab0db1a71babc},
	{0x90d768ff06f8103d, 0xb7b51f7f855352fc, 0x094667e81fda04d2, 0x211b134ca7988c10, 0x35c5adaf58fb6321, 0xb3c04a20241b5426, 0x1b6172fc911f457f, 0xc24b1af4e26dd6c3, 0x0d8cca8ec807ce1a, 0x74abac228776a02e, 0x04b39bc37587568e, 0x3a6691c8d2be5047},
	{0x1fb3caa4759fffde, 0x3e750136d80c33f4, 0x372de50a046f6155, 0x2420c2dc9806e0d4, 0x4ff08d230920a71a, 0x2868028bdeec6360, 0xff928ee31564963a, 0x62055f98cc1f063d, 0xe6bbd37ed57d19ee, 0x0244d118cde94668, 0xa0ed6c2de4f7a87a, 0x294fdd943c5d8393},
	{0xd16ab61f9f64ebbe, 0x3087152f1ab28cb7, 0x77ff5ffff6bcb880, 0x2223fda219980c75, 0x36be4d0b4d27fa42, 0xcd23264df672da6b, 0x27a8c3f8f817f0b7, 0x76095b249d144d05, 0xf9e9cd996748f880, 0x09fe94d3a1fcf663, 0x61ae5219db0c05c5, 0x7ad09d451ea370a6},
	{0xf1dbf30608a06426, 0x101787451ee57777, 0xf90f5b2570aba526, 0x57f7eb204c8b5e82, 0xf5da3ceed7939f10, 0x3a6929392f1f419e, 0xabe5a7af3d2175e7, 0x8aed911875e6973f, 0x4d3ec3843bf34b4d, 0xadc07ef4a390ac3d, 0x45020984b563a74f, 0x4daccf713ac1aed5},
	{0xfe80bb2b782f2dc0, 0x019904a6df3223a7, 0x3d719a98c771ab0a, 0x9723a2c00a5d0c24, 0x6274b39615f62b02, 0x65f0b7f13623021b, 0x5ed79cf0d1259560, 0xc253fe01efc5109c, 0xdd338605d58541e7, 0xb07cf56cd446c6bf, 0x3953470b3f44fcba, 0x6af1c157ca0b3636},
}
