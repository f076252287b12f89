// Artifacts: every regular file the task left under $SVC_ARTIFACTS_DIR, named by
// its path relative to that directory (always with `/`). Links are not followed:
// a link to /etc/passwd must not become an artifact.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from './errors.js';
import { openTaskFile, type TaskUser } from './task-user.js';
import type { RunnerTransport } from './types.js';

export interface ArtifactFile {
  name: string;
  path: string;
  size: number;
}

/** Regular files under `dir`, sorted by name; `skipped` names entries that are neither files nor directories. */
export async function listArtifacts(dir: string): Promise<{ files: ArtifactFile[]; skipped: string[] }> {
  const files: ArtifactFile[] = [];
  const skipped: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    // Synchronous: the directory is usually empty, and a trip through the thread pool costs more than the call.
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      // gone or unreadable: nothing to upload from it
    }
    for (const e of entries) {
      const childAbs = path.join(abs, e.name);
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(childAbs, childRel);
      else if (e.isFile()) {
        const st = await fsp.lstat(childAbs).catch(() => null);
        if (st?.isFile()) files.push({ name: childRel, path: childAbs, size: st.size });
      } else skipped.push(childRel);
    }
  };
  await walk(dir, '');
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  skipped.sort();
  return { files, skipped };
}

/**
 * Uploads the artifacts under `dir`; returns warning texts for what was skipped or failed.
 * @param maxBytes largest artifact; 0 or less = no limit.
 */
export async function uploadArtifacts(transport: RunnerTransport, dir: string, maxBytes: number, user?: TaskUser): Promise<string[]> {
  const warnings: string[] = [];
  const { files, skipped } = await listArtifacts(dir);
  for (const name of skipped) warnings.push(`[svc] artifact ${name} skipped: not a regular file`);
  for (const f of files) {
    if (maxBytes > 0 && f.size > maxBytes) {
      warnings.push(`[svc] artifact ${f.name} skipped: ${f.size} bytes exceeds the limit of ${maxBytes} bytes`);
      continue;
    }
    // Opened without following a link, and with a task user only a file it owns: never another file the runner may read.
    const opened = openTaskFile(f.path, user);
    if (!opened) {
      warnings.push(`[svc] artifact ${f.name} skipped: not a regular file of the task`);
      continue;
    }
    let sha256: string;
    try {
      sha256 = await fdSha256(opened.fd);
    } catch (err) {
      fs.closeSync(opened.fd);
      warnings.push(`[svc] artifact ${f.name} skipped: cannot be read: ${errorMessage(err)}`);
      continue;
    }
    // The descriptor outlives the stream: a retried upload reads it again from its start (reopenFileStream).
    const body = fdStream(opened.fd);
    // The consumer sees read errors through its own reading; this handler only keeps an
    // open still in flight when an upload fails early (the run directory is removed next) from crashing the process.
    body.on('error', () => {});
    try {
      await transport.putArtifact(f.name, body, f.size, { sha256 });
    } catch (err) {
      warnings.push(`[svc] artifact ${f.name} upload failed: ${errorMessage(err)}`);
    } finally {
      body.destroy();
      fs.closeSync(opened.fd);
    }
  }
  return warnings;
}

/** Descriptors of the streams made by fdStream, which leave them open. */
const streamFds = new WeakMap<fs.ReadStream, number>();
/** The descriptor's `close`, left to the caller that opened it. */
const keepOpen = { open: fs.open, read: fs.read, close: (_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => cb(null) };

/**
 * A stream over an open file from its start that never closes the
 * descriptor (the caller does), so the file can be read again, for a
 * checksum or a retried upload, without opening it by name a second time.
 */
export function fdStream(fd: number): fs.ReadStream {
  const s = fs.createReadStream('', { fd, start: 0, autoClose: false, fs: keepOpen });
  streamFds.set(s, fd);
  return s;
}

/** The sha256 (hex) of an open file, read from its start; the descriptor stays open. */
export async function fdSha256(fd: number): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fdStream(fd)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * A fresh stream over the same file from its start, for a retried upload: by
 * its descriptor (fdStream) or its path. Null for any other stream, which the
 * caller must read once into memory if it wants to resend it.
 */
export function reopenFileStream(body: NodeJS.ReadableStream): (() => fs.ReadStream) | null {
  if (!(body instanceof fs.ReadStream)) return null;
  const fd = streamFds.get(body);
  if (fd !== undefined) return () => fdStream(fd);
  if (typeof body.path === 'string' && body.path !== '') {
    const p = body.path;
    return () => fs.createReadStream(p);
  }
  return null;
}
