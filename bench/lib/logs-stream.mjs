// A live log stream client for bench/logs.bench.mjs that keeps up with
// 100,000 lines a second at little CPU: it counts `line` events and, once per
// chunk received, reads the `ts` of the newest line in it (the stamp the
// runner gave the line when it built its batch), so its lag is the time from
// the runner to this client through the POST, the commit, the NOTIFY, the
// stream's read and the socket. It does not parse every event: the benchmark
// shares the machine with the gateway and PostgreSQL.
import http from 'node:http';

const MARK = 'event: line\n';
const TS = '"ts":"';

/** Milliseconds since the epoch of an RFC 3339 stamp with nine fraction digits (`…T00:00:00.123456789Z`). */
const tsMs = (s) => Date.parse(`${s.slice(0, 23)}Z`) + Number(`0.${s.slice(23, 29)}`);

/**
 * Follows `url` (streamExecutionLogs) with `token`. `lines` counts the line
 * events received; `lagMs` holds one sample per chunk (newest line's arrival
 * minus its stamp) with the time it was taken, `atMs` (performance.now()).
 */
export function followLogStream(url, token) {
  const state = { lines: 0, lagMs: [], ended: false, error: undefined };
  const waiters = new Set();
  let req;
  const opened = new Promise((resolve, reject) => {
    req = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let tail = '';
      res.on('data', (chunk) => {
        const text = tail + chunk;
        let count = 0;
        for (let i = text.indexOf(MARK); i >= 0; i = text.indexOf(MARK, i + MARK.length)) count++;
        // A marker split between two chunks is counted with the next one.
        tail = text.slice(Math.max(0, text.length - MARK.length + 1));
        if (tail.includes('\n')) tail = tail.slice(tail.lastIndexOf('\n') + 1);
        state.lines += count;
        const t = text.lastIndexOf(TS);
        if (t >= 0 && text.length >= t + TS.length + 30) {
          const at = performance.now();
          state.lagMs.push({ atMs: at, lagMs: performance.timeOrigin + at - tsMs(text.slice(t + TS.length, t + TS.length + 30)) });
        }
        if (text.includes('event: end\n')) state.ended = true;
        for (const w of waiters) w();
      });
      res.on('error', (err) => (state.error = err));
      resolve();
    });
    req.on('error', reject);
  });
  return {
    state,
    opened,
    /** Resolves true once `lines` line events arrived, false after `timeoutMs`. */
    waitFor(lines, timeoutMs) {
      return new Promise((resolve) => {
        const check = () => {
          if (state.lines < lines) return;
          done(true);
        };
        const done = (ok) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => req?.destroy(),
  };
}
