// Pieces of bench/logs.bench.mjs: task runs claimed by the benchmark itself
// (it plays the runners), runnerPostLogs over keep-alive HTTP, and a small
// SSE reader that stamps each event's arrival.
import http from 'node:http';
import path from 'node:path';
import { root } from './svc-deployment.mjs';

const engine = await import(path.join(root, 'packages/engine/dist/internal.js'));
const dbLib = await import(path.join(root, 'packages/db/dist/index.js'));

export const RUNNER_INSTANCE = 'bench-runner';

/**
 * Registers the benchmark as an online instance serving `pools` and keeps its
 * heartbeat, so maintenance does not fail the task runs it claims as lost.
 * Returns the stop function.
 */
export async function beOnline(pool, pools) {
  const reg = { id: RUNNER_INSTANCE, kind: 'dispatcher', hostname: 'bench', version: 'bench', pools, executors: ['process'] };
  await dbLib.registerInstance(pool, reg, new Date());
  const t = setInterval(() => void dbLib.heartbeatInstance(pool, RUNNER_INSTANCE, new Date()).catch(() => undefined), 5000);
  return () => clearInterval(t);
}

/** Percentile of a sorted array. */
export const q = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
export const round = (x, d = 2) => +x.toFixed(d);

/**
 * Waits until `count` task runs of execution `executionId` are QUEUED in a pool no dispatcher serves,
 * claims them as a dispatcher would, and signs a run token for each.
 */
export async function claimAll(pool, executionId, pools, count) {
  for (let i = 0; ; i++) {
    const r = await pool.query(`SELECT count(*)::int AS n FROM task_runs WHERE execution_id = $1 AND state = 'QUEUED'`, [executionId]);
    if (r.rows[0].n >= count) break;
    if (i > 400) throw new Error(`task runs of ${executionId} never queued`);
    await new Promise((res) => setTimeout(res, 25));
  }
  const claimed = await engine.claimTaskRuns(pool, { instanceId: RUNNER_INSTANCE, pools, executorType: 'process', limit: count, now: new Date() });
  const key = await engine.loadRunTokenKey(pool);
  return claimed.map((c) => ({ id: c.id, taskKey: c.task_key, token: engine.signRunToken(key, c.id, new Date(Date.now() + 3600_000)) }));
}

const jsonOfText = new Map();
const textJson = (t) => {
  let j = jsonOfText.get(t);
  if (j === undefined) {
    j = JSON.stringify(t);
    if (jsonOfText.size < 10_000) jsonOfText.set(t, j);
  }
  return j;
};

/** A runner's connection: POSTs on one keep-alive socket, like `svc exec`. */
export function runnerClient(base, run) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const u = new URL(`${base}/api/runner/v1/task-runs/${run.id}/logs`);
  let n = 0;
  // Nanosecond stamps as decimal strings, increasing: the millisecond and a counter within it (no BigInt per line).
  let lastMs = 0;
  let sub = 0;
  const stamp = () => {
    const ms = Date.now();
    if (ms > lastMs) {
      lastMs = ms;
      sub = 0;
    } else if (++sub === 1_000_000) {
      lastMs++;
      sub = 0;
    }
    return `${lastMs}${String(sub).padStart(6, '0')}`;
  };
  return {
    get n() {
      return n;
    },
    /** Posts `texts` as the next lines of the run; resolves when the gateway answered. */
    post(texts) {
      // The body JSON.stringify would make, built from each text's JSON kept between posts: the benchmark
      // shares the machine with the gateway and PostgreSQL, and its own CPU per line should stay small.
      let body = '{"lines":[';
      for (let i = 0; i < texts.length; i++) body += `${i ? ',' : ''}{"n":${++n},"ts":"${stamp()}","stream":"stdout","text":${textJson(texts[i])}}`;
      body += ']}';
      return new Promise((resolve, reject) => {
        const req = http.request(
          u,
          { method: 'POST', agent, headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode < 300 ? resolve() : reject(new Error(`runnerPostLogs answered ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Opens an event stream; `onEvent(event, data, atMs)` is called for each event as it arrives. */
export function openStream(url, token, onEvent) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (d) => {
        const at = performance.now();
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!block.startsWith(':')) onEvent(event, data, at);
        }
      });
      res.on('error', () => undefined);
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}
