// The OS user task processes run as, when the runner (the process executor in
// a dispatcher) runs as root: tasks must not share the dispatcher's user, or
// they could read its environment through /proc (master keys, the database
// URL), its data directory and its files. What the task writes (its working
// directory, outputs file and artifacts) is then owned by this user, and the
// root runner reads those files only when the task user owns them, never
// through a link, so a task cannot make root read a file for it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface TaskUser {
  name: string;
  uid: number;
  gid: number;
  /** The user's home directory from the password database (the task's HOME unless its env sets one). */
  home: string;
}

/** Thrown when the configured task user does not exist. */
export class TaskUserNotFoundError extends Error {
  override readonly name = 'TaskUserNotFoundError';
  constructor(readonly user: string) {
    super(`the task user ${JSON.stringify(user)} (SVC_TASK_USER) does not exist on this machine`);
  }
}

/** Looks a user up by name or numeric uid: `getent passwd` (any name service), else /etc/passwd. */
export function lookupUser(nameOrUid: string): TaskUser {
  let line = '';
  try {
    line = execFileSync('getent', ['passwd', nameOrUid], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0] ?? '';
  } catch {
    const byNumber = /^\d+$/.test(nameOrUid);
    line =
      fs
        .readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((l) => l.split(':')[byNumber ? 2 : 0] === nameOrUid) ?? '';
  }
  const f = line.split(':');
  if (f.length < 7 || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) throw new TaskUserNotFoundError(nameOrUid);
  return { name: f[0], uid: Number(f[2]), gid: Number(f[3]), home: f[5] || '/' };
}

/**
 * Opens a file the task left (outputs file, artifact) for reading, or returns
 * null: not through a link (O_NOFOLLOW), only a regular file, and with a task
 * user only one that user owns (a hard link to a file of root's is refused).
 */
export function openTaskFile(file: string, user: TaskUser | undefined): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile() || (user && st.uid !== user.uid)) {
    fs.closeSync(fd);
    return null;
  }
  return { fd, size: st.size };
}
