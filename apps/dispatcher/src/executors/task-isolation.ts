// What the process executor does so that its tasks cannot read the
// dispatcher's secrets. Tasks never inherit the dispatcher's environment (the
// runner builds theirs from the spec: runtime contract, flow and task env,
// PATH, HOME, locale). A process of the same OS user could still read the
// dispatcher's environment through /proc/<pid>/environ, and its data
// directory, so a dispatcher running as root runs tasks as SVC_TASK_USER
// (default `nobody`) and:
//   - gives that user the kept working directories and io directories;
//   - makes the path down to SVC_WORK_DIR traversable (o+x), nothing more;
//   - closes the data directory to it: the directory itself keeps only the
//     execute bit for others (0711: no listing, so the work directory inside
//     can be reached), the embedded PostgreSQL's directory stays as its module
//     made it (its files are 0600/0700), and every other entry (the generated
//     master key file, the file object store, anything else) loses all group
//     and other permissions.
// Not root (or SVC_TASK_USER=root): tasks run as the dispatcher's user, which
// isolates nothing from it; see docs/operating/security.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lookupUser, type TaskUser } from '@svc/runner';

/** The task user, or undefined when tasks run as the dispatcher's own user. */
export function taskUserFor(configured: string): TaskUser | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  const user = lookupUser(configured);
  return user.uid === 0 ? undefined : user;
}

/** What an operator should know when tasks run as the dispatcher's own user (taskUserFor gave none). */
export function unisolatedWarning(configured: string): string {
  const uid = os.userInfo().uid;
  const why = uid === 0 ? `SVC_TASK_USER is ${configured}` : 'the dispatcher is not root, so it cannot switch users';
  return (
    `tasks run as the dispatcher's user (uid ${uid}) because ${why}; a task can read the dispatcher's environment ` +
    '(/proc/<pid>/environ: SVC_DATABASE_URL, SVC_MASTER_KEYS...) and its data directory. Run the dispatcher as root with ' +
    'SVC_TASK_USER set to a dedicated user, or run untrusted tasks on the docker or kubernetes executor'
  );
}

/** Entries of the data directory left as their owner made them: the embedded PostgreSQL (its module sets its own modes). */
const KEPT = new Set(['postgres']);

/** Closes `dataDir` to other users but for traversal, and opens the path to `workRoot` for traversal (see above). */
export function closeDataDir(dataDir: string, workRoot: string): void {
  const data = path.resolve(dataDir);
  const work = path.resolve(workRoot);
  if (fs.existsSync(data)) {
    fs.chmodSync(data, (fs.statSync(data).mode & 0o700) | 0o011);
    for (const name of fs.readdirSync(data)) {
      const p = path.join(data, name);
      if (KEPT.has(name) || isInside(p, work)) continue;
      const st = fs.lstatSync(p);
      if (!st.isSymbolicLink()) fs.chmodSync(p, st.mode & 0o700);
    }
  }
  // Every directory from / down to the work root: traversable by others (not readable).
  for (let d = work; ; d = path.dirname(d)) {
    const st = fs.statSync(d, { throwIfNoEntry: false });
    if (st && (st.mode & 0o001) === 0) fs.chmodSync(d, (st.mode & 0o7777) | 0o001);
    if (d === path.dirname(d)) break;
  }
}

const isInside = (parent: string, p: string) => p === parent || p.startsWith(parent + path.sep);
