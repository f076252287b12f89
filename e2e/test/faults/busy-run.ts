// The busy run the fault tests break: a namespace of flows that exercise
// every moving part at once (command tasks that print numbered lines, retries,
// http tasks against a local server, subflows, a flow trigger, a schedule and
// a webhook), and a client that submits executions through the API and the
// webhook while a fault is injected, recording which submissions the service
// acknowledged.
import http from 'node:http';
import type net from 'node:net';
import type { Stack } from '../stack.js';
import { flow, sh, sleep, until } from '../engine-support.js';

/** Lines the `lines` task prints (`line I of LINES`), one every 50 ms. */
export const LINES = 20;
/** Lines the subflow's `work` task prints. */
export const LEAF_LINES = 5;

/** A local HTTP server for the http tasks: answers after a short delay; the first call of a key ending in `-h` gets a 503 (the task's retry then succeeds). */
export interface HttpTarget {
  url: string;
  /** Calls per key. */
  calls: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

export async function startHttpTarget(delayMs = 200): Promise<HttpTarget> {
  const calls = new Map<string, number>();
  let total = 0;
  const srv = http.createServer((req, res) => {
    const key = new URL(req.url ?? '/', 'http://x').searchParams.get('key') ?? '';
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    total++;
    setTimeout(() => {
      if (key.endsWith('-h') && n === 1) {
        res.writeHead(503).end('try again');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ key, call: n }));
    }, delayMs);
  });
  srv.keepAliveTimeout = 1000;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    total: () => total,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

/**
 * The flows of one busy namespace:
 * - `busy` (triggered by the test, its webhook `hook` and its minutely
 *   schedule `tick`): `lines` prints LINES numbered lines (and with
 *   `artifact` leaves an artifact `report.txt`); then in parallel
 *   `flaky` (fails its first attempt for keys ending in `-f`), `call` (an
 *   http task; 503 on the first call for keys ending in `-h`) and `child` (a
 *   subflow of `leaf`, waited for). Every task retries up to 3 attempts.
 * - `leaf`: `work` prints LEAF_LINES numbered lines.
 * - `after`: a flow trigger on every end of `busy`.
 */
