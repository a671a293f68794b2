// What the browser tests share: a static file server and headless Chromium
// with WebGPU on. Chromium runs WebGPU through Dawn; on a machine without a
// GPU, on SwiftShader's CPU Vulkan.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css', '.png': 'image/png' };

// serve serves the files of dir on a free port of 127.0.0.1 (a file://
// page cannot fetch its .wasm) and resolves to {url, close}.
export function serve(dir) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => server.close(),
  })));
}

// launch starts headless Chromium with WebGPU: CHROMIUM names the binary
// (default /usr/bin/chromium); WGCOMPUTE_CHROMIUM_FLAGS adds flags, and
// WGCOMPUTE_CHROMIUM_LOG=1 shows Chromium's own messages on stderr.
export function launch() {
  const args = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader'];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox'); // Chromium refuses root otherwise
  if (process.env.WGCOMPUTE_CHROMIUM_FLAGS) args.push(...process.env.WGCOMPUTE_CHROMIUM_FLAGS.split(/\s+/).filter(Boolean));
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args,
    protocolTimeout: 0, // the self-test's calls may take minutes
    dumpio: !!process.env.WGCOMPUTE_CHROMIUM_LOG,
  });
}

// close closes browser, and kills it if it does not close in 10 s (its GPU
// process may be deep in a shader compile).
export async function close(browser) {
  const proc = browser.process();
  const timer = setTimeout(() => proc?.kill('SIGKILL'), 10000);
  await browser.close().catch(() => proc?.kill('SIGKILL'));
  clearTimeout(timer);
}

// descendants lists the process ids under pid (Linux /proc).
function descendants(pid) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  const out = [];
  const walk = (p) => { for (const c of children.get(p) || []) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

// guardMemory kills browser's GPU process when its resident memory passes
// limitBytes, so that a shader compile that grows without bound (Chromium's
// SwiftShader on the largest kernels, docs/PORTABILITY.md) fails its test
// instead of the machine. It returns a function that stops watching and
// tells the largest size seen and whether it killed.
export function guardMemory(browser, limitBytes) {
  const pid = browser.process()?.pid;
  const page = 4096;
  let peak = 0;
  let killed = false;
  const timer = pid && fs.existsSync('/proc/self/stat') ? setInterval(() => {
    for (const p of descendants(pid)) {
      try {
        if (!fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=gpu-process')) continue;
        const rss = Number(fs.readFileSync(`/proc/${p}/statm`, 'utf8').split(' ')[1]) * page;
        peak = Math.max(peak, rss);
        if (rss > limitBytes) {
          killed = true;
          process.kill(p, 'SIGKILL');
        }
      } catch { /* gone meanwhile */ }
    }
  }, 1000) : null;
  return () => {
    if (timer) clearInterval(timer);
    return { peak, killed };
  };
}

// openPage opens url in browser, collecting the page's console lines in
// lines (and printing them with echo) and printing its errors.
export async function openPage(browser, url, { echo = false, lines = [] } = {}) {
  const page = await browser.newPage();
  page.on('console', (m) => {
    for (const line of m.text().split('\n')) {
      lines.push(line);
      if (echo) console.log(line);
    }
  });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(url);
  return page;
}

// waitStatus waits until #status leaves the given states, up to seconds.
export async function waitStatus(page, pending, seconds) {
  await page.waitForFunction(
    (p) => !p.includes(document.getElementById('status')?.textContent),
    { timeout: seconds * 1000, polling: 500 }, pending);
  return page.$eval('#status', (e) => e.textContent);
}
