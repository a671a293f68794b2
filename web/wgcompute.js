// wgcompute.js loads wgweb.wasm (cmd/wgweb) and resolves to its API, the
// object it also sets as globalThis.wgcompute; Go's wasm_exec.js must be
// loaded first (a classic <script>). Every function of the API returns a
// Promise:
//
//   import { load } from './wgcompute.js';
//   const wg = await load();                       // or load('path/to/wgweb.wasm')
//   await wg.b3sum(new Uint8Array([1, 2, 3]));     // hex BLAKE3
//   await wg.merkleRoot(leaves, {hash: 'blake3'}); // leaves: n*32 bytes
//   await wg.device();                             // the adapter that serves calls
//   await wg.selftest({limits: 'webgpu', onResult: (r, line) => console.log(line)});
//
// cmd/wgweb/main.go documents each function and its options.
export async function load(url = 'wgweb.wasm') {
  if (typeof Go !== 'function') {
    throw new Error('wgcompute: load wasm_exec.js (from Go\'s lib/wasm) before wgcompute.js');
  }
  const go = new Go();
  const ready = new Promise((resolve) => { globalThis.onwgcomputeready = resolve; });
  const { instance } = await WebAssembly.instantiateStreaming(fetch(url), go.importObject);
  const exited = go.run(instance).then(() => { throw new Error('wgcompute: the Go program exited'); });
  return Promise.race([ready, exited]);
}