export function busyFlows(ns: string, targetUrl: string, o: { artifact?: boolean } = {}): Record<string, string> {
  const retry = { max_attempts: 3, initial: '300ms' };
  // With `artifact`, `lines` also leaves report.txt naming its task run.
  const report = o.artifact ? '; echo "report of $SVC_TASK_RUN_ID" > "$SVC_ARTIFACTS_DIR/report.txt"' : '';
  const printLines = (n: number, pause: string, then = '') => sh(`i=1; while [ $i -le ${n} ]; do echo "line $i of ${n}"; i=$((i+1)); sleep ${pause}; done${then}`);
  return {
    'busy.flow.yaml': flow({
      id: 'busy',
      inputs: [{ id: 'key', type: 'string', default: 'schedule' }],
      triggers: [
        { id: 'hook', type: 'webhook', inputs: { key: '{{ trigger.body.key }}' } },
        { id: 'tick', type: 'schedule', cron: '* * * * *', catch_up: 'last' },
      ],
      retry,
      tasks: [
        { id: 'lines', type: 'command', command: printLines(LINES, '0.05', report) },
        {
          id: 'flaky',
          type: 'command',
          depends_on: ['lines'],
          env: { KEY: '{{ inputs.key }}' },
          command: sh('case "$KEY" in *-f) [ "$SVC_ATTEMPT" = 1 ] && { echo "flaky first attempt" >&2; exit 3; };; esac; echo "flaky ok"'),
        },
        { id: 'call', type: 'http', depends_on: ['lines'], url: `${targetUrl}/work?key={{ inputs.key }}`, timeout: '30s' },
        { id: 'child', type: 'subflow', depends_on: ['lines'], flow: `${ns}/leaf`, inputs: { key: '{{ inputs.key }}' } },
      ],
    }),
    'leaf.flow.yaml': flow({
      id: 'leaf',
      inputs: [{ id: 'key', type: 'string' }],
      retry,
      tasks: [{ id: 'work', type: 'command', command: printLines(LEAF_LINES, '0.1') }],
    }),
    'after.flow.yaml': flow({
      id: 'after',
      triggers: [{ id: 'upstream', type: 'flow', flow: `${ns}/busy`, states: ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED'] }],
      retry,
      tasks: [{ id: 'note', type: 'command', command: sh('echo "after $SVC_EXECUTION_ID"') }],
    }),
  };
}

export type Outcome = 'acknowledged' | 'unknown';

export interface Submission {
  key: string;
  via: 'api' | 'webhook';
  outcome: Outcome;
  /** Attempts refused before any byte reached the service (connection refused), retried. */
  refused: number;
  executionId?: string;
}

/** Whether a fetch failure proves the request never reached the server (so a retry cannot duplicate it). */
function neverSent(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNREFUSED';
}

/**
 * Submits executions of `busy` in `ns` until `count` are acknowledged, one
 * in five through the webhook, the rest through triggerFlow, `workers` at a
 * time with a pause between them so they spread over the fault. Keys end in `-f` (every third:
 * flaky's first attempt fails) or `-h` (every seventh: the first http call
 * fails). A refused connection is retried (nothing was sent); any other
 * failure leaves the submission `unknown` (it may or may not have been
 * created, and is not retried: the check is then that it exists at most once).
 */
export function submitBusy(
  s: Stack,
  ns: string,
  o: { count: number; webhookKey: string; workers?: number; pauseMs?: number },
): { done: Promise<Submission[]>; sent: () => number } {
  const out: Submission[] = [];
  let next = 0;
  const keyOf = (i: number) => `${ns}-${i}${i % 3 === 0 ? '-f' : i % 7 === 0 ? '-h' : ''}`;
  const one = async (i: number): Promise<Submission> => {
    const key = keyOf(i);
    const via = i % 5 === 4 ? 'webhook' : 'api';
    let refused = 0;
    for (;;) {
      try {
        const r =
          via === 'api'
            ? await fetch(`${s.url}/api/v1/flows/${ns}/busy/executions`, {
                method: 'POST',
                headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
                body: JSON.stringify({ inputs: { key } }),
                signal: AbortSignal.timeout(30_000),
              })
            : await fetch(`${s.url}/hooks/${o.webhookKey}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ key }),
                signal: AbortSignal.timeout(30_000),
              });
        const body = (await r.json().catch(() => ({}))) as { id?: string; execution_id?: string };
        if (r.status === 201) return { key, via, outcome: 'acknowledged', refused, executionId: body.id ?? body.execution_id };
        // A 5xx answer (the database unreachable, say) may still have been committed before it failed: unknown.
        if (r.status < 500) throw new Error(`submission ${key}: HTTP ${r.status} ${JSON.stringify(body)}`);
        return { key, via, outcome: 'unknown', refused };
      } catch (err) {
        if (!neverSent(err)) {
          if (err instanceof Error && err.message.startsWith('submission ')) throw err;
          return { key, via, outcome: 'unknown', refused };
        }
        refused++;
        await sleep(300);
      }
    }
  };
  const acknowledged = () => out.filter((x) => x.outcome === 'acknowledged').length;
  let inFlight = 0;
  const worker = async () => {
    // Until `count` are acknowledged: a submission left unknown (the service failing) is replaced by a new one, after a pause.
    while (acknowledged() + inFlight < o.count && next < o.count * 4) {
      inFlight++;
      const sub = await one(next++).finally(() => inFlight--);
      out.push(sub);
      await sleep(sub.outcome === 'acknowledged' ? (o.pauseMs ?? 100) : 500);
    }
  };
  const done = Promise.all(Array.from({ length: o.workers ?? 3 }, worker)).then(() => out);
  return { done, sent: () => out.length };
}

/** Saves the busy flows of `ns` and returns the key of its webhook. */
export async function setUpBusy(s: Stack, ns: string, targetUrl: string, o: { artifact?: boolean } = {}): Promise<string> {
  await s.saveFlow(ns, busyFlows(ns, targetUrl, o));
  // The scheduler picks the schedule up within its sync period.
  await until(`the schedule of ${ns}/busy synced`, async () => (await s.db.query(`SELECT 1 FROM schedules WHERE namespace = $1`, [ns])).rowCount, 60_000, 200);
  const r = await s.api('GET', `/api/v1/flows/${ns}/busy`);
  const key = r.body?.triggers?.find((t: { id: string }) => t.id === 'hook')?.webhook_key;
  if (!key) throw new Error(`no webhook key for ${ns}/busy: ${JSON.stringify(r.body)}`);
  return key as string;
}

/**
 * Keeps the schedules of `ns` due: every `everyMs` their next fire time is
 * moved three minutes back, as if the scheduler had been away, so a round
 * shorter than a minute still fires (catch_up `last`: the latest due minute,
 * the same one each push until the clock passes a minute; each must start
 * exactly one execution). Returns a function that stops it.
 */
export function keepSchedulesDue(s: Stack, ns: string, everyMs = 1000): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await s.db.query(`UPDATE schedules SET next_fire_at = next_fire_at - interval '3 minutes' WHERE namespace = $1 AND next_fire_at > now()`, [ns]).catch(() => undefined);
      await sleep(everyMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
