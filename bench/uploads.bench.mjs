// Benchmark: uploads stream through the gateway (issue #44, "Streaming end to
// end"). Ten clients upload 200 MiB each at once with createUpload (the file
// input upload, `POST /api/v1/namespaces/{ns}/uploads`), each body streamed
// over HTTP with its sha256 declared in `x-svc-sha256`, against a real
// api-gateway process (dispatcher and maintenance beside it) on an embedded
// PostgreSQL and the file object store, as `npm start` runs it.
//
// Reported: the gateway's resident memory before, its peak while the ten
// uploads run (sampled every 50 ms from /proc) and the growth, the aggregate
// MiB/s, and that every upload was stored with the size and sha256 sent.
// Target: the growth stays under 100 MiB (one upload is 200 MiB: a gateway
// that held bodies would grow by gigabytes). BENCH_UPLOADS and
// BENCH_UPLOAD_MIB change the count and the size.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { rssMiB } from './lib/rss.mjs';
import { root, startDeployment } from './lib/svc-deployment.mjs';

const { startPostgresKeeper } = await import(path.join(root, 'packages/db/dist/index.js'));

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 10);
const MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 200);
const TARGET_GROWTH_MIB = 100;

/** One upload of `mib` MiB (a random MiB, each copy with its index stamped in, so no two MiBs are equal). */
function upload(base, token, ns, name, mib) {
  const block = randomBytes(1 << 20);
  const chunk = (i) => {
    const b = Buffer.from(block);
    b.writeUInt32BE(i, 0);
    return b;
  };
  const hash = createHash('sha256');
  for (let i = 0; i < mib; i++) hash.update(chunk(i));
  const sha256 = hash.digest('hex');
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api/v1/namespaces/${ns}/uploads?name=${encodeURIComponent(name)}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'content-length': mib << 20, 'x-svc-sha256': sha256 },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => (res.statusCode === 201 ? resolve({ sent: sha256, stored: JSON.parse(text) }) : reject(new Error(`upload ${name}: ${res.statusCode} ${text}`))));
      },
    );
    req.on('error', reject);
    let i = 0;
    const write = () => {
      while (i < mib) if (!req.write(chunk(i++))) return void req.once('drain', write);
      req.end();
    };
    write();
  });
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-uploads-'));
  fs.chmodSync(dir, 0o755);
  const cluster = await startPostgresKeeper(path.join(dir, 'pg'), { database: 'svc', ephemeral: true, stdio: 'ignore' });
  const stops = [() => cluster.stop()];
  try {
    const d = await startDeployment({ url: cluster.url, dir: path.join(dir, 'svc'), env: { SVC_MAX_INPUT_FILE_BYTES: `${MIB + 1}MiB` } });
    stops.unshift(() => d.stop());
    const gateway = d.procs['api-gateway'].child.pid;
    const token = (await d.api('POST', '/api/v1/tokens', { name: 'bench-uploader', role: 'admin' })).body.secret;
    await d.api('POST', '/api/v1/namespaces', { name: 'files' });
    // Warm the route (auth, the upload path, the object store) with a small upload.
    await upload(d.base, token, 'files', 'warm.bin', 1);
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssMiB(gateway);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gateway))), 50);
    const t0 = performance.now();
    let results;
    try {
      results = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => upload(d.base, token, 'files', `part-${i}.bin`, MIB)));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - t0) / 1000;
    const wrong = results.filter((r) => r.stored.sha256 !== r.sent || r.stored.size !== MIB << 20);
    if (wrong.length) throw new Error(`${wrong.length} uploads stored other bytes than sent`);
    const growth = peak - before;
    return {
      uploads: UPLOADS,
      mib_each: MIB,
      seconds: Math.round(seconds * 10) / 10,
      mib_per_second: Math.round((UPLOADS * MIB) / seconds),
      gateway_rss_mib: { before: Math.round(before), peak: Math.round(peak), growth: Math.round(growth) },
      target: `growth < ${TARGET_GROWTH_MIB} MiB`,
      met: growth < TARGET_GROWTH_MIB,
      stored_with_sent_sha256: results.length,
    };
  } finally {
    for (const s of stops) await s().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
