// The page's logic: it loads wgweb.wasm (the Go code of wgbench, built
// for the browser) and drives its entry points, wgpage.* (cmd/wgweb/page.go)
// for hashing and Merkle trees, and the self-test's. Everything the page
// says about an error is written here, in words.
//
// Query parameters: gpu=0 starts on the CPU; families=a,b runs those
// families of the self-test only. web/test/measure.mjs measures through
// wgpage.bench and wgpage.dispatch.
import { load } from './wgcompute.js';

const $ = (id) => document.getElementById(id);
let wg; // the wasm module's API (cmd/wgweb/main.go); wgpage is the page's own (page.go)
const params = new URLSearchParams(location.search);
const state = {
  ready: false,
  busy: Promise.resolve(), // the Go side runs one call at a time; so does the page
  sums: [],                // {name, hex, size} in the order shown
  leaves: null,            // Uint8Array of the committed leaves
  report: null,            // the last self-test report, as text
};

// queue runs fn after every earlier queued call, so that a hash, a commit
// and a self-test never overlap.
function queue(fn) {
  const next = state.busy.then(fn, fn);
  state.busy = next.catch(() => {});
  return next;
}

function notice(text, kind) {
  const n = $('notice');
  if (!text) { n.hidden = true; n.textContent = ''; return; }
  n.hidden = false;
  n.className = 'notice' + (kind === 'error' ? ' error' : '');
  n.textContent = text;
}

function formatBytes(n) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
  return (u === 0 ? n : n.toFixed(1)) + ' ' + units[u];
}

// b3sumLine writes a line as b3sum does: a name holding a backslash or a
// newline is escaped, and its line starts with a backslash.
function b3sumLine(hex, name) {
  if (/[\\\n]/.test(name)) {
    return '\\' + hex + '  ' + name.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  }
  return hex + '  ' + name;
}

function save(name, text, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], {type}));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// explain turns an error of the Go side into what the page says.
function explain(err) {
  const msg = String(err && err.message || err);
  if (/device lost/i.test(msg)) {
    return 'The GPU device was lost: ' + msg + '. Reload the page to use the GPU again.';
  }
  if (/out of memory|allocation failed|Array buffer allocation/i.test(msg)) {
    return 'The browser ran out of memory: ' + msg + '. Try a smaller file, or wgbench on the command line.';
  }
  return msg;
}

// ---- the device ----

function showDevice(st) {
  const info = JSON.parse(st.info);
  const kind = $('device-kind');
  kind.textContent = st.gpu ? 'GPU' : 'CPU';
  kind.className = 'badge ' + (st.gpu ? 'gpu' : 'cpu');
  $('device-name').textContent = st.gpu
    ? `${info.name} (${info.backend}${info.driver ? ', ' + info.driver : ''}) · storage binding ${formatBytes(info.limits.max_storage_binding_size)}`
    : 'WebAssembly on this CPU (no GPU in use)';
  if (st.gpu && info.type === 'cpu') {
    $('device-name').textContent += ' · a software renderer: the CPU path may be faster here';
  }
  notice(st.notice || '');
}

// afterCall shows a call's notice (a lost GPU, a kernel done on the CPU
// instead) and, when the GPU was lost, that the CPU is now in use.
function afterCall(r) {
  if (r.notice) notice(r.notice);
  if (!r.device && $('device-kind').textContent === 'GPU') {
    const kind = $('device-kind');
    kind.textContent = 'CPU';
    kind.className = 'badge cpu';
    $('device-name').textContent = 'WebAssembly on this CPU (the GPU was lost)';
    $('use-gpu').checked = false;
  }
}

async function openDevice(gpu) {
  $('use-gpu').disabled = true;
  try {
    showDevice(await queue(() => wgpage.open(gpu)));
  } catch (err) {
    notice('Could not open a device: ' + explain(err), 'error');
  } finally {
    $('use-gpu').disabled = false;
  }
}

// ---- 1. BLAKE3 of files ----

function renderSums() {
  $('sums').textContent = state.sums.map((s) => b3sumLine(s.hex, s.name)).join('\n');
  $('save-sums').disabled = $('clear-sums').disabled = state.sums.length === 0;
  $('commit').disabled = state.sums.length === 0 || !state.ready;
}

