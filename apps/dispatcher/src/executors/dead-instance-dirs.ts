// The process executor's per-instance directories (extracted bundles, kept
// working directories, io directories) under a work directory that several
// dispatchers may share: those a dead dispatcher left are removed at start.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Removes the directories (under each parent, one per dispatcher instance)
 * of instances that are not online: left by a dispatcher that died. Those of
 * online instances sharing this work directory, and `self`'s, stay. Returns
 * the paths removed.
 *
 * The directories are listed before the online instances are read: a
 * dispatcher registers its instance before it makes its directories, so
 * every directory listed first belongs to an instance the read sees. Read
 * first, a dispatcher starting beside this one could register just after
 * the read and make its directories just before the listing, and lose them
 * (its tasks then failed with ENOENT: seen in a test run with two
 * dispatchers starting at once).
 */
export async function removeDeadInstanceDirs(parents: readonly string[], self: string, onlineIds: () => Promise<Iterable<string>>): Promise<string[]> {
  const listed = parents.map((parent) => ({ parent, names: fs.existsSync(parent) ? fs.readdirSync(parent) : [] }));
  const online = new Set(await onlineIds());
  online.add(self);
  const removed: string[] = [];
  for (const { parent, names } of listed) {
    for (const name of names) {
      if (online.has(name)) continue;
      const dir = path.join(parent, name);
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  return removed;
}
