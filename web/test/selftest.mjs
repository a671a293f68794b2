// Runs wgcompute's self-test (every family and variant, cmd/wgweb) in
// headless Chromium on its WebGPU adapter, prints one line per family as
// `wgbench selftest` does, writes the JSON report and exits 1 if any
// family fails, 2 on an error or a timeout.
//
//   node web/test/selftest.mjs DIR REPORT.json [--limits webgpu|adapter] [--timeout SECONDS] [--families a,b]
//
// DIR holds `make web`'s output (bin/web).
import fs from 'node:fs';
import { serve, launch, openPage, waitStatus } from './browser.mjs';

const args = process.argv.slice(2);
const flag = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const limits = flag('--limits', 'webgpu');
const timeout = Number(flag('--timeout', '1500'));
const families = flag('--families', '');
const [dir, reportPath] = args;
if (!dir || !reportPath) {
  console.error('usage: node selftest.mjs DIR REPORT.json [--limits webgpu|adapter] [--timeout SECONDS] [--families a,b]');
  process.exit(2);
}

const start = Date.now();
const server = await serve(dir);
const browser = await launch();
let code = 2;
try {
  let url = `${server.url}index.html?run&limits=${encodeURIComponent(limits)}`;
  if (families) url += `&families=${encodeURIComponent(families)}`;
  const page = await openPage(browser, url, { echo: true });
  const status = await waitStatus(page, ['loading', 'ready', 'running'], timeout);
  const report = await page.$eval('#report', (e) => e.textContent);
  if (report) fs.writeFileSync(reportPath, report + '\n');
  code = status === 'pass' ? 0 : status === 'fail' ? 1 : 2;
  console.log(`browser self-test: ${status} in ${((Date.now() - start) / 1000).toFixed(0)} s (Chromium ${await browser.version()}), report in ${reportPath}`);
} catch (e) {
  console.error(`browser self-test: ${e.message} after ${((Date.now() - start) / 1000).toFixed(0)} s`);
} finally {
  await browser.close();
  server.close();
}
process.exit(code);
