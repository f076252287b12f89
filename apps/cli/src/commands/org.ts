// svc org: organizations of the email interface, their `svc_live_` keys,
// verified senders, daily quotas and the namespaces whose alert rules may
// send as them. Like `svc user`, it works on the
// database directly (SVC_DATABASE_URL, or the embedded PostgreSQL under
// SVC_DATA_DIR), so it works without a running gateway or an admin account
// (admins can also use /api/v1/organizations and Settings › Organizations).
// The rows are written by @svc/identity's organization functions, the same
// code the api-gateway authenticates keys and checks senders and quotas with.
// Where an organization has no own rate or quota, the server's
// SVC_ORG_RATE_LIMIT and SVC_ORG_DAILY_QUOTA apply: shown from this shell's
// environment, else their defaults.
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { openDatabase } from '../db.js';
import { CliError } from '../io.js';
import { printList, printRecord, when } from '../ui/output.js';

/** The server-wide defaults as this shell's environment gives them (else the catalogue's). */
function defaults(env: Record<string, string | undefined>): { rateLimit: number; dailyQuota: number } {
  const num = (text: string | undefined, fallback: number) => (text !== undefined && text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : fallback);
  return { rateLimit: num(env.SVC_ORG_RATE_LIMIT, 10), dailyQuota: num(env.SVC_ORG_DAILY_QUOTA, 10000) };
}

