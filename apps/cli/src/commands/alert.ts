// svc alert: alert rules and their deliveries, through
// /api/v1/alerts. A rule's channels are given as flags: --email
// ORG:FROM:TO, --webhook URL --signing-secret NAME, --slack-secret NAME;
// secrets are named, never given, so no value passes through the CLI.
import type { Command } from 'commander';
import { ALERT_EVENTS } from '@svc/vocabulary';
import type { components } from '@svc/api-spec/openapi-types';
import { splitFlowRef, withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { colorsFor, renderTable, serialize, when } from '../ui/output.js';

type AlertRule = components['schemas']['AlertRule'];
type Channel = AlertRule['channels'][number];
type CreateRequest = components['schemas']['CreateAlertRuleRequest'];

const EVENTS: readonly string[] = ALERT_EVENTS;

function channelText(c: Channel): string {
  switch (c.type) {
    case 'email':
      return `email ${c.to}`;
    case 'webhook':
      return `webhook ${c.url}`;
    case 'slack':
      return `slack (secret ${c.url_secret})`;
  }
}

function seconds(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)(s|m|h|d)?$/.exec(v);
  if (!m) throw new CliError(`${flag} takes a duration such as 90s, 15m, 2h or 1d, got "${v}"`, 2);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
}

interface CreateOptions {
  name?: string;
  on: string[];
  lateAfter?: string;
  scheduleGrace?: string;
  email: string[];
  webhook?: string;
  signingSecret?: string;
  slackSecret?: string;
  rateLimit?: string;
  disabled?: boolean;
}

/** The createAlertRule body of `svc alert create SCOPE ...`: SCOPE is a namespace, or NAMESPACE/FLOW. */
export function createBody(scope: string, o: CreateOptions): CreateRequest {
  const where = scope.includes('/') ? splitFlowRef(scope) : { namespace: scope, flowId: undefined };
  const events = o.on
    .flatMap((e) => e.split(','))
    .map((e) => e.trim())
    .filter(Boolean);
  for (const e of events) if (!EVENTS.includes(e)) throw new CliError(`--on takes ${EVENTS.join(', ')}; got "${e}"`, 2);
  const channels: Channel[] = [];
  for (const e of o.email) {
    const [organization, from, to, ...rest] = e.split(':');
    if (!organization || !from || !to || rest.length) throw new CliError(`--email takes ORGANIZATION:FROM:TO, got "${e}"`, 2);
    channels.push({ type: 'email', organization, from, to });
  }
  if (o.webhook) {
    if (!o.signingSecret) throw new CliError('--webhook needs --signing-secret NAME (the secret whose value signs the body)', 2);
    channels.push({ type: 'webhook', url: o.webhook, signing_secret: o.signingSecret });
  } else if (o.signingSecret) {
    throw new CliError('--signing-secret goes with --webhook', 2);
  }
  if (o.slackSecret) channels.push({ type: 'slack', url_secret: o.slackSecret });
  if (!channels.length) throw new CliError('give at least one channel: --email, --webhook or --slack-secret', 2);
  const late = seconds(o.lateAfter, '--late-after');
  const grace = seconds(o.scheduleGrace, '--schedule-grace');
  return {
    name: o.name ?? `${scope} ${events.join(', ')}`,
    namespace: where.namespace,
    ...(where.flowId ? { flow_id: where.flowId } : {}),
    events: events as CreateRequest['events'],
    ...(late !== undefined ? { late_after_seconds: late } : {}),
    ...(grace !== undefined ? { schedule_grace_seconds: grace } : {}),
    channels,
    ...(o.rateLimit !== undefined ? { rate_limit_per_hour: Number(o.rateLimit) } : {}),
    ...(o.disabled ? { enabled: false } : {}),
  };
}

const collect = (v: string, prev: string[]) => [...prev, v];

export function registerAlert(program: Command, app: App): void {
  const { io } = app;
  const alert = program.command('alert').description('Alert rules: failed, timed out, recovered and late executions by email, webhook or Slack');

  withOutput(alert.command('list').description('Alert rules, newest first')).action(async (_o: unknown, cmd: Command) => {
    const rules = await app.client(cmd).all('/api/v1/alerts');
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(rules, format));
    io.stdout.write(
      renderTable(
        rules,
        [
          ['ID', (r) => r.id],
          ['NAME', (r) => r.name],
          ['SCOPE', (r) => (r.flow_id ? `${r.namespace}/${r.flow_id}` : `${r.namespace} (and children)`)],
          ['EVENTS', (r) => r.events.join(',')],
          ['CHANNELS', (r) => r.channels.map(channelText).join('; ')],
          ['ENABLED', (r) => (r.enabled ? 'yes' : 'no')],
        ],
        colorsFor(io),
      ),
    );
  });

  withOutput(
    alert
      .command('create <scope>')
      .description('Create a rule for a namespace (and its children) or NAMESPACE/FLOW')
      .requiredOption('--on <events>', `events, comma-separated: ${EVENTS.join(', ')}`, collect, [])
      .option('--name <name>', 'the rule name (default: the scope and events)')
      .option('--late-after <duration>', 'late: an execution still running this long (90s, 15m, 2h)')
      .option('--schedule-grace <duration>', 'late: a schedule this long past its due time without firing')
      .option('--email <org:from:to>', 'email through an organization of the email interface (repeatable)', collect, [])
      .option('--webhook <url>', 'POST the JSON message, signed')
      .option('--signing-secret <name>', 'the secret whose value keys the webhook signature')
      .option('--slack-secret <name>', 'the secret that holds a Slack-compatible incoming webhook URL')
      .option('--rate-limit <n>', 'alerts per hour, past which they are suppressed (default 20)')
      .option('--disabled', 'create it disabled'),
  ).action(async (scope: string, o: CreateOptions, cmd: Command) => {
    const rule = await app.client(cmd).post('/api/v1/alerts', { body: createBody(scope, o) });
    const format = app.format(cmd);
    io.stdout.write(format === 'table' ? `${rule.id}\n` : serialize(rule, format));
    io.stderr.write(`alert rule ${rule.id} "${rule.name}" created\n`);
  });

  alert
    .command('delete <id>')
    .description('Delete a rule and its deliveries')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await app.client(cmd).delete('/api/v1/alerts/{ruleId}', { params: { path: { ruleId: id } } });
      io.stderr.write(`alert rule ${id} deleted\n`);
    });

  withOutput(alert.command('deliveries <id>').description("A rule's deliveries, newest first, with their attempts").option('--limit <n>', 'at most this many', '50')).action(
    async (id: string, o: { limit: string }, cmd: Command) => {
      const rows = await app.client(cmd).all('/api/v1/alerts/{ruleId}/deliveries', { params: { path: { ruleId: id } } }, Number(o.limit) || 50);
      const format = app.format(cmd);
      if (format !== 'table') return void io.stdout.write(serialize(rows, format));
      io.stdout.write(
        renderTable(
          rows,
          [
            ['CREATED', (d) => when(d.created_at)],
            ['EVENT', (d) => d.event],
            ['EXECUTION', (d) => d.execution_id ?? d.subject],
            ['CHANNEL', (d) => `${d.channel_type} ${d.target}`],
            ['STATUS', (d) => d.status],
            ['ATTEMPTS', (d) => d.attempt_log.map((a) => `#${a.number} ${a.ok ? 'ok' : 'failed'}${a.http_status ? ` ${a.http_status}` : ''}`).join(', ') || String(d.attempts)],
            ['ERROR', (d) => d.error],
          ],
          colorsFor(io),
        ),
      );
    },
  );
}
