// The page (web/index.html) tested as a user would use it, in headless
// Chromium: files set on the file input are hashed and the lines shown
// must equal b3sum's; the Merkle commitment's leaves and proof, saved
// through the page's buttons, must equal what wgbench merkle prove prints;
// the self-test, run by its button, must save a report in which every
// family passes; without WebGPU the page must say so and hash on the CPU;
// a leaves file too large for the tab must be refused in words. Each test
// takes a screenshot and checks it is a picture of the page with the
// result on it.
//
//   node --test web/test/page.test.mjs
//
// WGCOMPUTE_WEB (default bin/web) is `make web`'s output; WGBENCH (default
// bin/wgbench) the native command, for the proof; SHOTS (default
// bin/web-shots) where the screenshots go.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, close, guardMemory } from './browser.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = path.resolve(repo, process.env.WGCOMPUTE_WEB || 'bin/web');
const wgbench = path.resolve(repo, process.env.WGBENCH || 'bin/wgbench');
const shots = path.resolve(repo, process.env.SHOTS || 'bin/web-shots');
const selftestSeconds = Number(process.env.PAGE_SELFTEST_TIMEOUT || 1500);
fs.mkdirSync(shots, { recursive: true });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcompute-page-'));
const downloads = path.join(tmp, 'downloads');
fs.mkdirSync(downloads);

// Files a user might drop: empty, one chunk and a byte, a name with a
// space, and 3 MiB of random bytes (several pieces of the GPU's upload).
function makeFiles() {
  const files = [
    ['empty.txt', Buffer.alloc(0)],
    ['chunk and a byte.bin', crypto.randomBytes(1025)],
    ['random-3MiB.bin', crypto.randomBytes(3 << 20)],
  ];
  return files.map(([name, body]) => {
    const p = path.join(tmp, name);
    fs.writeFileSync(p, body);
    return p;
  });
}

