// svc executions replay: a new execution of an ended one with inputs and
// labels changed, from a task, on the pinned or the latest flow revision
// (the replayExecution extension, docs/using/executions.md#replay). It asks
// for the plan first (a dry run) and prints it, then starts the replay; with
// --dry-run it stops after the plan. Input values go as typed: the server
// coerces them to the chosen revision's input types and names a wrong one.
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { serialize } from '../ui/output.js';
import type { Answer, RequestBody } from '../api/types.js';
import { collect, keyValues } from './key-values.js';

type Plan = Answer<'replayExecution', 200>;

/** The plan as lines: the revision, each reused task with the run it copies, each task that runs, the changed inputs. */
export function planText(id: string, p: Plan): string {
  const width = Math.max(0, ...p.reuse.map((r) => r.task_id.length), ...p.run.map((k) => k.length));
  const lines = [`replay of ${id} on the ${p.revision.kind} revision${p.revision.flow_revision_id ? ` ${p.revision.flow_revision_id}` : ''}`];
  for (const r of p.reuse) lines.push(`  reuse  ${r.task_id.padEnd(width)}  (task run ${r.task_run_id})`);
  for (const k of p.run) lines.push(`  run    ${k}`);
  lines.push(`changed inputs: ${p.changed_inputs.length ? p.changed_inputs.join(', ') : 'none'}`);
  return `${lines.join('\n')}\n`;
}

const REPLAY_HELP = `
Inputs and labels are merged over the original's (--label key= with an empty
value sets it empty; the API's null removes one). --from TASK runs that task
and every task downstream of it; the other tasks whose run in the original
succeeded are reused. Without --from every task runs. The plan is printed
first (on stderr; on stdout with --dry-run), then the new execution's id.

A dry run changes nothing anywhere: the service answers the plan and starts
nothing, and no audit event is written.

Example:
  svc executions replay 0193... --input date=2026-11-01 --from load --latest
`;

export function registerExecutionReplay(ex: Command, app: App): void {
  withOutput(
    ex
      .command('replay')
      .description('Replay an ended execution: inputs and labels changed, from a task (the ones before it reused), on the pinned or latest revision')
      .argument('<id>', 'the execution to replay (ended)')
      .option('-i, --input <key=value>', "an input merged over the original's (repeatable)", collect, [])
      .option('-l, --label <key=value>', "a label merged over the original's (repeatable)", collect, [])
      .option('--from <task>', 'the task to replay from (it and the tasks downstream of it run)')
      .option('--latest', "the flow's current revision and the namespace's current files (default: the original's, pinned)")
      .option('--dry-run', 'print the plan (what is reused, what runs) and start nothing'),
  )
    .addHelpText('after', REPLAY_HELP)
    .action(async (id: string, opts: { input: string[]; label: string[]; from?: string; latest?: boolean; dryRun?: boolean }, cmd: Command) => {
      const api = app.client(cmd);
      const format = app.format(cmd);
      const inputs = keyValues(opts.input, '--input');
      const labels = keyValues(opts.label, '--label');
      const body: RequestBody<'replayExecution'> = {
        ...(Object.keys(inputs).length ? { inputs } : {}),
        ...(Object.keys(labels).length ? { labels } : {}),
        ...(opts.from !== undefined ? { from: opts.from } : {}),
        ...(opts.latest ? { revision: 'latest' as const } : {}),
      };
      const at = { params: { path: { executionId: id } } };
      const plan = await api.post('/api/v1/executions/{executionId}/replay', { ...at, body: { ...body, dry_run: true } });
      if ('id' in plan) throw new Error('the dry run answered an execution where a plan was expected');
      if (opts.dryRun) {
        app.io.stdout.write(format === 'table' ? planText(id, plan) : serialize(plan, format));
        return;
      }
      app.io.stderr.write(planText(id, plan));
      const e = await api.post('/api/v1/executions/{executionId}/replay', { ...at, body });
      if (!('id' in e)) throw new Error('the replay answered a plan where an execution was expected');
      if (format !== 'table') app.io.stdout.write(serialize(e, format));
      else app.io.stdout.write(`${e.id}\n`);
      app.io.stderr.write(`execution ${e.id} of ${e.namespace}/${e.flow_id ?? '(file)'} is ${e.state}\n`);
    });
}
