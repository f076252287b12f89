// CPU time of the processes a benchmark runs (Linux /proc), to tell where a
// scenario's time goes: each named process's own CPU (and the kernel's part
// of it, where fork's page-table copies land), the CPU of its waited
// children (the tasks' processes), the CPU of its live children and of what
// they reaped (the dispatcher's spawn helper and the tasks it spawned), and the benchmark's PostgreSQL cluster
// (live backends plus the postmaster's reaped children; other clusters on the
// machine are left out). Clock ticks: 10 ms resolution.
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** A process's parent and CPU (ms) from /proc/<pid>/stat; null once it is gone. */
export function procStat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return { ppid: Number(f[1]), self: (Number(f[11]) + Number(f[12])) * TICK_MS, sys: Number(f[12]) * TICK_MS, children: (Number(f[13]) + Number(f[14])) * TICK_MS };
  } catch {
    return null; // gone
  }
}

/** CPU of one cluster: its postmaster, the live children, and (cutime) the children it reaped. */
function postgresMs(postmasterPid) {
  const master = procStat(postmasterPid);
  if (!master) return NaN;
  let ms = master.self + master.children;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = procStat(d);
    if (s?.ppid === postmasterPid) ms += s.self;
  }
  return ms;
}

/**
 * A CPU clock over `pids` (name -> pid) and the PostgreSQL cluster whose
 * postmaster is `postmasterPid`: `take()` returns ms used so far; `since(a,
 * b)` the difference. A backend that exits between two takes but is not yet
 * reaped is missed (its CPU shows up later): connection pools keep theirs.
 */
export function cpuClock(pids, postmasterPid) {
  return {
    take() {
      const out = { postgres: postgresMs(postmasterPid) };
      // Live child processes of each named one (the dispatcher's spawn helper): their own CPU and that of the children they reaped (the tasks).
      const helpers = {};
      for (const d of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(d)) continue;
        if (Object.values(pids).includes(Number(d))) continue; // a named process of its own (the services are the benchmark's children)
        const s = procStat(d);
        const name = s && Object.entries(pids).find(([, pid]) => pid === s.ppid)?.[0];
        if (name) helpers[name] = (helpers[name] ?? 0) + s.self + s.children;
      }
      for (const [name, pid] of Object.entries(pids)) {
        const s = procStat(pid);
        out[name] = s?.self ?? NaN;
        out[`${name}_kernel`] = s?.sys ?? NaN;
        out[`${name}_children`] = s?.children ?? NaN;
        out[`${name}_live_children`] = helpers[name] ?? 0;
      }
      return out;
    },
    /** CPU ms between two takes, divided by `per` (tasks), keeping only non-zero entries. */
    since(a, b, per = 1) {
      const out = {};
      for (const k of Object.keys(b)) {
        const v = (b[k] - a[k]) / per;
        if (v) out[k] = +v.toFixed(2);
      }
      return out;
    },
  };
}