export function registerOrg(program: Command, app: App): void {
  const { io } = app;
  const org = program
    .command('org')
    .description('Organizations of the email interface: svc_live_ keys, verified senders, daily quotas (on the database directly)')
    .addHelpText('after', '\nWorks on SVC_DATABASE_URL, or the embedded PostgreSQL that `npm start` runs under SVC_DATA_DIR.\n');

  /** Runs `fn` on the database, turning the identity package's refusals into CLI errors. */
  const onDb = async <T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>, identity: typeof import('@svc/identity')) => Promise<T>): Promise<T> => {
    const identity = await import('@svc/identity');
    const db = await openDatabase(io);
    try {
      return await fn(db, identity);
    } catch (err) {
      if (err instanceof identity.OrganizationError) throw new CliError(err.message);
      throw err;
    } finally {
      await db.close();
    }
  };

  org
    .command('create')
    .description('Create an organization; prints its id')
    .argument('<name>')
    .option('--rate-limit <per-second>', 'token-bucket refill per second (default SVC_ORG_RATE_LIMIT)')
    .action(async (name: string, opts: { rateLimit?: string }) => {
      const rate = opts.rateLimit !== undefined ? Number(opts.rateLimit) : null;
      if (rate !== null && !(rate > 0)) throw new CliError('--rate-limit must be a positive number', 2);
      const created = await onDb(async (db, identity) => {
        const o = await identity.createOrganization(db.pool, name);
        if (rate !== null) await identity.setOrganizationRateLimit(db.pool, o.id, rate);
        return o;
      });
      io.stdout.write(`${created.id}\n`);
      io.stderr.write(`created organization ${name}\n`);
    });

  withOutput(org.command('list').description('List the organizations, their keys (never the keys themselves), rate, quota and use today')).action(async (_o, cmd: Command) => {
    const orgs = await onDb((db, identity) => identity.listOrganizations(db.pool));
    const d = defaults(io.env);
    const rows = orgs.flatMap((o) =>
      (o.keys.length ? o.keys : [null]).map((k) => ({
        organization: o.name,
        organization_id: o.id,
        rate_limit: o.rate_limit,
        effective_rate_limit: o.rate_limit ?? d.rateLimit,
        daily_quota: o.daily_quota,
        effective_daily_quota: o.daily_quota ?? d.dailyQuota,
        used_today: o.used_today,
        senders: o.senders.map((x) => x.value),
        namespaces: o.namespaces,
        key_id: k?.id ?? '',
        prefix: k?.prefix ?? '',
        name: k?.name ?? '',
        created_at: k?.created_at ?? o.created_at,
        revoked_at: k?.revoked_at ?? null,
      })),
    );
    printList(
      io,
      app.format(cmd),
      rows,
      [
        ['ORGANIZATION', (r) => r.organization],
        ['RATE/S', (r) => String(r.effective_rate_limit)],
        ['TODAY', (r) => `${r.used_today}/${r.effective_daily_quota}`],
        ['SENDERS', (r) => r.senders.join(',')],
        ['NAMESPACES', (r) => r.namespaces.join(',')],
        ['KEY ID', (r) => r.key_id],
        ['PREFIX', (r) => r.prefix],
        ['NAME', (r) => r.name],
        ['CREATED', (r) => when(r.created_at)],
        ['REVOKED', (r) => (r.revoked_at ? when(r.revoked_at) : '')],
      ],
      'no organizations',
    );
  });

  withOutput(org.command('show').description("An organization: its rate limit, daily quota and today's use, verified senders and keys").argument('<org-name>')).action(
    async (name: string, _o, cmd: Command) => {
      const o = (await onDb((db, identity) => identity.listOrganizations(db.pool))).find((x) => x.name === name);
      if (!o) throw new CliError(`no organization ${name}`);
      const d = defaults(io.env);
      const quota = o.daily_quota ?? d.dailyQuota;
      const shown = {
        organization: o.name,
        organization_id: o.id,
        rate_limit: { per_second: o.rate_limit ?? d.rateLimit, source: o.rate_limit === null ? 'SVC_ORG_RATE_LIMIT' : 'organization' },
        daily_quota: {
          limit: quota,
          used_today: o.used_today,
          remaining: Math.max(0, quota - o.used_today),
          source: o.daily_quota === null ? 'SVC_ORG_DAILY_QUOTA' : 'organization',
        },
        senders: o.senders,
        namespaces: o.namespaces,
        keys: o.keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, created_at: k.created_at, revoked_at: k.revoked_at })),
      };
      printRecord(io, app.format(cmd), shown, [
        ['Organization', (r: typeof shown) => `${r.organization} (${r.organization_id})`],
        ['Rate limit', (r: typeof shown) => `${r.rate_limit.per_second}/s (${r.rate_limit.source})`],
        ['Daily quota', (r: typeof shown) => `${r.daily_quota.used_today} of ${r.daily_quota.limit} used today, UTC (${r.daily_quota.source})`],
        ['Senders', (r: typeof shown) => r.senders.map((x) => `${x.value} (${x.kind})`).join(', ') || 'none: every from is refused'],
        ['Namespaces', (r: typeof shown) => r.namespaces.join(', ') || 'none: no alert rule may send as it'],
        ['Keys', (r: typeof shown) => r.keys.map((k) => `${k.id} ${k.prefix}…${k.revoked_at ? ' revoked' : ''}`).join(', ') || 'none'],
      ]);
    },
  );

  const sender = org.command('sender').description('Verified senders: the from of an email must be one of these addresses, or at one of these domains (not their subdomains)');
  sender
    .command('add')
    .description('Add a verified domain (acme.example) or address (billing@acme.example)')
    .argument('<org-name>')
    .argument('<domain-or-address>')
    .action(async (orgName: string, value: string) => {
      const r = await onDb((db, identity) => identity.addOrganizationSender(db.pool, orgName, value));
      io.stderr.write(`${orgName} may send from ${r.kind === 'domain' ? `any address at ${r.value} (not its subdomains)` : r.value}\n`);
    });
  sender
    .command('remove')
    .description('Remove a verified domain or address (the next email from it is refused)')
    .argument('<org-name>')
    .argument('<domain-or-address>')
    .action(async (orgName: string, value: string) => {
      if (!(await onDb((db, identity) => identity.removeOrganizationSender(db.pool, orgName, value)))) throw new CliError(`${orgName} has no sender ${value}`);
      io.stderr.write(`sender ${value} of ${orgName} removed\n`);
    });
  withOutput(sender.command('list').description('List the verified senders of an organization').argument('<org-name>')).action(async (orgName: string, _o, cmd: Command) => {
    const rows = await onDb((db, identity) => identity.listOrganizationSenders(db.pool, orgName));
    printList(
      io,
      app.format(cmd),
      rows,
      [
        ['SENDER', (r) => r.value],
        ['KIND', (r) => r.kind],
      ],
      `${orgName} has no verified sender: every email is refused`,
    );
  });

  const namespace = org
    .command('namespace')
    .description('Namespaces whose alert rules may send as the organization (each with its children: team covers team.etl); none until listed');
  namespace
    .command('add')
    .description('Allow a namespace and its children')
    .argument('<org-name>')
    .argument('<namespace>')
    .action(async (orgName: string, ns: string) => {
      const list = await onDb((db, identity) => identity.addOrganizationNamespace(db.pool, orgName, ns));
      io.stderr.write(`alert rules of ${list.join(', ')} (and their children) may send as ${orgName}\n`);
    });
  namespace
    .command('remove')
    .description("Stop allowing a listed namespace (its rules' next emails are not sent)")
    .argument('<org-name>')
    .argument('<namespace>')
    .action(async (orgName: string, ns: string) => {
      if (!(await onDb((db, identity) => identity.removeOrganizationNamespace(db.pool, orgName, ns)))) throw new CliError(`${orgName} does not list namespace ${ns}`);
      io.stderr.write(`namespace ${ns} may no longer send as ${orgName}\n`);
    });
  withOutput(namespace.command('list').description('List the namespaces allowed to send as an organization').argument('<org-name>')).action(
    async (orgName: string, _o, cmd: Command) => {
      const rows = (await onDb((db, identity) => identity.listOrganizationNamespaces(db.pool, orgName))).map((n) => ({ namespace: n }));
      printList(io, app.format(cmd), rows, [['NAMESPACE', (r) => r.namespace]], `${orgName} allows no namespace: no alert rule may send as it`);
    },
  );

  const quota = org.command('quota').description('Daily quota: emails an organization may have accepted per UTC day');
  quota
    .command('set')
    .description('Set the daily quota of an organization (0 stops its email; "default" for SVC_ORG_DAILY_QUOTA)')
    .argument('<org-name>')
    .argument('<emails-per-day>')
    .action(async (orgName: string, text: string) => {
      const n = text === 'default' ? null : /^\d+$/.test(text) ? Number(text) : NaN;
      if (n !== null && !Number.isSafeInteger(n)) throw new CliError('the quota is a whole number of emails per day, 0 or more, or "default"', 2);
      await onDb((db, identity) => identity.setOrganizationDailyQuota(db.pool, orgName, n));
      io.stderr.write(`daily quota of ${orgName}: ${n === null ? 'SVC_ORG_DAILY_QUOTA' : n}\n`);
    });

  const key = org.command('key').description('Create and revoke organization keys');
  key
    .command('create')
    .description('Create a key for an organization; the key is printed once')
    .argument('<org-name>')
    .option('--name <label>', 'a label for the key', '')
    .action(async (orgName: string, opts: { name: string }) => {
      const k = await onDb((db, identity) => identity.createOrganizationKey(db.pool, orgName, opts.name));
      io.stdout.write(`${k.key}\n`);
      io.stderr.write(`key ${k.id} of ${orgName}: shown only this once\n`);
    });
  key
    .command('revoke')
    .description('Revoke a key at once (every api-gateway refuses it on its next request)')
    .argument('<key-id>')
    .action(async (id: string) => {
      if (!(await onDb((db, identity) => identity.revokeOrganizationKey(db.pool, id)))) throw new CliError(`no organization key ${id}`);
      io.stderr.write(`key ${id} revoked\n`);
    });
}
