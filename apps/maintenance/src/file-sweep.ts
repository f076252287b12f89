// Deleting content-addressed file objects (`files/<2 hex>/<sha256>`) that have
// no file_objects row, while saves run.
//
// A save (packages/namespaces save.ts) first looks up which of its contents
// have a row, uploads the others, and only then, in its transaction, writes the
// rows and the snapshot that refers to them. Two interleavings could leave a
// committed snapshot without its object:
//
// 1. The save saw a row (so uploaded nothing) that the cleanup then deleted
//    with its object. Answer: the cleanup never deletes a row's object in the
//    run that deleted the row. The object is then an object without a row,
//    removed by the next run (24 hours later) — by then every save that saw
//    the row has committed its own row, or failed.
// 2. The save saw no row and uploaded the content again just as the cleanup
//    deletes the old orphan object of the same content. Answer: the cleanup
//    holds a placeholder row for each hash it deletes (uncommitted, so the
//    save's own row insert waits for it), stat's the object right before the
//    delete (a fresh upload is younger than the grace period and kept), keeps
//    the deleted bytes, waits `settleMs`, and puts them back when any
//    transaction is waiting on its placeholders. Then it rolls back.
//
// What stays open: a save whose upload lands between the stat and the delete
// (microseconds) and whose row insert comes more than `settleMs` later. Closing
// that needs the save to check its objects after writing their rows (see
// docs/operating/maintenance.md).
import type { ObjectInfo } from '@svc/storage';
import { countRemovedObject, sleep, type CleanupRun } from './cleanup-context.js';
import { claimAbsentFileHashes, waitersOnOwnTransaction } from '@svc/namespaces';

/** Hashes per placeholder transaction. */
const CLAIM_BATCH = 1000;
/** Bytes held in memory per placeholder transaction (the deleted contents, for a put back). */
const CLAIM_BYTES = 64 * 1024 * 1024;
/** A placeholder insert waits at most this long for a save writing the same row, then the batch is left for the next run. */
const LOCK_TIMEOUT_MS = 2_000;

/** `files/ab/ab…` → the hash, or null for a key that is not a content-addressed file object. */
export function fileHashOf(key: string): string | null {
  const m = /^files\/([0-9a-f]{2})\/([0-9a-f]{64})$/.exec(key);
  return m && m[2].startsWith(m[1]) ? m[2] : null;
}

/** Deletes the old file objects among `orphans` (listed without a row), in placeholder transactions. */
export async function deleteOrphanFiles(run: CleanupRun, orphans: ObjectInfo[]): Promise<void> {
  let chunk: ObjectInfo[] = [];
  let bytes = 0;
  for (const o of orphans) {
    if (chunk.length >= CLAIM_BATCH || (chunk.length && bytes + o.size > CLAIM_BYTES)) {
      if (!run.go()) return;
      await claimAndDelete(run, chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(o);
    bytes += o.size;
  }
  if (chunk.length && run.go()) await claimAndDelete(run, chunk);
}

async function claimAndDelete(run: CleanupRun, chunk: ObjectInfo[]): Promise<void> {
  const c = await run.db.pool.connect();
  const held: { key: string; body: Buffer }[] = [];
  const putBack = async () => {
    for (const h of held) await run.storage.put(h.key, h.body, { contentType: 'application/octet-stream' });
    run.tally.kept.restored_files += held.length;
    held.length = 0;
  };
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
    const claimed = new Set(
      await claimAbsentFileHashes(
        c,
        chunk.map((o) => fileHashOf(o.key)!),
        run.now,
      ),
    );
    for (const o of chunk) {
      if (!claimed.has(fileHashOf(o.key)!)) continue; // a row appeared since the listing
      const info = await run.storage.stat(o.key);
      if (!info) continue;
      if (info.lastModified.getTime() >= run.graceCutoff.getTime()) {
        run.tally.kept.young_objects += 1;
        continue;
      }
      let body: Buffer;
      try {
        body = await run.storage.getBuffer(o.key);
      } catch {
        continue; // gone meanwhile
      }
      await run.storage.delete(o.key);
      held.push({ key: o.key, body });
    }
    if (held.length) {
      await sleep(run.settleMs);
      if ((await waitersOnOwnTransaction(c)) > 0) {
        run.log.info('storage cleanup: a save is writing rows of file objects just deleted; putting them back', { objects: held.length });
        await putBack();
      }
    }
    await c.query('ROLLBACK');
    for (const h of held) countRemovedObject(run, h.key, h.body.length);
  } catch (err) {
    // Unsure whether a save needs them: put back what was deleted, leave the rest for the next run.
    await putBack().catch((e: unknown) => run.log.error('storage cleanup: could not put file objects back', { err: e }));
    await c.query('ROLLBACK').catch(() => undefined);
    if ((err as { code?: string }).code === '55P03') {
      run.log.info('storage cleanup: file objects in use by a save; left for the next run', { objects: chunk.length });
      return;
    }
    throw err;
  } finally {
    c.release();
  }
}
