// Resident memory of a process (Linux /proc), as the benchmarks report it.
import fs from 'node:fs';

/** VmRSS of process `pid` (this process by default) in MiB, unrounded; NaN once it is gone. */
export function rssMiB(pid = 'self') {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}
