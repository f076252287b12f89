// The settings of a git source as createGitSource / updateGitSource take
// them, checked and normalised. Pure: no I/O.
import { NAMESPACE_PATTERN } from '@svc/namespaces';
import { BUILTIN_KEY_PATTERN } from '@svc/secrets';
import { AUTH_TYPES, isAuthType, type AuthType } from './git/auth.js';
import type { GitFieldProblem } from './errors.js';
import { pushPathProblem } from './push-paths.js';

/** The request body (GitSourceRequest of the catalog). */
export interface GitSourceInput {
  name: string;
  repo_url: string;
  branch?: string;
  auth_type?: string;
  credential_secret_key?: string;
  known_hosts?: string;
  webhook_secret_key?: string;
  poll_interval?: number;
  push_paths?: string[];
  mappings: { namespace: string; repo_path: string }[];
}

export interface GitSourceSettings {
  name: string;
  repoUrl: string;
  /** Default `main`. */
  branch: string;
  /** Default `none`. */
  authType: AuthType;
  credentialSecretKey: string;
  knownHosts: string;
  webhookSecretKey: string;
  /** Seconds; 0 (default) disables polling. */
  pollInterval: number;
  /** Globs from the repository root that a push-back may write; default [] (anything under repo_path). CI paths never (push-paths.ts). */
  pushPaths: string[];
  mappings: { namespace: string; repoPath: string }[];
}

export type Transport = 'https' | 'http' | 'ssh' | 'git' | 'file';

