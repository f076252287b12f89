// Per-slot io directories for the process executor's runs (the runner's
// `ioDir`): each holds a run's outputs file and artifacts directory. They are
// emptied after each run and reused, like the working directories
// (@svc/runner's WorkdirPool), so a task makes no new directory.
import fs from 'node:fs';
import path from 'node:path';

export class IoDirs {
  private readonly free: string[] = [];
  private seq = 0;

  /**
   * `root` is this dispatcher's own directory (removed and made again here).
   * With `owner` (the task user), each io directory is that user's, so its
   * tasks can write their outputs and artifacts, and the root is traversable
   * but not listable by others (0711).
   */
  constructor(
    private readonly root: string,
    private readonly owner?: { uid: number; gid: number },
  ) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    if (owner) fs.chmodSync(root, 0o711);
  }

  /** An empty io directory (with an empty `artifacts/`) for one run. */
  acquire(): string {
    const reused = this.free.pop();
    if (reused) return reused;
    const dir = path.join(this.root, String(++this.seq));
    fs.mkdirSync(path.join(dir, 'artifacts'), { recursive: true });
    if (this.owner) for (const d of [dir, path.join(dir, 'artifacts')]) fs.chownSync(d, this.owner.uid, this.owner.gid);
    return dir;
  }

  /** Empties a directory after its run and keeps it for the next; one that cannot be emptied (or must not be reused) is dropped. */
  release(dir: string, reusable = true): void {
    try {
      if (!reusable) throw new Error('not reusable');
      const outputs = path.join(dir, 'outputs.jsonl');
      if (fs.lstatSync(outputs, { throwIfNoEntry: false })) fs.rmSync(outputs, { force: true });
      const artifacts = path.join(dir, 'artifacts');
      for (const e of fs.readdirSync(artifacts)) fs.rmSync(path.join(artifacts, e), { recursive: true, force: true });
      if (fs.readdirSync(dir).length !== 1) throw new Error('unexpected entries');
      this.free.push(dir);
    } catch {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  close(): void {
    this.free.length = 0;
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
