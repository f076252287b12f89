// One container run to its end, for tests: create, start, wait, collect the
// output, and remove the container whatever happened.
import { PassThrough } from 'node:stream';
import type Dockerode from 'dockerode';
import { TEST_LABEL } from './images.js';

export interface ContainerRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a container from `create` (labelled TEST_LABEL, network `host` unless
 * set) to its exit, at most `timeoutMs` (default 60 s; then it is killed and
 * this rejects), and removes it. `beforeStart` may put files into it.
 */
export async function runContainer(
  docker: Dockerode,
  create: Dockerode.ContainerCreateOptions,
  opts: { timeoutMs?: number; beforeStart?: (c: Dockerode.Container) => Promise<void> } = {},
): Promise<ContainerRun> {
  const c = await docker.createContainer({
    ...create,
    Labels: { [TEST_LABEL]: '1', ...create.Labels },
    HostConfig: { NetworkMode: 'host', ...create.HostConfig },
  });
  try {
    await opts.beforeStart?.(c);
    const stream = await c.attach({ stream: true, stdout: true, stderr: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    docker.modem.demuxStream(stream, stdout, stderr);
    const ended = new Promise<void>((resolve) => stream.once('end', () => resolve()));
    await c.start();
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const result = (await Promise.race([
      c.wait(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`container did not exit within ${timeoutMs} ms`)), timeoutMs);
      }),
    ])) as { StatusCode: number };
    clearTimeout(timer);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2000))]);
    return { exitCode: result.StatusCode, stdout: out, stderr: err };
  } finally {
    await c.remove({ force: true, v: true }).catch(() => {});
  }
}
