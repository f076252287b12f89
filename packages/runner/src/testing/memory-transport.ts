import { readFileSync } from 'node:fs';
// An in-memory RunnerTransport that records every call, for runTask tests.
import fs from 'node:fs/promises';
import { after } from 'node:test';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { Completion, LogLine, RunnerSpec, RunnerTransport } from '../index.js';
import { bundleHashOf } from './runner-server.js';

export function makeSpec(overrides: Partial<RunnerSpec> & Pick<RunnerSpec, 'command'>): RunnerSpec {
  const id = overrides.task_run_id ?? `tr-${Math.random().toString(36).slice(2, 10)}`;
  return {
    task_run_id: id,
    execution_id: 'ex-1',
    flow_id: 'flow-1',
    namespace: 'team.data',
    task_id: 'task-1',
    bundle_hash: '',
    workdir: '',
    attempt: 1,
    env: {
      SVC_EXECUTION_ID: 'ex-1',
      SVC_TASK_RUN_ID: id,
      SVC_TASK_ID: 'task-1',
      SVC_ATTEMPT: '1',
      SVC_NAMESPACE: 'team.data',
      SVC_FLOW_ID: 'flow-1',
    },
    limits: { max_artifact_bytes: 1024 * 1024, max_bundle_bytes: 10 * 1024 * 1024 },
    mask_values: [],
    timeout_seconds: 60,
    ...overrides,
  };
}

export class MemoryTransport implements RunnerTransport {
  readonly calls: string[] = [];
  readonly posts: LogLine[][] = [];
  readonly artifacts = new Map<string, Buffer>();
  /** Uploads of kind `output` (output files), by name, with the sha256 the runner declared. */
  readonly outputFiles = new Map<string, { body: Buffer; sha256: string | undefined }>();
  readonly artifactSizes = new Map<string, number>();
  readonly completions: Completion[] = [];
  heartbeats = 0;
  /** Answer cancel: true from this heartbeat on (1-based); 0 = never. */
  cancelAtHeartbeat = 0;
  private postsInFlight = 0;
  maxPostsInFlight = 0;
  /** Delay of each postLogs call, to let lines pile up. */
  postDelayMs = 0;

  constructor(
    readonly spec: RunnerSpec | (() => Promise<RunnerSpec>),
    readonly bundle: Buffer | null = null,
  ) {}

  get lines(): LogLine[] {
    return this.posts.flat();
  }

  text(stream?: 'stdout' | 'stderr'): string[] {
    return this.lines.filter((l) => !stream || l.stream === stream).map((l) => l.text);
  }

  async getSpec(): Promise<RunnerSpec> {
    this.calls.push('getSpec');
    const spec = typeof this.spec === 'function' ? await this.spec() : structuredClone(this.spec);
    // As the service does: bundle_hash is the sha256 of the bundle served (unless a test sets another).
    return { ...spec, bundle_hash: spec.bundle_hash || bundleHashOf(this.bundle) };
  }

  getBundle(): Promise<NodeJS.ReadableStream | null> {
    this.calls.push('getBundle');
    return Promise.resolve(this.bundle ? Readable.from([this.bundle]) : null);
  }

  /** Files served by getFile, by artifact id. */
  files = new Map<string, Buffer>();

  getFile(artifactId: string): Promise<NodeJS.ReadableStream> {
    this.calls.push(`getFile:${artifactId}`);
    const body = this.files.get(artifactId);
    return body ? Promise.resolve(Readable.from([body])) : Promise.reject(new Error(`no file ${artifactId}`));
  }

  heartbeat(): Promise<{ cancel: boolean }> {
    this.heartbeats++;
    this.calls.push('heartbeat');
    return Promise.resolve({ cancel: this.cancelAtHeartbeat > 0 && this.heartbeats >= this.cancelAtHeartbeat });
  }

  async postLogs(lines: LogLine[]): Promise<void> {
    this.calls.push('postLogs');
    this.postsInFlight++;
    this.maxPostsInFlight = Math.max(this.maxPostsInFlight, this.postsInFlight);
    if (this.postDelayMs) await new Promise((r) => setTimeout(r, this.postDelayMs));
    this.posts.push(structuredClone(lines));
    this.postsInFlight--;
  }

  async putArtifact(name: string, body: NodeJS.ReadableStream, size: number, opts: { kind?: 'artifact' | 'output'; sha256?: string } = {}): Promise<void> {
    this.calls.push(`putArtifact:${name}`);
    const chunks: Buffer[] = [];
    for await (const c of body as AsyncIterable<Buffer>) chunks.push(c);
    if (opts.kind === 'output') {
      this.outputFiles.set(name, { body: Buffer.concat(chunks), sha256: opts.sha256 });
      return;
    }
    this.artifacts.set(name, Buffer.concat(chunks));
    this.artifactSizes.set(name, size);
  }

  complete(c: Completion): Promise<void> {
    this.calls.push('complete');
    this.completions.push(structuredClone(c));
    return Promise.resolve();
  }
}

export interface TarEntry {
  name: string;
  content?: string;
  mode?: number;
  type?: 'file' | 'directory' | 'symlink' | 'link';
  linkname?: string;
}

/** Every entry's modification time: fixed, so the same entries make the same bytes (and the same bundle hash) whenever they are packed. */
const MTIME = new Date('2026-01-01T00:00:00Z');

export async function makeTarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const gz = pack.pipe(zlib.createGzip());
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    gz.on('data', (c: Buffer) => chunks.push(c));
    gz.on('end', resolve);
    gz.on('error', reject);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve());
      if (type === 'file') pack.entry({ name: e.name, mode: e.mode ?? 0o644, type, mtime: MTIME }, e.content ?? '', cb);
      else pack.entry({ name: e.name, mode: e.mode ?? 0o755, type, linkname: e.linkname, mtime: MTIME }, cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A fresh temp directory, removed by the returned cleanup. */
export async function tempRoot(prefix = 'svc-runner-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** A maker of scratch directories for one test file: each is removed once the file's tests are done. */
export function scratchRoots(): () => Promise<string> {
  const roots: string[] = [];
  after(() => Promise.all(roots.map((r) => fs.rm(r, { recursive: true, force: true }))));
  return async () => {
    const r = await tempRoot();
    roots.push(r);
    return r;
  };
}

export async function listDir(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => []);
}

/**
 * Whether a process still runs. A killed process whose parent has exited
 * lingers as a zombie until the system reaps it (slowly on a loaded machine):
 * it runs no more, so it counts as gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
