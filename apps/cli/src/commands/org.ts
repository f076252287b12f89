// svc org: organizations of the email interface and their `svc_live_` keys.
// Like `svc user`, it works on the database directly (SVC_DATABASE_URL, or
// the embedded PostgreSQL under SVC_DATA_DIR): there is no API for it. The
// rows are written by @svc/identity's organization functions, the same code
// the api-gateway authenticates keys with.
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { openDatabase } from '../db.js';
import { CliError } from '../io.js';
import { printList, when } from '../ui/output.js';

export function registerOrg(program: Command, app: App): void {
  const { io } = app;
  const org = program
    .command('org')
    .description('Organizations of the email interface and their svc_live_ keys (on the database directly)')
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
        if (rate !== null) await db.pool.query(`UPDATE organizations SET rate_limit = $2 WHERE id = $1`, [o.id, rate]);
        return o;
      });
      io.stdout.write(`${created.id}\n`);
      io.stderr.write(`created organization ${name}\n`);
    });

  withOutput(org.command('list').description('List the organizations and their keys (never the keys themselves)')).action(async (_o, cmd: Command) => {
    const orgs = await onDb((db, identity) => identity.listOrganizations(db.pool));
    const rows = orgs.flatMap((o) =>
      (o.keys.length ? o.keys : [null]).map((k) => ({ organization: o.name, organization_id: o.id, rate_limit: o.rate_limit, key_id: k?.id ?? '', prefix: k?.prefix ?? '', name: k?.name ?? '', created_at: k?.created_at ?? o.created_at, revoked_at: k?.revoked_at ?? null })),
    );
    printList(io, app.format(cmd), rows, [
      ['ORGANIZATION', (r) => r.organization],
      ['KEY ID', (r) => r.key_id],
      ['PREFIX', (r) => r.prefix],
      ['NAME', (r) => r.name],
      ['CREATED', (r) => when(r.created_at)],
      ['REVOKED', (r) => (r.revoked_at ? when(r.revoked_at) : '')],
    ], 'no organizations');
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
