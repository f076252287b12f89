// svc executions approve|reject|pause|resume: the people in the loop of an
// execution (extensions: approveTaskRun, rejectTaskRun, pauseExecution,
// resumeExecution). A decision goes to the server as given; the server
// decides who may approve, which form fields are required and whether the
// task is waiting at all, and its error (code, message, fields) is printed
// as every command prints one.
import type { Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import { withOutput, type App } from '../app.js';
import { decisionText, latestRun, pausedText } from '../ui/approval.js';
import { serialize } from '../ui/output.js';
import type { Execution } from '../api/types.js';
import { coerce, collect, keyValues } from './key-values.js';

const DECIDE_HELP = `
The task must be waiting at its approval gate (reason awaiting_approval; see
svc executions get ID). Deciding takes a role on the flow's namespace of at
least the gate's approvers.role, or membership of one of its groups.`;

/**
 * The `--input` values typed by the gate's form (number and boolean fields),
 * read from the execution as it is; a field the form does not declare, or a
 * gate not reached yet, keeps the string (the server decides).
 */
async function formInputs(api: ApiClient, id: string, task: string, pairs: string[]): Promise<Record<string, unknown> | undefined> {
  const given = keyValues(pairs, '--input');
  if (!Object.keys(given).length) return undefined;
  const e = await api.get('/api/v1/executions/{executionId}', { params: { path: { executionId: id } } });
  const types = new Map((latestRun(e.task_runs, task)?.approval?.form ?? []).map((f) => [f.id, f.type]));
  return Object.fromEntries(Object.entries(given).map(([k, v]) => [k, coerce(v, types.get(k), k)]));
}

/** The execution on stdout for -o json|yaml; what happened on stderr, as `svc executions cancel` says it. */
function report(app: App, cmd: Command, e: Execution, said: string): void {
  const format = app.format(cmd);
  if (format !== 'table') app.io.stdout.write(serialize(e, format));
  app.io.stderr.write(`${said}\n`);
}

export function registerExecutionGates(ex: Command, app: App): void {
  withOutput(
    ex
      .command('approve')
      .description('Approve a task waiting at its approval gate: it runs, and later tasks read the decision as tasks.<task>.approval')
      .argument('<id>', 'the execution')
      .requiredOption('-t, --task <id>', 'the task waiting for approval')
      .option('-i, --input <key=value>', "a field of the gate's form (repeatable); typed from the form (number, boolean)", collect, [])
      .option('-m, --comment <text>', 'recorded with the decision and in the audit log'),
  )
    .addHelpText('after', `${DECIDE_HELP}\n\nExample:\n  svc executions approve 0193... --task deploy --input ticket=CHG-1 --comment "window agreed"\n`)
    .action(async (id: string, opts: { task: string; input: string[]; comment?: string }, cmd: Command) => {
      const api = app.client(cmd);
      const inputs = await formInputs(api, id, opts.task, opts.input);
      const e = await api.post('/api/v1/executions/{executionId}/tasks/{taskKey}/approve', {
        params: { path: { executionId: id, taskKey: opts.task } },
        body: { ...(inputs ? { inputs } : {}), ...(opts.comment !== undefined ? { comment: opts.comment } : {}) },
      });
      report(app, cmd, e, decisionText(opts.task, latestRun(e.task_runs, opts.task), 'approved'));
    });

  withOutput(
    ex
      .command('reject')
      .description('Reject a task waiting at its approval gate: it ends FAILED (rejected), so tasks with run_if: failure run')
      .argument('<id>', 'the execution')
      .requiredOption('-t, --task <id>', 'the task waiting for approval')
      .option('-m, --comment <text>', 'recorded with the decision and in the audit log'),
  )
    .addHelpText('after', DECIDE_HELP)
    .action(async (id: string, opts: { task: string; comment?: string }, cmd: Command) => {
      const e = await app.client(cmd).post('/api/v1/executions/{executionId}/tasks/{taskKey}/reject', {
        params: { path: { executionId: id, taskKey: opts.task } },
        body: opts.comment !== undefined ? { comment: opts.comment } : {},
      });
      report(app, cmd, e, decisionText(opts.task, latestRun(e.task_runs, opts.task), 'rejected'));
    });

  withOutput(ex.command('pause').description('Pause a running execution: no new task run starts (running ones finish) until resume; cancel still works').argument('<id>')).action(
    async (id: string, _o, cmd: Command) => {
      const e = await app.client(cmd).post('/api/v1/executions/{executionId}/pause', { params: { path: { executionId: id } } });
      report(app, cmd, e, `execution ${id} is ${e.state}${e.paused ? `, ${pausedText(e)}` : ''}`);
    },
  );

  withOutput(ex.command('resume').description('Resume a paused execution: it goes on where it stopped').argument('<id>')).action(async (id: string, _o, cmd: Command) => {
    const e = await app.client(cmd).post('/api/v1/executions/{executionId}/resume', { params: { path: { executionId: id } } });
    report(app, cmd, e, `execution ${id} is ${e.state}${e.paused ? `, ${pausedText(e)}` : ', not paused'}`);
  });
}
