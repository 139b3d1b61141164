#!/usr/bin/env node
// render.mjs: the Chart.js + @napi-rs/canvas side of tools/pngbench.
//
// Draws the benchmark chart (30 bars "C0".."C29", values 40 + (i*53) % 420,
// title "Thirty bars and their labels", one series, y grid, white
// background) into an 800×600 PNG at a device pixel ratio of 1 or 2, N
// times after a warm-up, and prints one line of JSON:
//
//   {"renders":N,"p50_ms":…,"p99_ms":…,"per_second":…,"bytes":…, …}
//
// One timed render is what chartd does per uncached request, minus HTTP and
// SVG: build the chart from its data (new canvas, new Chart, draw) and
// encode the PNG. The last bar's value changes on every render, as in
// run.sh's uncached chartd runs. --mode update instead keeps one chart and
// only swaps the data (chart.update()), the cheapest Chart.js can do.
//
// Node runs JavaScript on one thread: with --workers 1 (the default) renders
// are sequential, so per_second is 1000/mean on one core. --workers W starts
// W worker_threads, each with its own warm-up and share of the N renders, all
// timed together: per_second is then N / wall time (the concurrent figure),
// and p50/p99 are over every render of every worker.
//
// Flags: --n 200 --warmup 20 --scale 1|2 --out sample.png --workers 1
//        --mode new|update --width 800 --height 600
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createCanvas } from '@napi-rs/canvas';
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Title } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Title);

const TITLE = 'Thirty bars and their labels';
const LABELS = Array.from({ length: 30 }, (_, i) => `C${i}`);
const values = (variant) => {
  const v = LABELS.map((_, i) => 40 + ((i * 53) % 420));
  // Same picture for variant 0; otherwise the last bar moves a little, so
  // every render draws different data (as chartd's uncached runs do).
  if (variant) v[v.length - 1] += variant % 97;
  return v;
};

// Paints the white background: Chart.js itself leaves the canvas transparent.
const whiteBackground = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

function config(scale, variant) {
  return {
    type: 'bar',
    data: { labels: LABELS, datasets: [{ label: 'value', data: values(variant), backgroundColor: '#2f6fde' }] },
    options: {
      animation: false,
      responsive: false,
      maintainAspectRatio: false,
      devicePixelRatio: scale,
      layout: { padding: 16 },
      events: [],
      font: { family: "'Liberation Sans', 'DejaVu Sans', Arial, sans-serif" },
      plugins: {
        title: { display: true, text: TITLE, align: 'start', font: { size: 18, weight: 'bold' } },
        legend: { display: false },
        tooltip: { enabled: false },
      },
      scales: {
        x: { grid: { display: false } },
        y: { beginAtZero: true, grid: { display: true } },
      },
    },
    plugins: [whiteBackground],
  };
}

// renderer returns an async function that renders one picture (variant n)
// and answers its PNG bytes.
function renderer({ width, height, scale, mode }) {
  if (mode === 'update') {
    const canvas = createCanvas(width, height);
    const chart = new Chart(canvas, config(scale, 0));
    return async (variant) => {
      chart.data.datasets[0].data = values(variant);
      chart.update('none');
      return canvas.encode('png');
    };
  }
  return async (variant) => {
    const canvas = createCanvas(width, height);
    const chart = new Chart(canvas, config(scale, variant));
    const png = await canvas.encode('png');
    chart.destroy();
    return png;
  };
}

// loop warms up, then times n renders; answers the latencies (ms).
async function loop(opts, n, warmup, offset) {
  const render = renderer(opts);
  for (let i = 0; i < warmup; i++) await render(1000 + i);
  const ms = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await render(offset + i + 1);
    ms[i] = performance.now() - t0;
  }
  return { ms };
}

const pct = (sorted, p) => sorted[Math.min(Math.floor((sorted.length * p) / 100), sorted.length - 1)];
const round = (x) => Math.round(x * 1000) / 1000;

if (!isMainThread) {
  // A worker: wait for the start signal so every worker's timed part
  // overlaps, then send back the latencies.
  const { opts, n, warmup, offset } = workerData;
  const render = renderer(opts);
  for (let i = 0; i < warmup; i++) await render(1000 + i);
  parentPort.postMessage({ ready: true });
  parentPort.once('message', async () => {
    const ms = new Array(n);
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await render(offset + i + 1);
      ms[i] = performance.now() - t0;
    }
    parentPort.postMessage({ ms });
  });
} else {
  const { values: f } = parseArgs({
    options: {
      n: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '20' },
      scale: { type: 'string', default: '1' },
      out: { type: 'string', default: '' },
      workers: { type: 'string', default: '1' },
      mode: { type: 'string', default: 'new' },
      width: { type: 'string', default: '800' },
      height: { type: 'string', default: '600' },
    },
  });
  const n = Number(f.n), warmup = Number(f.warmup), workers = Number(f.workers);
  const opts = { width: Number(f.width), height: Number(f.height), scale: Number(f.scale), mode: f.mode };
  if (!(n > 0) || !(warmup >= 0) || !(workers >= 1) || !(opts.scale >= 1 && opts.scale <= 4) || !['new', 'update'].includes(opts.mode)) {
    console.error('render.mjs: want --n >0, --warmup >=0, --workers >=1, --scale 1..4, --mode new|update');
    process.exit(2);
  }

  // The sample PNG (and its size) is the benchmark chart itself, variant 0.
  const sample = await renderer(opts)(0);
  if (f.out) writeFileSync(f.out, sample);

  let ms, wall;
  if (workers === 1) {
    // Sequential renders: the timed part's wall time is the sum of them.
    ({ ms } = await loop(opts, n, warmup, 0));
    wall = ms.reduce((a, b) => a + b, 0);
  } else {
    const self = fileURLToPath(import.meta.url);
    const share = (w) => Math.floor(n / workers) + (w < n % workers ? 1 : 0);
    const ws = Array.from({ length: workers }, (_, w) =>
      new Worker(self, { workerData: { opts, n: share(w), warmup, offset: w * 100000 } }));
    await Promise.all(ws.map((w) => new Promise((ok, bad) => {
      w.once('message', ok);
      w.once('error', bad);
    })));
    const t0 = performance.now();
    const done = ws.map((w) => new Promise((ok, bad) => {
      w.once('message', (m) => ok(m.ms));
      w.once('error', bad);
    }));
    ws.forEach((w) => w.postMessage('go'));
    ms = (await Promise.all(done)).flat();
    wall = performance.now() - t0;
    await Promise.all(ws.map((w) => w.terminate()));
  }
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(JSON.stringify({
    renders: ms.length,
    p50_ms: round(pct(sorted, 50)),
    p99_ms: round(pct(sorted, 99)),
    per_second: round((ms.length * 1000) / wall),
    bytes: sample.length,
    scale: opts.scale,
    width: opts.width * opts.scale,
    height: opts.height * opts.scale,
    mode: opts.mode,
    workers,
    chartjs: Chart.version,
  }));
}
