// Runs wgcompute's self-test (every family and variant, cmd/wgweb) in
// headless Chromium on its WebGPU adapter, prints one line per family as
// `wgbench selftest` does, writes the JSON report (`wgbench selftest
// --json`'s layout) and exits 1 if any family fails, 2 on a usage error.
//
//   node web/test/selftest.mjs DIR REPORT.json [--limits webgpu|adapter]
//        [--timeout SECONDS] [--gpu-memory GB] [--families a,b] [--skip a,b]
//
// DIR holds `make web`'s output (bin/web). Each family runs in a browser
// of its own, so that a family whose shaders crash Chromium's GPU process
// fails alone; --timeout bounds each (default 600 s), and --gpu-memory
// (default 6) kills a GPU process that grows past that many GB: a failure,
// not a machine out of memory. --skip leaves families out, listed as SKIP
// and in the report's "skipped".
import fs from 'node:fs';
import { serve, launch, close, guardMemory, openPage, waitStatus } from './browser.mjs';

const args = process.argv.slice(2);
const flag = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const limits = flag('--limits', 'webgpu');
const timeout = Number(flag('--timeout', '600'));
const gpuMemory = Number(flag('--gpu-memory', '6')) * (1 << 30);
const only = flag('--families', '').split(',').filter(Boolean);
const skip = flag('--skip', '').split(',').filter(Boolean);
const [dir, reportPath] = args;
if (!dir || !reportPath || args.length !== 2 || !(timeout > 0) || !(gpuMemory > 0)) {
  console.error('usage: node selftest.mjs DIR REPORT.json [--limits webgpu|adapter] [--timeout SECONDS] [--gpu-memory GB] [--families a,b] [--skip a,b]');
  process.exit(2);
}

const seconds = (t) => ((Date.now() - t) / 1000).toFixed(0);
const start = Date.now();
const server = await serve(dir);

// runPage opens the self-test page in a fresh browser and waits for its
// status; check runs on the page once it settles. It prints the GPU
// process's peak memory unless quiet.
async function runPage(query, check, quiet = false) {
  const browser = await launch();
  const stop = guardMemory(browser, gpuMemory);
  try {
    const page = await openPage(browser, `${server.url}selftest.html?${query}`, { echo: true });
    const status = await waitStatus(page, ['loading', 'running'], timeout);
    return { status, ...(await check(page, status)) };
  } catch (e) {
    return { status: 'error', error: e.message };
  } finally {
    const mem = stop();
    await close(browser);
    if (mem.killed) console.log(`      Chromium's GPU process passed ${(gpuMemory / (1 << 30)).toFixed(1)} GB and was killed`);
    else if (mem.peak && !quiet) console.log(`      Chromium's GPU process peaked at ${(mem.peak / (1 << 30)).toFixed(2)} GB`);
  }
}

let code = 0;
let file = null;
const skipped = [];
try {
  const probe = await runPage(`limits=${limits}`, (page) => page.evaluate(() => ({ families: wgcompute.families })), true);
  if (!probe.families) throw new Error(`the page did not load: ${probe.error || probe.status}`);
  for (const name of only.concat(skip)) {
    if (!probe.families.includes(name)) throw new Error(`unknown family ${name}: the families are ${probe.families.join(', ')}`);
  }
  for (const family of probe.families) {
    if (only.length && !only.includes(family)) continue;
    if (skip.includes(family)) {
      console.log(`SKIP  ${family}`);
      skipped.push(family);
      continue;
    }
    const t = Date.now();
    const r = await runPage(`run&limits=${limits}&families=${family}`, async (page) => {
      const text = await page.$eval('#report', (e) => e.textContent);
      return text ? { report: JSON.parse(text) } : {};
    });
    if (r.report) {
      if (!file) file = r.report;
      else {
        file.adapters[0].results.push(...r.report.adapters[0].results);
        file.adapters[0].pass &&= r.report.adapters[0].pass;
        file.pass &&= r.report.pass;
      }
      if (!r.report.pass) code = 1;
      continue;
    }
    // No report: the page timed out, or its GPU process died.
    const why = r.status === 'error' && r.error ? r.error : `status ${r.status}`;
    console.log(`FAIL  ${family} (no result after ${seconds(t)} s: ${why})`);
    code = 1;
    if (file) {
      file.pass = false;
      file.adapters[0].pass = false;
      file.adapters[0].results.push({ family, pass: false, variants: null, cases: 0, failures: [`no result after ${seconds(t)} s: ${why}`], seconds: (Date.now() - t) / 1000 });
    }
  }
  if (!file) throw new Error('no family produced a report');
  if (skipped.length) file.skipped = skipped;
  fs.writeFileSync(reportPath, JSON.stringify(file, null, 2) + '\n');
  console.log(`browser self-test: ${code === 0 ? 'pass' : 'fail'} in ${seconds(start)} s, report in ${reportPath}`);
} catch (e) {
  console.error(`browser self-test: ${e.message} after ${seconds(start)} s`);
  code = 2;
} finally {
  server.close();
}
process.exit(code);
