// Runs web/digests (digests.wasm) in headless Chromium and compares what
// it prints with the native build's output, given as a file: the same
// program through wgcompute's browser layer (WebGPU, Dawn) and natively
// must print the same digests and roots. Exits 1 on a difference, 2 on an
// error or a timeout.
//
//   node web/test/digests.mjs DIR NATIVE.txt
import fs from 'node:fs';
import { serve, launch, close, openPage, waitStatus } from './browser.mjs';

const [dir, nativePath] = process.argv.slice(2);
if (!dir || !nativePath) {
  console.error('usage: node digests.mjs DIR NATIVE.txt');
  process.exit(2);
}
const want = fs.readFileSync(nativePath, 'utf8').split('\n').filter(Boolean);
const server = await serve(dir);
const browser = await launch();
let code = 2;
try {
  const lines = [];
  const page = await openPage(browser, `${server.url}digests.html`, { lines });
  const status = await waitStatus(page, ['running'], 600);
  const device = lines.find((l) => l.startsWith('device:')) || 'device: not reported';
  // What the program prints (name, size, hex); the page's other messages are not compared.
  const got = lines.filter((l) => /^[a-z0-9-]+ \d+ [0-9a-f]+$/.test(l));
  console.log(`digests in the browser: ${status}, ${device}`);
  const diffs = [];
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    if (got[i] !== want[i]) diffs.push(`  line ${i + 1}: browser ${got[i] ?? '(none)'}\n          native  ${want[i] ?? '(none)'}`);
  }
  if (status !== 'exit 0') {
    console.log(`FAIL  the program ended with ${status}:\n${lines.filter(Boolean).join('\n')}`);
    code = 1;
  } else if (!device.includes('(webgpu)')) {
    console.log(`FAIL  the browser run did not use WebGPU (${device})`);
    code = 1;
  } else if (diffs.length) {
    console.log(`FAIL  ${diffs.length} of ${want.length} lines differ from the native build:\n${diffs.join('\n')}`);
    code = 1;
  } else {
    console.log(`PASS  ${want.length} digests and roots equal the native build's`);
    code = 0;
  }
} catch (e) {
  console.error(`digests: ${e.message}`);
} finally {
  await close(browser);
  server.close();
}
process.exit(code);
