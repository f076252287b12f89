// Progress bars (cli-progress) for pushes, pulls and downloads, on standard
// error and only when it is a terminal: a pipe or a CI log gets no bar.
import cliProgress from 'cli-progress';
import type { CommandIo } from '../io.js';

export interface Progress {
  increment(n?: number): void;
  stop(): void;
}

const NONE: Progress = { increment: () => undefined, stop: () => undefined };

/** A bar of `total` units (`bytes` shows sizes), or a no-op when standard error is not a terminal. */
export function progressBar(io: CommandIo, label: string, total: number, unit: 'files' | 'bytes' | 'changes' = 'files'): Progress {
  if (!io.stderrIsTTY || total <= 0) return NONE;
  const fmtSize = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: (_opts, params) => {
        const width = 24;
        const done = Math.round(params.progress * width);
        const count = unit === 'bytes' ? `${fmtSize(params.value)}/${fmtSize(params.total)}` : `${params.value}/${params.total} ${unit}`;
        return `${label} [${'#'.repeat(done)}${'-'.repeat(width - done)}] ${Math.round(params.progress * 100)}% ${count}`;
      },
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      noTTYOutput: false,
      fps: 15,
    },
    cliProgress.Presets.legacy,
  );
  bar.start(total, 0);
  return {
    increment: (n = 1) => bar.increment(n),
    stop: () => bar.stop(),
  };
}
