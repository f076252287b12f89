// The run token of a docker task, delivered as a file. A run token reports
// its task run and fetches its spec, which holds the secret values the task
// resolved: in the container's environment it would be readable by whoever
// can inspect the container (`docker inspect`) and, through
// /proc/1/environ, by every process in it. So the token is written into the
// created container before it starts, as /.svc-token/token, mode 0400 and
// its directory 0700, both owned by the user the container runs as (the
// image's USER, or root); the runner finds it through SVC_RUN_TOKEN_FILE,
// reads it and removes it before the task starts (packages/runner
// exec/args.ts), and the container's removal takes the rest.
import type Docker from 'dockerode';
import tar from 'tar-stream';

/** Where the token file is in the container. */
export const TOKEN_DIR = '/.svc-token';
export const TOKEN_FILE = `${TOKEN_DIR}/token`;

/** A container's user is not one its image knows. */
export class ContainerUserError extends Error {
  override readonly name = 'ContainerUserError';
}

/** The first file of a tar stream, as text. */
async function firstFile(stream: NodeJS.ReadableStream): Promise<string> {
  const extract = tar.extract();
  let text: string | undefined;
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (_header, body, next) => {
      const chunks: Buffer[] = [];
      body.on('data', (c) => void (text === undefined && chunks.push(c as Buffer)));
      body.on('end', () => {
        text ??= Buffer.concat(chunks).toString('utf8');
        next();
      });
      body.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  stream.pipe(extract);
  await done;
  return text ?? '';
}

/** The id a name has in a passwd or group file, or undefined. */
function idIn(file: string, name: string, field: number): number | undefined {
  const line = file.split('\n').find((l) => l.split(':')[0] === name);
  const id = line?.split(':')[field];
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
}

async function fileOf(container: Docker.Container, path: string): Promise<string> {
  try {
    return await firstFile(await container.getArchive({ path }));
  } catch {
    return '';
  }
}

/**
 * The uid and gid a container's processes run as, from its configured
 * user: empty (root), `uid[:gid]`, or names looked up in the container's
 * own /etc/passwd and /etc/group. A user with no gid gets the passwd's
 * primary group (0 when the uid is not listed).
 */
export async function containerIdentity(container: Docker.Container, user: string): Promise<{ uid: number; gid: number }> {
  if (!user) return { uid: 0, gid: 0 };
  const [u = '', g] = user.split(':');
  let passwd: string | undefined;
  const readPasswd = async () => (passwd ??= await fileOf(container, '/etc/passwd'));
  let uid: number;
  if (/^\d+$/.test(u)) uid = Number(u);
  else {
    const found = idIn(await readPasswd(), u, 2);
    if (found === undefined) throw new ContainerUserError(`the image's user ${u} is not in its /etc/passwd`);
    uid = found;
  }
  let gid: number | undefined;
  if (g === undefined || g === '') {
    const line = (await readPasswd()).split('\n').find((l) => l.split(':')[2] === String(uid));
    const primary = line?.split(':')[3];
    gid = primary !== undefined && /^\d+$/.test(primary) ? Number(primary) : 0;
  } else if (/^\d+$/.test(g)) gid = Number(g);
  else {
    gid = idIn(await fileOf(container, '/etc/group'), g, 2);
    if (gid === undefined) throw new ContainerUserError(`the image's group ${g} is not in its /etc/group`);
  }
  return { uid, gid };
}

/** Writes the token file into a created (not yet started) container, owned by its user. */
export async function putRunToken(container: Docker.Container, token: string): Promise<void> {
  const info = await container.inspect();
  const { uid, gid } = await containerIdentity(container, info.Config.User ?? '');
  const pack = tar.pack();
  const name = TOKEN_DIR.replace(/^\//, '');
  pack.entry({ name: `${name}/`, type: 'directory', mode: 0o700, uid, gid });
  pack.entry({ name: `${name}/token`, mode: 0o400, uid, gid }, token);
  pack.finalize();
  await container.putArchive(pack as unknown as NodeJS.ReadableStream, { path: '/' });
}
