// The page's measurement mode, for docs/PORTABILITY.md: the wasm module's
// size (and gzipped), the time from the page's load to its first hash of a
// 4 KiB file, BLAKE3 of 64 MiB in the page (from Go memory, and from a Blob
// as a dropped file is read) on the browser's GPU and on the CPU in
// WebAssembly, and what a dispatch costs through the browser; with
// --native, the same BLAKE3 and dispatch measurements on the native Vulkan
// path (lavapipe on a machine without a GPU), run right after, so that
// the ratio compares the two on one machine at one time.
//
//   node web/test/measure.mjs [DIR] [--mib 64] [--native]
//
// DIR holds `make web`'s output (default bin/web). It prints one JSON
// object.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { serve, launch } from './browser.mjs';

const args = process.argv.slice(2);
const has = (name) => { const i = args.indexOf(name); if (i >= 0) args.splice(i, 1); return i >= 0; };
const flag = (name, def) => { const i = args.indexOf(name); if (i < 0) return def; const v = args[i + 1]; args.splice(i, 2); return v; };
const native = has('--native');
const mib = Number(flag('--mib', '64'));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.resolve(args[0] || path.join(repo, 'bin/web'));

const out = { date: new Date().toISOString(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, loadavg: os.loadavg() };
const wasm = fs.readFileSync(path.join(dir, 'wgweb.wasm'));
out.wasm_bytes = wasm.length;
out.wasm_gzip_bytes = zlib.gzipSync(wasm, { level: 9 }).length;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcompute-measure-'));
const small = path.join(tmp, '4KiB.bin');
fs.writeFileSync(small, Buffer.alloc(4096, 7));

const server = await serve(dir);
const browser = await launch();
out.chromium = await browser.version();
async function open() {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(server.url + 'index.html');
  await page.waitForSelector('body[data-ready]', { timeout: 120000 });
  return page;
}
try {
  // Load to first hash: a fresh page each time (the module compiled, the
  // device opened and the BLAKE3 kernels built anew), the file set as soon
  // as the page is ready; the page notes the time since its navigation.
  const firsts = [];
  for (let i = 0; i < 3; i++) {
    const page = await open();
    await (await page.$('#files')).uploadFile(small);
    await page.waitForFunction(() => document.body.dataset.firstHashMs, { timeout: 120000 });
    firsts.push(Number(await page.evaluate(() => document.body.dataset.firstHashMs)));
    await page.close();
  }
  out.load_to_first_hash_ms = firsts;

  const page = await open();
  out.device = JSON.parse((await page.evaluate(() => wgpage.open(true))).info).name;
  out.gpu_memory = await page.evaluate((n) => wgpage.bench(n, 3), mib << 20);
  out.gpu_blob = await page.evaluate(async (n) => {
    const a = new Uint8Array(n);
    for (let i = 0; i < n; i++) a[i] = i % 251;
    return wgpage.bench(0, 3, new Blob([a]));
  }, mib << 20);
  out.dispatch = await page.evaluate(() => wgpage.dispatch(1000, 3));
  await page.evaluate(() => wgpage.open(false));
  out.cpu_wasm_memory = await page.evaluate((n) => wgpage.bench(n, 3), mib << 20);
  for (const r of [out.gpu_memory, out.gpu_blob, out.cpu_wasm_memory]) delete r.trace;
  await page.close();
} finally {
  await browser.close();
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

if (native) {
  // The same measurements natively, through cgo and wgpu-native on Vulkan:
  // BLAKE3 end to end from host memory and its kernels on resident data
  // (the first size of the blake3 benchmarks' ladder, 64 MiB), and
  // webbench.DispatchCost.
  const env = { ...process.env, WGCOMPUTE_BACKEND: 'vulkan' };
  const bench = execFileSync('go', ['test', '-count=1', '-short', '-run', '^$', '-bench', '^(BenchmarkSumHost|BenchmarkSumResident)$', '-benchtime', '5x', './algos/blake3'],
    { cwd: repo, env, encoding: 'utf8' });
  const host = bench.match(/BenchmarkSumHost\S*\s+\d+\s+(\d+) ns\/op\s+([\d.]+) MB\/s/);
  const kern = bench.match(/BenchmarkSumResident\S*\s.*?([\d.]+) kernel-ms/);
  out.native_memory = host && kern ? { seconds: Number(host[1]) / 1e9, mbps: Number(host[2]), kernel_seconds: Number(kern[1]) / 1e3 } : { output: bench };
  const disp = execFileSync('go', ['test', '-count=1', '-run', '^TestDispatchCost$', '-v', './cmd/internal/webbench'], { cwd: repo, env, encoding: 'utf8' });
  const d = disp.match(/: (.*): a submission of one dispatch (\S+), each further dispatch (\S+)/);
  out.native_dispatch = d ? { device: d[1], submission: d[2], per_dispatch: d[3] } : { output: disp };
  if (host && kern) {
    // End to end, the kernels alone, and what is left: the path to the GPU.
    const n = out.native_memory, g = out.gpu_memory;
    out.ratio = {
      end_to_end: g.seconds / n.seconds,
      kernel: g.kernel_seconds / n.kernel_seconds,
      outside_kernel: (g.seconds - g.kernel_seconds) / (n.seconds - n.kernel_seconds),
    };
  }
}
console.log(JSON.stringify(out, null, 2));
