// Arguments of `svc exec`. Flags win over the environment, which containers use
// because it keeps the run token and ids out of the process list.

export const EXEC_USAGE = 'usage: svc exec --server URL --task-run ID (run token in SVC_RUN_TOKEN)\n';

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
export function parseExecArgs(argv: string[], env: NodeJS.ProcessEnv, tmpdir: string): ParsedExecArgs {
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
  const token = env.SVC_RUN_TOKEN ?? '';
  if (!token) return { kind: 'usage-error', message: 'missing SVC_RUN_TOKEN' };
  return { kind: 'run', args: { server, taskRunId, token, workRoot: env.SVC_WORK_ROOT || tmpdir } };
}