// b3sumLines is what b3sum prints for the files, named by their base name
// as the page names them (b3sum from Debian if installed, else wgbench's).
function b3sumLines(files) {
  let out;
  try {
    out = execFileSync('b3sum', files, { encoding: 'utf8' });
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
    out = execFileSync(wgbench, ['--backend', 'cpu', 'b3sum', ...files], { encoding: 'utf8' });
  }
  return out.trim().split('\n').map((l) => l.replace(/ {2}.*\//, '  '));
}

// pngSize reads a PNG's width and height from its header.
function pngSize(file) {
  const b = fs.readFileSync(file);
  assert.equal(b.subarray(1, 4).toString(), 'PNG', `${file} is not a PNG`);
  return { bytes: b.length, width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

// screenshot saves the page as name.png, checks that it is a picture of
// the viewport and not a blank one, and that the page shows want (text
// or regexps) as it is taken.
async function screenshot(page, name, want) {
  const file = path.join(shots, name + '.png');
  const text = await page.evaluate(() => document.body.innerText);
  await page.screenshot({ path: file, fullPage: true });
  const s = pngSize(file);
  assert.ok(s.width >= 1280 && s.height >= 800, `${name}.png is ${s.width}×${s.height}`);
  // A blank page compresses to a few KiB; one with text and colours does not.
  assert.ok(s.bytes > 30000, `${name}.png is ${s.bytes} bytes: blank?`);
  for (const w of want) {
    if (w instanceof RegExp) assert.match(text, w, `${name}: the page does not show ${w}`);
    else assert.ok(text.includes(w), `${name}: the page does not show ${JSON.stringify(w)}`);
  }
  return file;
}

// Downloads the browser has finished, by file name. Chromium reserves a
// download's name with an empty file before it writes the bytes (to a
// .crdownload beside it), so the file's existence says nothing: only the
// DevTools protocol's "completed" event does.
const finished = new Map();
const failed = new Map();

function watchDownloads(cdp) {
  const names = new Map();
  cdp.on('Browser.downloadWillBegin', (e) => names.set(e.guid, e.suggestedFilename));
  cdp.on('Browser.downloadProgress', (e) => {
    const name = names.get(e.guid);
    if (e.state === 'completed') finished.set(name, true);
    if (e.state === 'canceled') failed.set(name, true);
  });
}

// downloaded waits until the page has saved a file, and reads it.
async function downloaded(name, seconds = 30) {
  const p = path.join(downloads, name);
  for (let i = 0; i < seconds * 10; i++) {
    if (failed.has(name)) throw new Error(`the browser cancelled the download of ${name}`);
    if (finished.has(name)) return fs.readFileSync(p);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the page did not save ${name} within ${seconds} s`);
}

async function newPage(browser, server, query = '', before) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const cdp = await page.createCDPSession();
  watchDownloads(cdp);
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  if (before) await page.evaluateOnNewDocument(before);
  await page.goto(server.url + 'index.html' + query);
  await page.waitForSelector('body[data-ready]', { timeout: 120000 });
  return page;
}

async function shownSums(page, n, seconds = 300) {
  await page.waitForFunction((k) => document.getElementById('sums').textContent.split('\n').filter(Boolean).length >= k,
    { timeout: seconds * 1000, polling: 250 }, n);
  return page.$eval('#sums', (e) => e.textContent.split('\n'));
}

let server, browser, unguard;
test.before(async () => {
  assert.ok(fs.existsSync(path.join(webDir, 'wgweb.wasm')), `${webDir} has no wgweb.wasm: run make web`);
  server = await serve(webDir);
  browser = await launch();
  // A GPU process past 6 GB is killed: the test fails, not the machine.
  unguard = guardMemory(browser, 6 * (1 << 30));
});
test.after(async () => {
  const mem = unguard?.();
  if (mem?.killed) console.log(`# Chromium's GPU process passed 6 GB and was killed`);
  if (browser) await close(browser);
  server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('dropped files get the b3sum lines, on the GPU, and a Merkle proof wgbench agrees with', async () => {
  const files = makeFiles();
  const page = await newPage(browser, server);
  assert.equal(await page.$eval('#device-kind', (e) => e.textContent), 'GPU', 'the page did not open the GPU');
  const input = await page.$('#files');
  await input.uploadFile(...files);
  const got = await shownSums(page, files.length);
  const want = b3sumLines(files);
  assert.deepEqual(got, want);
  await screenshot(page, 'page-b3sum', [want[2], 'GPU', 'Save as b3sums.txt']);

  await page.click('#save-sums');
  assert.equal((await downloaded('b3sums.txt')).toString(), want.join('\n') + '\n');

  await page.click('#commit');
  await page.waitForFunction(() => document.getElementById('root').textContent.length === 64, { timeout: 120000 });
  await page.select('#leaf', '1');
  await page.waitForFunction(() => document.getElementById('proof').dataset.index === '1', { timeout: 60000 });
  await page.click('#save-leaves');
  const leaves = await downloaded('leaves.bin');
  assert.equal(leaves.toString('hex'), want.map((l) => l.slice(0, 64)).join(''), 'the leaves are not the files\' BLAKE3 hashes');
  await page.click('#save-proof');
  const proof = (await downloaded('proof.json')).toString();
  const leavesFile = path.join(tmp, 'leaves.bin');
  fs.writeFileSync(leavesFile, leaves);
  const native = execFileSync(wgbench, ['--backend', 'cpu', 'merkle', 'prove', '--hash', 'blake3', '--in', leavesFile, '--index', '1'], { encoding: 'utf8' });
  assert.equal(proof, native, 'the page\'s proof differs from wgbench merkle prove\'s');
  const root = await page.$eval('#root', (e) => e.textContent);
  assert.equal(JSON.parse(proof).root, root);
  const built = await page.$eval('#leaf-count', (e) => e.textContent);
  assert.equal(built, '3 (built on the GPU)', await page.$eval('#notice', (e) => e.textContent));
  await screenshot(page, 'page-merkle', [root, built]);
  await page.close();
});

test('the self-test runs on the GPU and saves a report where every family passes', async () => {
  // WEB_SKIP (the Makefile's) names the families SwiftShader cannot run
  // (docs/PORTABILITY.md, "In the browser"); the page runs the others.
  const golden = JSON.parse(fs.readFileSync(path.join(repo, 'cmd/internal/selftest/testdata/golden.json'), 'utf8'));
  const skip = (process.env.WEB_SKIP || '').split(',').filter(Boolean);
  const families = Object.keys(golden.families).filter((f) => !skip.includes(f)).sort();
  const page = await newPage(browser, server, skip.length ? '?families=' + families.join(',') : '');
  // A file hashed first, as a visitor would, so that the screenshot shows
  // the page at work (docs/web-page.png is this one).
  const files = makeFiles().slice(0, 2);
  await (await page.$('#files')).uploadFile(...files);
  const sums = b3sumLines(files);
  assert.deepEqual(await shownSums(page, files.length), sums);
  await page.click('#run-selftest');
  await page.waitForFunction(() => /^(PASS|FAIL|The self-test could not run)/.test(document.getElementById('selftest-status').textContent),
    { timeout: selftestSeconds * 1000, polling: 1000 });
  const status = await page.$eval('#selftest-status', (e) => e.textContent);
  await page.click('#save-report');
  const report = JSON.parse((await downloaded('selftest.json')).toString());
  assert.equal(report.adapters.length, 1);
  const adapter = report.adapters[0];
  assert.ok(adapter.adapter.name, 'the report names no adapter');
  assert.notEqual(adapter.adapter.backend, 'cpu', 'the self-test ran on the CPU');
  assert.deepEqual(adapter.results.map((r) => r.family).sort(), families);
  for (const r of adapter.results) assert.ok(r.pass, `${r.family} failed: ${(r.failures || []).join('; ')}`);
  assert.ok(report.pass, status);
  assert.match(status, /^PASS/);
  const rows = await page.$$eval('#results tbody tr', (trs) => trs.map((tr) => tr.innerText));
  assert.equal(rows.length, families.length);
  await screenshot(page, 'page-selftest', [status, adapter.adapter.name, ...sums, ...families.map((f) => new RegExp(`${f}\\s+PASS`))]);
  await page.close();
});

test('without WebGPU the page says so and hashes on the CPU', async () => {
  const files = makeFiles();
  const page = await newPage(browser, server, '', () => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined });
  });
  assert.equal(await page.$eval('#device-kind', (e) => e.textContent), 'CPU');
  const note = await page.$eval('#notice', (e) => e.textContent);
  assert.match(note, /no WebGPU/);
  await (await page.$('#files')).uploadFile(...files);
  assert.deepEqual(await shownSums(page, files.length), b3sumLines(files));
  await screenshot(page, 'page-no-webgpu', ['This browser has no WebGPU', 'CPU']);
  await page.close();
});

test('a lost GPU device is said in words, and the hash is done on the CPU', async () => {
  const files = makeFiles();
  // The page's devices, kept where the test can destroy them, as a driver
  // reset or a removed GPU would.
  const page = await newPage(browser, server, '', () => {
    const request = GPUAdapter.prototype.requestDevice;
    window.testDevices = [];
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const d = await request.apply(this, args);
      window.testDevices.push(d);
      return d;
    };
  });
  assert.equal(await page.$eval('#device-kind', (e) => e.textContent), 'GPU');
  await page.evaluate(() => window.testDevices.forEach((d) => d.destroy()));
  await (await page.$('#files')).uploadFile(...files);
  assert.deepEqual(await shownSums(page, files.length), b3sumLines(files));
  const note = await page.$eval('#notice', (e) => e.textContent);
  assert.match(note, /^The GPU device was lost/);
  assert.equal(await page.$eval('#device-kind', (e) => e.textContent), 'CPU');
  await screenshot(page, 'page-device-lost', ['The GPU device was lost', 'CPU']);
  await page.close();
});

test('a leaves file too large for the tab is refused in words', async () => {
  const big = path.join(tmp, 'leaves-too-large.bin');
  fs.writeFileSync(big, Buffer.alloc(0));
  fs.truncateSync(big, (64 << 20) + 32);
  const page = await newPage(browser, server);
  await (await page.$('#leaves-file')).uploadFile(big);
  await page.waitForFunction(() => !document.getElementById('notice').hidden, { timeout: 30000 });
  const note = await page.$eval('#notice', (e) => e.textContent);
  assert.match(note, /leaves-too-large\.bin is 64\.0 MiB, more than this page holds in a browser tab/);
  await page.close();
});
