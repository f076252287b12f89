// Real git remotes for tests, all on this machine: bare repositories reached
// over file://, `git daemon` on loopback (git://), git's own `git
// http-backend` behind a small HTTPS server that demands a token (Basic, as
// git sends it, or Bearer), and an sshd of the test's own (skipped when the
// openssh server is not installed). Every server listens on 127.0.0.1 on a
// free port and is stopped by `close()`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const quietGitEnv = (home: string) => ({
  ...process.env,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
  GIT_TERMINAL_PROMPT: '0',
});

/** A bare repository under `root` with a work tree that commits and pushes to it. */
export class TestRepo {
  readonly bare: string;
  private readonly work: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly root: string,
    readonly name: string,
    readonly branch = 'main',
  ) {
    this.bare = path.join(root, `${name}.git`);
    this.work = path.join(root, `.work-${name}`);
    const home = path.join(root, '.home');
    fs.mkdirSync(home, { recursive: true });
    this.env = quietGitEnv(home);
    this.git(root, ['init', '--quiet', '--bare', `--initial-branch=${branch}`, this.bare]);
    this.git(root, ['init', '--quiet', `--initial-branch=${branch}`, this.work]);
    this.git(this.work, ['remote', 'add', 'origin', this.bare]);
  }

  private git(cwd: string, args: string[]): string {
    return execFileSync('git', args, { cwd, env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  get fileUrl(): string {
    return `file://${this.bare}`;
  }

  /** Writes (string), makes executable (`{content, executable}`) or deletes (null) files, commits and pushes; returns the commit. */
  commit(files: Record<string, string | null | { content: string; executable: boolean }>, message: string): string {
    for (const [p, v] of Object.entries(files)) {
      const f = path.join(this.work, p);
      if (v === null) fs.rmSync(f, { force: true });
      else {
        fs.mkdirSync(path.dirname(f), { recursive: true });
        fs.writeFileSync(f, typeof v === 'string' ? v : v.content);
        fs.chmodSync(f, typeof v !== 'string' && v.executable ? 0o755 : 0o644);
      }
    }
    this.git(this.work, ['add', '-A']);
    this.git(this.work, ['commit', '--quiet', '--allow-empty', '-m', message]);
    this.git(this.work, ['push', '--quiet', 'origin', `HEAD:refs/heads/${this.branch}`]);
    return this.git(this.work, ['rev-parse', 'HEAD']).trim();
  }

  /** A file of a branch (or any revision) in the bare repository; null when absent. */
  show(rev: string, file: string): string | null {
    try {
      return this.git(this.bare, ['show', `${rev}:${file}`]);
    } catch {
      return null;
    }
  }

  branches(): string[] {
    return this.git(this.bare, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']).trim().split('\n').filter(Boolean);
  }

  revParse(rev: string): string {
    return this.git(this.bare, ['rev-parse', rev]).trim();
  }

  /** The message and parent of a commit. */
  log(rev: string): { message: string; parent: string; author: string } {
    const [parent = '', author = '', ...msg] = this.git(this.bare, ['log', '-1', '--format=%P%n%ae%n%B', rev]).split('\n');
    return { parent, author, message: msg.join('\n').trim() };
  }
}

export function tempRoot(prefix = 'svc-gitrepos-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface TestServer {
  /** Base URL; a repository `x` is `${url}/x.git`. */
  url: string;
  close(): Promise<void>;
}

/** `git daemon` serving every repository under `root`, pushes allowed. */
export async function startGitDaemon(root: string): Promise<TestServer> {
  const port = await freePort();
  const child = spawn('git', ['daemon', '--reuseaddr', `--base-path=${root}`, '--export-all', '--enable=receive-pack', '--listen=127.0.0.1', `--port=${port}`, root], {
    stdio: 'ignore',
  });
  await waitForPort(port, child, 'git daemon');
  return { url: `git://127.0.0.1:${port}`, close: () => stop(child) };
}

export interface HttpsGitServer extends TestServer {
  /** PEM of the self-signed certificate (point GIT_SSL_CAINFO at `caFile`). */
  caFile: string;
  /** Every request: method, URL, whether its credential was accepted. */
  requests: { method: string; url: string; authorized: boolean }[];
}

/**
 * HTTPS on 127.0.0.1 in front of `git http-backend` (CGI), serving `root`.
 * A request without `token` as the Basic password (any user name) or as a
 * Bearer token gets 401 with a Basic challenge, as a git host answers.
 */
export async function startHttpsGitServer(root: string, token: string): Promise<HttpsGitServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-https-'));
  const keyFile = path.join(dir, 'key.pem');
  const caFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    {
      stdio: 'ignore',
    },
  );
  const requests: HttpsGitServer['requests'] = [];
  const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(caFile) }, (req, res) => {
    const auth = req.headers.authorization ?? '';
    let authorized = false;
    if (auth.startsWith('Basic ')) authorized = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':').slice(1).join(':') === token;
    else if (auth.startsWith('Bearer ')) authorized = auth.slice(7) === token;
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorized });
    if (!authorized) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const u = new URL(req.url ?? '/', 'https://127.0.0.1');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: 'tester',
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SshGitServer extends TestServer {
  /** `ssh://user@127.0.0.1:port`; a repository is `${url}${absolute path of the bare repo}`. */
  url: string;
  /** The private key sshd accepts (OpenSSH PEM). */
  clientKey: string;
  /** The known_hosts line of the server's host key. */
  knownHosts: string;
  /** A known_hosts line of another key for the same host (a changed host key). */
  wrongKnownHosts: string;
}

