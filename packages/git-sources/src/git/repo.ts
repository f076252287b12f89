// The git operations of a source, each in a scratch bare repository of the
// operation (nothing is kept between syncs, so any instance can run any
// sync): look up the branch head, fetch it (depth 1), read the files under a
// directory, and make and push a commit on top of the head.
import fs from 'node:fs';
import path from 'node:path';
import type { AuthSession } from './auth.js';
import { git } from './run.js';

export interface RemoteRef {
  url: string;
  branch: string;
}

/** One file of a commit's tree. */
export interface TreeFile {
  /** Path relative to the directory read. */
  path: string;
  /** Full path in the repository. */
  repoPath: string;
  mode: string;
  oid: string;
  /** Bytes of the blob. */
  size: number;
}

export interface TreeListing {
  files: TreeFile[];
  /** Entries that are not regular files (symlinks, submodules), which namespaces cannot hold. */
  skipped: { path: string; mode: string }[];
}

export interface Commit {
  sha: string;
  message: string;
  authorEmail: string;
}

export class ScratchRepo {
  private constructor(
    private readonly auth: AuthSession,
    readonly gitDir: string,
    private readonly timeoutMs: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** An empty bare repository in the session's directory. */
  static async create(auth: AuthSession, timeoutMs = 300_000, signal?: AbortSignal): Promise<ScratchRepo> {
    const gitDir = path.join(auth.dir, 'repo.git');
    await git(['init', '--bare', '--quiet', gitDir], { cwd: auth.dir, home: auth.home, redactor: auth.redactor, timeoutMs, ...(signal ? { signal } : {}) });
    return new ScratchRepo(auth, gitDir, timeoutMs, signal);
  }

  run(args: string[], extra: { env?: Record<string, string>; input?: Buffer | string } = {}): Promise<Buffer> {
    return git(args, {
      cwd: this.gitDir,
      home: this.auth.home,
      redactor: this.auth.redactor,
      timeoutMs: this.timeoutMs,
      ...(this.signal ? { signal: this.signal } : {}),
      env: { ...this.auth.env, GIT_DIR: this.gitDir, ...extra.env },
      ...(extra.input !== undefined ? { input: extra.input } : {}),
    });
  }

  /** The commit the branch points at on the remote, or null when the branch does not exist. */
  async remoteHead(remote: RemoteRef): Promise<string | null> {
    const out = (await this.run(['ls-remote', '--heads', remote.url, `refs/heads/${remote.branch}`])).toString('utf8');
    const line = out.split('\n').find((l) => l.endsWith(`\trefs/heads/${remote.branch}`));
    return line ? line.split('\t')[0] : null;
  }

  /** Fetches the branch head (depth 1) and describes it. */
  async fetchHead(remote: RemoteRef): Promise<Commit> {
    await this.run(['fetch', '--quiet', '--no-tags', '--depth=1', remote.url, `+refs/heads/${remote.branch}:refs/heads/${remote.branch}`]);
    const sha = (await this.run(['rev-parse', '--verify', `refs/heads/${remote.branch}^{commit}`])).toString('utf8').trim();
    const [authorEmail = '', ...message] = (await this.run(['log', '-1', '--format=%ae%n%B', sha])).toString('utf8').split('\n');
    return { sha, authorEmail, message: message.join('\n').trim() };
  }

  /** Every entry under `dir` ('' for the root) of `commit`'s tree. */
  async listTree(commit: string, dir: string): Promise<TreeListing> {
    const args = ['ls-tree', '-r', '-z', '-l', '--full-tree', commit];
    if (dir) args.push('--', `${dir}/`);
    const out = (await this.run(args)).toString('utf8');
    const listing: TreeListing = { files: [], skipped: [] };
    for (const entry of out.split('\0')) {
      if (!entry) continue;
      const tab = entry.indexOf('\t');
      const [mode, type, oid, size] = entry.slice(0, tab).split(/ +/) as [string, string, string, string];
      const repoPath = entry.slice(tab + 1);
      const rel = dir ? repoPath.slice(dir.length + 1) : repoPath;
      if (type === 'blob' && (mode === '100644' || mode === '100755')) listing.files.push({ path: rel, repoPath, mode, oid, size: Number(size) });
      else listing.skipped.push({ path: rel, mode });
    }
    return listing;
  }

  /** The contents of blobs, by oid (one `cat-file --batch` for all). */
  async readBlobs(oids: string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const out = new Map<string, Buffer>();
    if (!unique.length) return out;
    const buf = await this.run(['cat-file', '--batch'], { input: unique.join('\n') + '\n' });
    let at = 0;
    while (at < buf.length) {
      const nl = buf.indexOf(0x0a, at);
      const [oid, type, size] = buf.subarray(at, nl).toString('utf8').split(' ');
      if (type !== 'blob') throw new Error(`object ${oid} is ${type}, not a blob`);
      const n = Number(size);
      out.set(oid, buf.subarray(nl + 1, nl + 1 + n));
      at = nl + 1 + n + 1;
    }
    return out;
  }

  /** Writes blobs for contents (one `hash-object --stdin-paths`); returns their oids in order. */
  async writeBlobs(contents: Buffer[]): Promise<string[]> {
    if (!contents.length) return [];
    const dir = fs.mkdtempSync(path.join(path.dirname(this.gitDir), 'blobs-'));
    const files = contents.map((c, i) => {
      const f = path.join(dir, String(i));
      fs.writeFileSync(f, c);
      return f;
    });
    const out = (await this.run(['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: files.join('\n') + '\n' })).toString('utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    return out.trim().split('\n');
  }

  /**
   * A commit whose tree is `base`'s with `updates` applied (oid null removes
   * the path), parent `base`. Returns null when the tree would not change.
   */
  async commitOnto(
    base: string,
    updates: { repoPath: string; mode: string; oid: string | null }[],
    meta: { message: string; authorName: string; authorEmail: string },
  ): Promise<string | null> {
    const index = path.join(path.dirname(this.gitDir), 'index');
    const env = { GIT_INDEX_FILE: index };
    await this.run(['read-tree', base], { env });
    const lines = updates.map((u) => (u.oid ? `${u.mode} ${u.oid}\t${u.repoPath}` : `0 ${'0'.repeat(40)}\t${u.repoPath}`));
    await this.run(['update-index', '-z', '--index-info'], { env, input: lines.join('\0') + '\0' });
    const tree = (await this.run(['write-tree'], { env })).toString('utf8').trim();
    const baseTree = (await this.run(['rev-parse', `${base}^{tree}`])).toString('utf8').trim();
    if (tree === baseTree) return null;
    const sha = await this.run(['commit-tree', tree, '-p', base, '-F', '-'], {
      input: meta.message.endsWith('\n') ? meta.message : `${meta.message}\n`,
      env: { GIT_AUTHOR_NAME: meta.authorName, GIT_AUTHOR_EMAIL: meta.authorEmail },
    });
    return sha.toString('utf8').trim();
  }

  /** Pushes `commit` to a new branch of the remote (refused by the remote if the branch exists). */
  async pushNewBranch(url: string, commit: string, branch: string): Promise<void> {
    await this.run(['push', '--quiet', '--porcelain', url, `${commit}:refs/heads/${branch}`]);
  }
}
