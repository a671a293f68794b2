// Writes the merkletreejs vectors package merkle's tests read: the roots,
// layers and proofs of trees of BLAKE3 merges, for leaf counts that are and
// are not powers of two.
//
// merkletreejs's multi-proofs are not taken: they are not minimal (for 8
// leaves and leaves 0, 1, 2, 4, 5, 6, 7 getMultiProof gives leaf 3 twice),
// and for counts that are not powers of two they hold nodes that are no
// siblings (3 leaves, leaf 2: leaf 1), which its own verifyMultiProof
// rejects.
//
// Regenerate (Node.js 20 or newer; the versions are pinned in
// package-lock.json):
//
//	cd scripts/merkletreejs && npm ci && npm run vectors
//
// The trees are merkletreejs's default: an odd last node is carried up to
// the next level unhashed (not duplicated), pairs are not sorted, leaves are
// not hashed, and a parent is hashFn(Buffer.concat([left, right])) with
// hashFn BLAKE3 of the 64 bytes: package merkle's trees with
// blake3.MerkleMerge.
import { writeFileSync, readFileSync } from 'node:fs';
import { blake3 } from '@noble/hashes/blake3.js';
import { MerkleTree } from 'merkletreejs';

const out = process.argv[2];
if (!out) {
  console.error('usage: node vectors.mjs OUT.json');
  process.exit(2);
}
const lock = JSON.parse(readFileSync(new URL('./package-lock.json', import.meta.url)));
const version = (name) => lock.packages['node_modules/' + name].version;

const hex = (b) => Buffer.from(b).toString('hex');
// Leaf i is BLAKE3 of i as 8 little-endian bytes.
const leaf = (i) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(i));
  return Buffer.from(blake3(b));
};
const options = { hashLeaves: false, sortLeaves: false, sortPairs: false, sort: false, duplicateOdd: false, isBitcoinTree: false, complete: false };
const hashFn = (data) => blake3(data);

const counts = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 15, 16, 17, 31, 32, 33, 63, 100, 255, 1000, 1023, 1024, 1025];
const trees = [];
for (const n of counts) {
  const leaves = Array.from({ length: n }, (_, i) => leaf(i));
  const tree = new MerkleTree(leaves, hashFn, options);
  const root = tree.getRoot();
  const t = { leaves: n, root: hex(root) };
  if (n <= 64) {
    // Layer 0 is the leaves, the last layer the root.
    t.layers = tree.getLayers().map((layer) => layer.map(hex));
  }
  const indices = [...new Set([0, 1, 2, (n / 3) | 0, (n / 2) | 0, n - 3, n - 2, n - 1].filter((i) => i >= 0 && i < n))].sort((a, b) => a - b);
  t.proofs = indices.map((i) => {
    const proof = tree.getProof(leaves[i], i);
    if (!tree.verify(proof, leaves[i], root)) {
      throw new Error(`merkletreejs does not verify its own proof of leaf ${i} of ${n}`);
    }
    return { index: i, path: proof.map((p) => ({ position: p.position, data: hex(p.data) })) };
  });
  trees.push(t);
}

const doc = {
  source: `merkletreejs ${version('merkletreejs')} (npm) with BLAKE3 from @noble/hashes ${version('@noble/hashes')}, written by scripts/merkletreejs/vectors.mjs`,
  options: 'new MerkleTree(leaves, (data) => blake3(data), {hashLeaves: false, sortLeaves: false, sortPairs: false, duplicateOdd: false, isBitcoinTree: false, complete: false}): an odd last node is carried up unhashed; a parent is BLAKE3(left || right)',
  leaf: 'leaf i is BLAKE3 of i as 8 little-endian bytes',
  trees,
};
writeFileSync(out, JSON.stringify(doc, null, 1) + '\n');
console.log(`wrote ${out}: ${trees.length} trees`);