/** Why an sshd cannot be started here, or null when it can. */
export function sshdUnavailable(): string | null {
  if (!fs.existsSync('/usr/sbin/sshd')) installSshd();
  if (!fs.existsSync('/usr/sbin/sshd')) return 'no /usr/sbin/sshd (apt-get install openssh-server)';
  try {
    execFileSync('ssh-keygen', ['-h'], { stdio: 'ignore' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'no ssh-keygen';
  }
  return null;
}

/**
 * As root on a Debian machine without sshd, installs Debian's openssh-server
 * (once per machine; the service is not started: policy-rc.d answers 101
 * while the install runs). Concurrent test files wait on dpkg's lock.
 */
function installSshd(): void {
  if (process.getuid?.() !== 0) return;
  const policy = '/usr/sbin/policy-rc.d';
  const guarded = !fs.existsSync(policy);
  const apt = (args: string[]) => {
    try {
      execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
      return true;
    } catch {
      return false;
    }
  };
  try {
    if (guarded) fs.writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    const install = ['install', '-y', '-q', '--no-install-recommends', 'openssh-server'];
    if (!apt(install)) {
      apt(['update', '-q']);
      apt(install);
    }
  } finally {
    if (guarded) fs.rmSync(policy, { force: true });
  }
}

/** An sshd on 127.0.0.1 accepting one generated key for the current user; git runs through it as on any host. */
export async function startSshGitServer(): Promise<SshGitServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sshd-'));
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'svc-test', '-f', file], { stdio: 'ignore' });
  keygen(path.join(dir, 'host'));
  keygen(path.join(dir, 'other-host'));
  keygen(path.join(dir, 'client'));
  fs.copyFileSync(path.join(dir, 'client.pub'), path.join(dir, 'authorized_keys'));
  const user = os.userInfo().username;
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(dir, 'host')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      `SetEnv PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      '',
    ].join('\n'),
  );
  // sshd wants its privilege separation directory (made by its init script on a real host).
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    await waitForPort(port, child, 'sshd');
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${stderr}`);
  }
  const pub = (name: string) =>
    fs
      .readFileSync(path.join(dir, `${name}.pub`), 'utf8')
      .trim()
      .split(' ')
      .slice(0, 2)
      .join(' ');
  return {
    url: `ssh://${user}@127.0.0.1:${port}`,
    clientKey: fs.readFileSync(path.join(dir, 'client'), 'utf8'),
    knownHosts: `[127.0.0.1]:${port} ${pub('host')}`,
    wrongKnownHosts: `[127.0.0.1]:${port} ${pub('other-host')}`,
    async close() {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