async function hashFiles(files) {
  for (const file of files) {
    const li = document.createElement('li');
    const name = document.createElement('span');
    const bar = document.createElement('progress');
    const pct = document.createElement('span');
    name.textContent = `${file.name} (${formatBytes(file.size)})`;
    bar.max = 1; bar.value = 0; pct.textContent = 'waiting';
    li.append(name, bar, pct);
    $('progress').append(li);
    try {
      let t0;
      const r = await queue(() => {
        t0 = performance.now();
        pct.textContent = '0%';
        return wgpage.b3sum(file, (done, total) => {
          bar.value = total ? done / total : 1;
          // Every byte read, the last pieces' kernels still to run.
          pct.textContent = done < total ? Math.floor(100 * bar.value) + '%' : 'finishing…';
        });
      });
      const secs = (performance.now() - t0) / 1000;
      bar.value = 1;
      pct.textContent = secs < 1 ? 'done' : secs.toFixed(1) + ' s';
      afterCall(r);
      state.sums.push({name: file.name, hex: r.hex, size: file.size});
      // For web/test/measure.mjs: the time from the page's load to its first hash.
      document.body.dataset.firstHashMs ??= performance.now().toFixed(1);
      renderSums();
      setTimeout(() => li.remove(), 1500);
    } catch (err) {
      pct.textContent = 'failed';
      notice(`Could not hash ${file.name}: ${explain(err)}`, 'error');
    }
  }
}

// ---- 2. Merkle commitment ----

function hexToBytes(hex, dst, at) {
  for (let i = 0; i < 32; i++) dst[at + i] = parseInt(hex.substr(2 * i, 2), 16);
}

async function commit(leaves, names) {
  try {
    const r = await queue(() => wgpage.merkle(leaves));
    afterCall(r);
    state.leaves = leaves;
    $('root').textContent = r.root;
    $('leaf-count').textContent = `${r.leaves} (built on the ${r.gpu ? 'GPU' : 'CPU'})`;
    $('tree').hidden = false;
    const sel = $('leaf');
    sel.replaceChildren(...names.map((n, i) => new Option(`${i}: ${n}`, i)));
    $('prove').hidden = false;
    $('save-leaves').disabled = false;
    await showProof();
  } catch (err) {
    notice('Could not commit: ' + explain(err), 'error');
  }
}

async function showProof() {
  const i = Number($('leaf').value);
  try {
    const text = await queue(() => wgpage.proof(i));
    $('proof').textContent = text;
    $('proof').hidden = false;
    $('proof').dataset.index = i;
  } catch (err) {
    notice('Could not prove leaf ' + i + ': ' + explain(err), 'error');
  }
}

function commitSums() {
  const leaves = new Uint8Array(32 * state.sums.length);
  state.sums.forEach((s, i) => hexToBytes(s.hex, leaves, 32 * i));
  return commit(leaves, state.sums.map((s) => s.name));
}

async function commitLeavesFile(file) {
  const max = 64 << 20;
  if (file.size > max) {
    notice(`The leaves file ${file.name} is ${formatBytes(file.size)}, more than this page holds in a browser tab ` +
      `(${formatBytes(max)}, ${max / 32} leaves). wgbench merkle builds larger trees.`, 'error');
    return;
  }
  if (file.size === 0 || file.size % 32 !== 0) {
    notice(`The leaves file ${file.name} is ${file.size} bytes: a leaves file holds N × 32-byte leaves, N at least 1.`, 'error');
    return;
  }
  let leaves;
  try {
    leaves = new Uint8Array(await file.arrayBuffer());
  } catch (err) {
    notice(`The browser could not read ${file.name}: ${explain(err)}`, 'error');
    return;
  }
  const n = leaves.length / 32;
  const names = Array.from({length: Math.min(n, 10000)}, (_, i) => `leaf ${i}`);
  return commit(leaves, names);
}

// ---- 3. Self-test ----

// selftest runs the wasm module's self-test, showing each family's row
// as it finishes, and returns its report as JSON text, laid out as
// wgbench selftest --json writes it.
async function selftest() {
  const opts = {onResult: (r) => addResult(r)};
  if (params.get('families')) opts.families = params.get('families').split(',');
  const rep = await wg.selftest(opts);
  return JSON.stringify(rep, null, 2) + '\n';
}

function limitsText(l) {
  if (!l) return '';
  return `storage binding ${formatBytes(l.max_storage_binding_size)}, buffer ${formatBytes(l.max_buffer_size)}, ` +
    `workgroup storage ${formatBytes(l.max_workgroup_storage)}, ${l.max_invocations_per_workgroup} invocations per workgroup`;
}

