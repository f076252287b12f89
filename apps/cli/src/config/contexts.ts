// Named contexts (kubectl style): each is a server URL and an API token. The
// file lives under the user's config directory and holds credentials, so it is
// written with mode 0600 (and re-chmodded when an older file was looser).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { CliError } from '../io.js';

/** Where the CLI talks to when neither a context nor SVC_URL says otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface SvcContext {
  name: string;
  url: string;
  /** API token (`svc_...`). */
  token: string;
  /** Id of the token when `svc login` created it, so `svc logout` can revoke it. */
  token_id?: string;
  /** Email of the user the token belongs to, for `svc context list`. */
  user?: string;
}

export interface ContextsFile {
  current?: string;
  contexts: SvcContext[];
}

/**
 * The contexts file: SVC_CONFIG when set; else `svc/config.yaml` under
 * XDG_CONFIG_HOME, %APPDATA% on Windows, `~/Library/Application Support` on
 * macOS, `~/.config` elsewhere.
 */
export function contextsPath(env: Record<string, string | undefined>): string {
  if (env.SVC_CONFIG) return env.SVC_CONFIG;
  const home = env.HOME ?? os.homedir();
  let base = env.XDG_CONFIG_HOME;
  if (!base && process.platform === 'win32') base = env.APPDATA;
  if (!base && process.platform === 'darwin') base = path.join(home, 'Library', 'Application Support');
  base ??= path.join(home, '.config');
  return path.join(base, 'svc', 'config.yaml');
}

export function readContexts(file: string): ContextsFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] };
    throw err;
  }
  const data = yaml.load(text) as Partial<ContextsFile> | null;
  if (data !== null && (typeof data !== 'object' || (data.contexts !== undefined && !Array.isArray(data.contexts)))) {
    throw new CliError(`${file} is not a svc contexts file`);
  }
  return { ...(data?.current ? { current: data.current } : {}), contexts: data?.contexts ?? [] };
}

/** Writes the file atomically with mode 0600 (directory 0700). */
export function writeContexts(file: string, data: ContextsFile): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `# svc CLI contexts: holds API tokens, keep it private (mode 0600)\n${yaml.dump(data)}`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** A context name from a URL: its host and port (`127.0.0.1:8080`). */
export function contextNameFor(url: string): string {
  return new URL(url).host;
}

export interface Target {
  url: string;
  token?: string;
  /** The context used, when one was. */
  context?: SvcContext;
}

/**
 * SVC_TOKEN, else the content of the file SVC_TOKEN_FILE names less one
 * trailing newline (a CI secret mounted as a file). The rule of @svc/config's
 * secret-files.ts, restated here because the standalone CLI carries none of
 * the server packages.
 */
function envToken(env: Record<string, string | undefined>): string | undefined {
  const file = env.SVC_TOKEN_FILE?.trim();
  if (!file) return env.SVC_TOKEN;
  if (env.SVC_TOKEN?.trim()) throw new CliError('SVC_TOKEN and SVC_TOKEN_FILE are both set; set only one', 2);
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`SVC_TOKEN_FILE: cannot read ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`, 2);
  }
  return content.replace(/\r?\n$/, '');
}

/**
 * Where a command talks to: `--context NAME`, else the current context; then
 * SVC_URL and SVC_TOKEN (or SVC_TOKEN_FILE) override the URL and the token one by one (a CI job
 * sets both and needs no file at all).
 */
export function resolveTarget(env: Record<string, string | undefined>, data: ContextsFile, contextName?: string): Target {
  const name = contextName ?? data.current;
  const ctx = name === undefined ? undefined : data.contexts.find((c) => c.name === name);
  if (contextName !== undefined && !ctx) throw new CliError(`no context named "${contextName}" (see svc context list)`);
  const url = env.SVC_URL || ctx?.url || DEFAULT_URL;
  const token = envToken(env) || ctx?.token;
  return { url: url.replace(/\/+$/, ''), ...(token ? { token } : {}), ...(ctx ? { context: ctx } : {}) };
}