/** The transport of a remote URL, or a reason it is refused. */
export function transportOf(url: string): { ok: true; transport: Transport } | { ok: false; message: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return { ok: false, message: 'must not contain spaces or control characters' };
  if (url.startsWith('-')) return { ok: false, message: 'must not start with -' };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) {
    const s = scheme[1].toLowerCase();
    if (!['https', 'http', 'ssh', 'git', 'file'].includes(s)) return { ok: false, message: `scheme ${s} is not one of https, http, ssh, git, file` };
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { ok: false, message: 'is not a valid URL' };
    }
    // A credential in the URL would be printed by git, shown in the API object and stored in the row:
    // credentials go in a secret. Over http(s) the user name alone can be the token
    // (https://<token>@host/...), so any user info is refused; ssh keeps its user (git@host).
    if (u.password || (u.username && s !== 'ssh')) {
      return { ok: false, message: 'must not hold credentials (user info): put the token in a platform secret, name it in credential_secret_key and set auth_type' };
    }
    if (s !== 'file' && !u.hostname) return { ok: false, message: 'needs a host' };
    return { ok: true, transport: s as Transport };
  }
  // scp-like ssh: [user@]host:path
  if (/^([A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:[^/].*|^([A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:\/.+/.test(url) && !url.includes('::')) return { ok: true, transport: 'ssh' };
  return { ok: false, message: 'must be an https://, http://, ssh://, git:// or file:// URL, or user@host:path' };
}

/** Branch names git accepts (a conservative subset of check-ref-format). */
export function branchProblem(branch: string): string | null {
  if (!branch) return 'must not be empty';
  if (branch.length > 255) return 'must be at most 255 characters long';
  if (!/^[A-Za-z0-9._/-]+$/.test(branch)) return 'may hold only letters, digits, ., _, / and -';
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.') || branch.endsWith('.lock')) return 'is not a valid branch name';
  if (branch.includes('..') || branch.includes('//') || branch.split('/').some((p) => p.startsWith('.'))) return 'is not a valid branch name';
  return null;
}

/** `repo_path`: a directory of the repository, '' for the root; leading and trailing slashes are dropped. */
export function normalizeRepoPath(p: string): { ok: true; path: string } | { ok: false; message: string } {
  const t = p.replace(/^\/+|\/+$/g, '');
  if (t === '' || t === '.') return { ok: true, path: '' };
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(t)) return { ok: false, message: 'must use / as the separator and hold no control characters' };
  const parts = t.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..')) return { ok: false, message: 'must not contain ".." segments' };
  return { ok: true, path: parts.join('/') };
}

/** Checks a create or update request; the settings, or every problem found. */
export function parseGitSourceInput(b: GitSourceInput): { ok: true; settings: GitSourceSettings } | { ok: false; problems: GitFieldProblem[] } {
  const problems: GitFieldProblem[] = [];
  const name = b.name.trim();
  if (!name) problems.push({ field: 'name', message: 'must not be blank' });
  const t = transportOf(b.repo_url);
  if (!t.ok) problems.push({ field: 'repo_url', message: t.message });
  const branch = b.branch ?? 'main';
  const bp = branchProblem(branch);
  if (bp) problems.push({ field: 'branch', message: bp });
  const authType = b.auth_type ?? 'none';
  if (!isAuthType(authType)) problems.push({ field: 'auth_type', message: `must be one of ${AUTH_TYPES.join(', ')}` });
  const credentialSecretKey = b.credential_secret_key ?? '';
  if (authType !== 'none' && !credentialSecretKey)
    problems.push({ field: 'credential_secret_key', message: `is required for auth_type ${authType}: the name of a platform secret holding the credential` });
  if (credentialSecretKey && !BUILTIN_KEY_PATTERN.test(credentialSecretKey)) problems.push({ field: 'credential_secret_key', message: 'is not a platform secret name' });
  if (authType === 'none' && credentialSecretKey) problems.push({ field: 'credential_secret_key', message: 'is only for auth_type token, basic or ssh' });
  const knownHosts = (b.known_hosts ?? '').replace(/\r\n/g, '\n').trim();
  if (t.ok) {
    if (authType === 'ssh' && t.transport !== 'ssh') problems.push({ field: 'auth_type', message: 'ssh needs an ssh:// or user@host:path repo_url' });
    if ((authType === 'token' || authType === 'basic') && t.transport !== 'https' && t.transport !== 'http')
      problems.push({ field: 'auth_type', message: `${authType} needs an https:// repo_url` });
    // Host keys are checked strictly: without a known host every connection fails.
    if (t.transport === 'ssh' && !knownHosts)
      problems.push({ field: 'known_hosts', message: 'is required for an ssh remote: its host key lines (ssh-keyscan output, checked before use)' });
  }
  const webhookSecretKey = b.webhook_secret_key ?? '';
  if (webhookSecretKey && !BUILTIN_KEY_PATTERN.test(webhookSecretKey)) problems.push({ field: 'webhook_secret_key', message: 'is not a platform secret name' });
  const pollInterval = b.poll_interval ?? 0;
  const pushPaths = b.push_paths ?? [];
  pushPaths.forEach((g, i) => {
    const problem = pushPathProblem(g);
    if (problem) problems.push({ field: `push_paths[${i}]`, message: problem });
  });
  const mappings: GitSourceSettings['mappings'] = [];
  const seen = new Set<string>();
  if (b.mappings.length === 0) problems.push({ field: 'mappings', message: 'needs at least one mapping' });
  b.mappings.forEach((m, i) => {
    if (!NAMESPACE_PATTERN.test(m.namespace)) problems.push({ field: `mappings[${i}].namespace`, message: 'is not a namespace name' });
    else if (seen.has(m.namespace)) problems.push({ field: `mappings[${i}].namespace`, message: `${m.namespace} is mapped twice` });
    seen.add(m.namespace);
    const rp = normalizeRepoPath(m.repo_path);
    if (!rp.ok) problems.push({ field: `mappings[${i}].repo_path`, message: rp.message });
    else mappings.push({ namespace: m.namespace, repoPath: rp.path });
  });
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    settings: { name, repoUrl: b.repo_url, branch, authType: authType as AuthType, credentialSecretKey, knownHosts, webhookSecretKey, pollInterval, pushPaths, mappings },
  };
}
