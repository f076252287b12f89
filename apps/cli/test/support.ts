// Test support: the BUILT cli (apps/cli/dist/main.js) run as a subprocess,
// with its own contexts file and HOME, against a real stack (the e2e stack:
// api-gateway, dispatcher and maintenance processes on a database of their own).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const cliMain = path.join(repoRoot, 'apps/cli/dist/main.js');
export { startStack, type Stack } from '../../../e2e/test/stack.js';

export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SvcOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
}

/** A home of its own for the CLI: HOME and SVC_CONFIG under a temp dir. */
export function tempHome(): { dir: string; env: Record<string, string>; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-home-'));
  return {
    dir,
    env: { HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config') },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `node dist/main.js ARGS` and collects its output; never throws on a non-zero exit. */
export function svc(args: string[], opts: SvcOptions = {}): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
    const child = spawn(process.execPath, [cliMain, ...args], { cwd: opts.cwd ?? repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Writes files (path → content) under `dir`; a path ending in `*` is made executable. */
export function writeTree(dir: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    const exec = p.endsWith('*');
    const file = path.join(dir, exec ? p.slice(0, -1) : p);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content, { mode: exec ? 0o755 : 0o644 });
  }
}

/**
 * tmux for the terminal tests: /usr/bin/tmux, else installed with apt-get
 * when running as root; else the reason the tests must skip (said loudly).
 */
export function ensureTmux(): { ok: true } | { ok: false; reason: string } {
  const has = () => spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
  if (has()) return { ok: true };
  if (process.getuid?.() === 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' });
    spawnSync('apt-get', ['install', '-y', 'tmux'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (has()) return { ok: true };
    return { ok: false, reason: 'tmux is missing and apt-get install tmux failed' };
  }
  return { ok: false, reason: 'tmux is missing and this user cannot install it (not root)' };
}

export function loud(lines: string[]): void {
  const bar = '!'.repeat(78);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join('\n')}\n${bar}\n\n`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, ms = 30_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
