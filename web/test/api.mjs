// Checks cmd/wgweb's JavaScript API in headless Chromium: b3sum on the
// GPU and on the CPU against BLAKE3's official vectors, merkleRoot on the
// GPU against the CPU backend of the same page (which the Node run of
// web/digests holds to the native build), and the errors of bad input.
// Exits 1 on a failure, 2 on an error or a timeout.
//
//   node web/test/api.mjs DIR VECTORS.json
//
// VECTORS.json is testdata/blake3_test_vectors.json.
import fs from 'node:fs';
import { serve, launch, close, openPage, waitStatus } from './browser.mjs';

const [dir, vectorsPath] = process.argv.slice(2);
if (!dir || !vectorsPath) {
  console.error('usage: node api.mjs DIR VECTORS.json');
  process.exit(2);
}
const cases = JSON.parse(fs.readFileSync(vectorsPath, 'utf8')).cases.map((c) => ({ n: c.input_len, want: c.hash.slice(0, 64) }));
const server = await serve(dir);
const browser = await launch();
let code = 2;
try {
  const page = await openPage(browser, `${server.url}selftest.html`);
  const status = await waitStatus(page, ['loading'], 120);
  if (status !== 'ready') throw new Error(`the page did not load: ${status}`);
  const failures = await page.evaluate(async (cases) => {
    const wg = globalThis.wgcompute;
    const out = [];
    const input = (n) => Uint8Array.from({ length: n }, (_, i) => i % 251); // the vectors' input
    const dev = await wg.device();
    if (dev.backend !== 'webgpu') out.push(`device() is ${dev.backend}, want webgpu`);
    for (const { n, want } of cases) {
      for (const cpu of [false, true]) {
        const got = await wg.b3sum(input(n), { cpu });
        if (got !== want) out.push(`b3sum of ${n} bytes (cpu: ${cpu}): ${got}, want ${want}`);
      }
    }
    const leaves = Uint8Array.from({ length: 5 * 32 }, (_, i) => (i * 37) & 255);
    for (const hash of ['blake3', 'poseidon2']) {
      try {
        const [gpu, cpu] = [await wg.merkleRoot(leaves, { hash }), await wg.merkleRoot(leaves, { hash, cpu: true })];
        if (gpu !== cpu) out.push(`merkleRoot (${hash}) of 5 leaves: GPU ${gpu}, CPU ${cpu}`);
      } catch (e) {
        out.push(`merkleRoot (${hash}): ${e.message}`);
      }
    }
    for (const [what, call, text] of [
      ['b3sum of a string', () => wg.b3sum('abc'), 'Uint8Array'],
      ['merkleRoot of 33 bytes', () => wg.merkleRoot(new Uint8Array(33)), '32-byte'],
      ['merkleRoot with hash sha256', () => wg.merkleRoot(new Uint8Array(32), { hash: 'sha256' }), 'accepted are'],
      ['selftest of family nope', () => wg.selftest({ families: ['nope'] }), 'unknown family'],
    ]) {
      try {
        await call();
        out.push(`${what}: no error`);
      } catch (e) {
        if (!e.message.includes(text)) out.push(`${what}: error "${e.message}" does not say "${text}"`);
      }
    }
    return out;
  }, cases);
  for (const f of failures) console.log('FAIL  ' + f);
  code = failures.length ? 1 : 0;
  console.log(`${code ? 'FAIL' : 'PASS'}  the JavaScript API: b3sum of ${cases.length} official vectors on GPU and CPU, merkleRoot, bad input`);
} catch (e) {
  console.error(`api: ${e.message}`);
} finally {
  await close(browser);
  server.close();
}
process.exit(code);
