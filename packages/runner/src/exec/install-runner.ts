// `svc install-runner DEST`: copies the runner bundle this process runs from
// into DEST. A Kubernetes init container runs it from an image that holds the
// bundle at /.svc-runner, so the task's container (any image) can start
// `svc exec` from the shared volume. The bundle directory is found from this
// script's own path, never from process.execPath: under the bundle's explicit
// loader invocation that names the loader, not node.
import fs from 'node:fs/promises';
import path from 'node:path';

export const INSTALL_USAGE = 'usage: svc install-runner DEST (copies the runner bundle svc runs from into DEST)\n';

/** Files every runner bundle holds (see packages/runner-bundle): their presence tells a bundle directory. */
const BUNDLE_MARKERS = ['svc.cjs', 'bin/node', 'lib'];

/** Thrown when svc does not run from a runner bundle (from the sources, say). */
export class NotInBundleError extends Error {
  override readonly name = 'NotInBundleError';
  constructor(readonly dir: string) {
    super(`not running from a runner bundle: ${dir} lacks ${BUNDLE_MARKERS.join(', ')}`);
  }
}

/** The bundle directory that holds `script` (svc.cjs), or a NotInBundleError. */
export async function bundleDirOf(script: string): Promise<string> {
  const dir = path.dirname(await fs.realpath(script));
  for (const m of BUNDLE_MARKERS) {
    if (!(await fs.stat(path.join(dir, m)).catch(() => null))) throw new NotInBundleError(dir);
  }
  return dir;
}

/** Copies the bundle at `bundleDir` into `dest` (created; existing files replaced), modes kept. */
export async function installRunner(bundleDir: string, dest: string): Promise<void> {
  await fs.mkdir(dest, { recursive: true });
  await fs.cp(bundleDir, dest, { recursive: true, force: true, verbatimSymlinks: true });
}
