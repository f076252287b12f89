// svc ai usage (admin): the AI requests and provider tokens of one UTC day,
// per user and for the deployment, against the daily limits
// (SVC_AI_*_PER_DAY), as getAIUsage answers them.
import type { Command } from 'commander';
import type { AIUsage } from '../api/types.js';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { colorsFor, renderTable, serialize, when, type Colors } from '../ui/output.js';

type UserUsage = AIUsage['users'][number];

/** What `--day` accepts: the spec's pattern for the `day` query parameter. */
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** The row label of automatic triage, which counts under the user id `auto`. */
const AUTO_LABEL = '(automatic triage)';

/** `n / limit`, red once the limit is reached (further requests are refused with 429). */
function against(c: Colors, n: number, limit: number | undefined): string {
  if (limit === undefined) return String(n);
  const text = `${n} / ${limit}`;
  return n >= limit ? c.red(text) : text;
}

/** The day's use as a table: one row a user (with the per-user limits), then the deployment's total (with its limits). */
export function renderUsage(u: AIUsage, c: Colors): string {
  type Row = { who: string; requests: number; tokens: number; requestLimit?: number; tokenLimit?: number };
  const user = (x: UserUsage): Row =>
    x.user_id === 'auto'
      ? { who: AUTO_LABEL, requests: x.requests, tokens: x.tokens }
      : { who: x.email ?? x.user_id, requests: x.requests, tokens: x.tokens, requestLimit: u.limits.user_requests, tokenLimit: u.limits.user_tokens };
  const rows: Row[] = [
    ...u.users.map(user),
    { who: c.bold('TOTAL'), requests: u.total.requests, tokens: u.total.tokens, requestLimit: u.limits.total_requests, tokenLimit: u.limits.total_tokens },
  ];
  const title = `AI usage of ${u.day} (UTC), counts reset at ${when(u.resets_at)} UTC${u.users.length ? '' : ': no AI requests that day'}\n`;
  return (
    title +
    renderTable(
      rows,
      [
        ['USER', (r) => r.who],
        ['REQUESTS', (r) => against(c, r.requests, r.requestLimit)],
        ['TOKENS', (r) => against(c, r.tokens, r.tokenLimit)],
      ],
      c,
    )
  );
}

export function registerAi(program: Command, app: App): void {
  const { io } = app;
  const ai = program.command('ai').description('The AI assistant: usage against the daily limits (admin)');
  withOutput(
    ai
      .command('usage')
      .description('AI requests and tokens of a UTC day per user and in total, against the daily limits (admin)')
      .option('--day <YYYY-MM-DD>', 'the UTC day (default: today)')
      .option('--json', 'the API object as JSON (same as -o json)'),
  ).action(async (opts: { day?: string; json?: boolean }, cmd: Command) => {
    if (opts.day !== undefined && !DAY.test(opts.day)) throw new CliError(`--day must be a UTC day as YYYY-MM-DD, got "${opts.day}"`, 2);
    const usage = await app.client(cmd).get('/api/v1/ai/usage', opts.day ? { params: { query: { day: opts.day } } } : {});
    const format = opts.json ? 'json' : app.format(cmd);
    io.stdout.write(format === 'table' ? renderUsage(usage, colorsFor(io)) : serialize(usage, format));
  });
}
