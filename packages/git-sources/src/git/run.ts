// Runs the system `git` binary (no shell, arguments as an array). Its
// environment is built here rather than inherited: no user or system git
// config (so no credential helper or URL rewrite of the host applies), no
// terminal prompt, only the transports a source may use (no `ext::`, which
// runs commands), and the credential variables of the one command (auth.ts).
// A few variables an operator needs for the network pass through: CA bundles
// and proxies.
import { spawn } from 'node:child_process';
import { GitCommandError } from '../errors.js';
import type { Redactor } from '../redact.js';

/** Variables of the service's own environment that reach git: trust stores and proxies, nothing else. */
const PASS_THROUGH = [
  'PATH',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
];

/** Transports a git source may use (GIT_ALLOW_PROTOCOL). */
export const ALLOWED_PROTOCOLS = 'file:git:http:https:ssh';

export interface GitRunOptions {
  /** Working directory (a bare repository's path, or where `init` runs). */
  cwd: string;
  /** Variables added for this command (credentials, index file, author). */
  env?: Record<string, string>;
  /** Bytes written to stdin. */
  input?: Buffer | string;
  /** Kills git after this long. Default 300 000 ms. */
  timeoutMs?: number;
  /** Masks credentials in the error message. */
  redactor: Redactor;
  /** HOME of the command (an empty temp directory). */
  home: string;
  /** Kills git when aborted (the service is stopping). */
  signal?: AbortSignal;
}

export function gitEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_THROUGH) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
    GIT_AUTHOR_NAME: 'svc',
    GIT_AUTHOR_EMAIL: 'svc@localhost',
    GIT_COMMITTER_NAME: 'svc',
    GIT_COMMITTER_EMAIL: 'svc@localhost',
    ...extra,
  };
}

/** Runs `git <args>`; resolves with stdout, rejects with a GitCommandError whose message is redacted stderr. */
export function git(args: string[], opts: GitRunOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: gitEnv(opts.home, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.signal ? { signal: opts.signal, killSignal: 'SIGKILL' as const } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 300_000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => {
      clearTimeout(timer);
      const why = e.name === 'AbortError' ? 'stopped: the service is shutting down' : e.message;
      reject(new GitCommandError(args[0] ?? '', null, opts.redactor.redact(`git ${args[0]}: ${why}`)));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (opts.signal?.aborted) return; // 'error' rejected already
      if (code === 0) return resolve(Buffer.concat(out));
      const text = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-8).join('\n');
      const why = timedOut ? `timed out after ${opts.timeoutMs ?? 300_000} ms` : text || `exit code ${code}`;
      reject(new GitCommandError(args[0] ?? '', timedOut ? null : code, opts.redactor.redact(`git ${args[0]} failed: ${why}`)));
    });
    child.stdin.on('error', () => undefined); // git may exit before reading all of stdin: the exit code tells
    child.stdin.end(opts.input ?? '');
  });
}
