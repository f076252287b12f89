// Arguments of `svc exec`. Flags win over the environment, which containers use
// because it keeps the ids out of the process list. The run token comes from
// the file SVC_RUN_TOKEN_FILE names (the docker and kubernetes executors'
// way: a token in a container's or pod's environment is readable by whoever
// can inspect it, and by every process of the container through
// /proc/<pid>/environ); the file is removed once read, where it can be (a
// Kubernetes Secret volume is read-only: it goes with the pod). SVC_RUN_TOKEN
// is still read when no file is named (a runner started by hand).
import fs from 'node:fs';

export const EXEC_USAGE = 'usage: svc exec --server URL --task-run ID (run token in the file SVC_RUN_TOKEN_FILE names, or in SVC_RUN_TOKEN)\n';

/** Reads the run token file and removes it (best effort). Throws when it cannot be read. */
export function takeTokenFile(file: string): string {
  const token = fs.readFileSync(file, 'utf8').trim();
  try {
    fs.unlinkSync(file);
  } catch {
    // A read-only volume (a Kubernetes Secret): the file goes with the pod.
  }
  return token;
}

export interface ExecArgs {
  server: string;
  taskRunId: string;
  token: string;
  /** Parent of the run directories: SVC_WORK_ROOT, else the OS temp dir. */
  workRoot: string;
}

export type ParsedExecArgs = { kind: 'help' } | { kind: 'usage-error'; message: string } | { kind: 'run'; args: ExecArgs };

/**
 * `argv` without node and the script; a leading `exec` is accepted, so both
 * `svc exec --server …` and `main.js --server …` work.
 */
export function parseExecArgs(argv: string[], env: NodeJS.ProcessEnv, tmpdir: string, readTokenFile: (file: string) => string = takeTokenFile): ParsedExecArgs {
  const args = argv[0] === 'exec' ? argv.slice(1) : argv;
  let server = env.SVC_SERVER ?? '';
  let taskRunId = env.SVC_TASK_RUN_ID ?? '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    if (flag !== '--server' && flag !== '--task-run') return { kind: 'usage-error', message: `unknown argument ${JSON.stringify(arg)}` };
    const value = eq !== -1 && arg.startsWith('--') ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') return { kind: 'usage-error', message: `${flag} needs a value` };
    if (flag === '--server') server = value;
    else taskRunId = value;
  }
  if (!server) return { kind: 'usage-error', message: 'missing --server (or SVC_SERVER)' };
  if (!/^https?:\/\//.test(server)) return { kind: 'usage-error', message: `--server must be an http(s) URL, got ${JSON.stringify(server)}` };
  if (!taskRunId) return { kind: 'usage-error', message: 'missing --task-run (or SVC_TASK_RUN_ID)' };
  let token = env.SVC_RUN_TOKEN ?? '';
  if (env.SVC_RUN_TOKEN_FILE) {
    try {
      token = readTokenFile(env.SVC_RUN_TOKEN_FILE);
    } catch (err) {
      return { kind: 'usage-error', message: `cannot read the run token file ${env.SVC_RUN_TOKEN_FILE} (SVC_RUN_TOKEN_FILE): ${(err as Error).message}` };
    }
  }
  if (!token)
    return { kind: 'usage-error', message: env.SVC_RUN_TOKEN_FILE ? `the run token file ${env.SVC_RUN_TOKEN_FILE} is empty` : 'missing SVC_RUN_TOKEN_FILE (or SVC_RUN_TOKEN)' };
  return { kind: 'run', args: { server, taskRunId, token, workRoot: env.SVC_WORK_ROOT || tmpdir } };
}