// addResult adds a family's row to the results table.
function addResult(r) {
  const table = $('results');
  table.hidden = false;
  const tr = table.querySelector('tbody').insertRow();
  tr.insertCell().textContent = r.family;
  const v = tr.insertCell();
  v.className = 'verdict ' + (r.pass ? 'pass' : 'fail');
  v.textContent = r.pass ? 'PASS' : 'FAIL';
  if (r.failures && r.failures.length) {
    const ul = document.createElement('ul');
    ul.className = 'failures';
    for (const f of r.failures) { const li = document.createElement('li'); li.textContent = f; ul.append(li); }
    v.append(ul);
  }
  const c = tr.insertCell(); c.className = 'num'; c.textContent = r.cases;
  tr.insertCell().textContent = (r.variants || []).join(', ');
  const s = tr.insertCell(); s.className = 'num'; s.textContent = (r.seconds || 0).toFixed(2);
}

// showAdapter describes the adapter a report is of: its name, backend,
// driver, features and limits.
function showAdapter(a) {
  const ad = a.adapter || {};
  const box = $('adapter');
  box.replaceChildren();
  const name = document.createElement('strong');
  name.textContent = ad.name || 'adapter';
  const what = document.createElement('span');
  what.textContent = ` (${[ad.backend, ad.type, ad.driver].filter(Boolean).join(', ')})` +
    (ad.features && ad.features.length ? ' · features: ' + ad.features.join(', ') : '');
  const lim = document.createElement('div');
  lim.className = 'limits';
  lim.textContent = 'limits: ' + limitsText(ad.limits);
  box.append(name, what, lim);
  box.hidden = false;
}

function showReport(rep) {
  const a = (rep.adapters || [])[0] || {};
  showAdapter(a);
  const tbody = $('results').querySelector('tbody');
  if (tbody.rows.length !== (a.results || []).length) { // rows came in another way, or not at all
    tbody.replaceChildren();
    (a.results || []).forEach(addResult);
  }
  const st = $('selftest-status');
  st.className = 'summary ' + (rep.pass ? 'pass' : 'fail');
  const only = params.get('families') ? ` (the families ${params.get('families').split(',').join(', ')} only)` : '';
  st.textContent = a.error ? 'FAIL: the device could not be opened: ' + a.error
    : rep.pass ? `PASS: every family${only} computes what the CPU reference computes.`
      : 'FAIL: this GPU computes results that differ from the reference. Please save the report and send it to us.';
}

async function runSelftest() {
  $('run-selftest').disabled = true;
  const st = $('selftest-status');
  st.className = 'hint';
  st.textContent = 'Running… (minutes on a software GPU)';
  $('results').querySelector('tbody').replaceChildren();
  $('save-report').disabled = true;
  try {
    const text = await queue(selftest);
    state.report = text;
    showReport(JSON.parse(text));
    $('save-report').disabled = false;
  } catch (err) {
    st.className = 'summary fail';
    st.textContent = 'The self-test could not run: ' + explain(err);
  } finally {
    $('run-selftest').disabled = false;
  }
}

// ---- start ----

function wire() {
  const input = $('files');
  input.addEventListener('change', () => { hashFiles([...input.files]); input.value = ''; });
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (state.ready) hashFiles([...e.dataTransfer.files]);
  });
  $('save-sums').addEventListener('click', () =>
    save('b3sums.txt', state.sums.map((s) => b3sumLine(s.hex, s.name) + '\n').join(''), 'text/plain'));
  $('clear-sums').addEventListener('click', () => { state.sums = []; renderSums(); });
  $('commit').addEventListener('click', commitSums);
  const lf = $('leaves-file');
  lf.addEventListener('change', () => { if (lf.files[0]) commitLeavesFile(lf.files[0]); lf.value = ''; });
  $('save-leaves').addEventListener('click', () => save('leaves.bin', state.leaves, 'application/octet-stream'));
  $('leaf').addEventListener('change', showProof);
  $('save-proof').addEventListener('click', () => save('proof.json', $('proof').textContent, 'application/json'));
  $('run-selftest').addEventListener('click', runSelftest);
  $('save-report').addEventListener('click', () => save('selftest.json', state.report, 'application/json'));
  $('use-gpu').addEventListener('change', (e) => openDevice(e.target.checked));
}

async function start() {
  wire();
  if (!('WebAssembly' in globalThis)) {
    notice('This browser cannot run WebAssembly, which this page needs.', 'error');
    return;
  }
  try {
    wg = await load('wgweb.wasm');
  } catch (err) {
    notice('Could not load the WebAssembly module: ' + explain(err), 'error');
    $('device-name').textContent = 'not loaded';
    return;
  }
  const gpu = params.get('gpu') !== '0';
  $('use-gpu').checked = gpu;
  await openDevice(gpu);
  state.ready = true;
  $('run-selftest').disabled = false;
  renderSums();
  document.body.dataset.ready = '1';
}

start();
