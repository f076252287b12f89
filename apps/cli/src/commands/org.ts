// svc org: organizations of the email interface and their `svc_live_` keys.
// Like `svc user`, it works on the database directly (SVC_DATABASE_URL, or
// the embedded PostgreSQL under SVC_DATA_DIR): there is no API for it.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { openDatabase } from '../db.js';
import { CliError } from '../io.js';

export const ORG_KEY_PREFIX = 'svc_live_';

export function registerOrg(program: Command, app: App): void {
  const { io } = app;
  const org = program
    .command('org')
    .description('Organizations of the email interface and their svc_live_ keys (on the database directly)')
    .addHelpText('after', '\nWorks on SVC_DATABASE_URL, or the embedded PostgreSQL that `npm start` runs under SVC_DATA_DIR.\n');

  org
    .command('create')
    .description('Create an organization')
    .argument('<name>')
    .option('--rate-limit <per-second>', 'token-bucket refill per second (default SVC_ORG_RATE_LIMIT)')
    .action(async (name: string, opts: { rateLimit?: string }) => {
      const { newId } = await import('@svc/db');
      const db = await openDatabase(io);
      try {
        const rate = opts.rateLimit !== undefined ? Number(opts.rateLimit) : null;
        if (rate !== null && !(rate > 0)) throw new CliError('--rate-limit must be a positive number', 2);
        const r = await db.pool.query(`INSERT INTO organizations (id, name, rate_limit) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING id`, [newId(), name, rate]);
        if (!r.rowCount) throw new CliError(`an organization named ${name} exists already`);
        io.stdout.write(`${r.rows[0].id}\n`);
        io.stderr.write(`created organization ${name}\n`);
      } finally {
        await db.close();
      }
    });

  const key = org.command('key').description('Create and revoke organization keys');
  key
    .command('create')
    .description('Create a key for an organization; the key is printed once')
    .argument('<org-name>')
    .option('--name <label>', 'a label for the key', '')
    .action(async (orgName: string, opts: { name: string }) => {
      const { newId } = await import('@svc/db');
      const { randomBase62, sha256 } = await import('@svc/identity');
      const db = await openDatabase(io);
      try {
        const o = await db.pool.query<{ id: string }>(`SELECT id FROM organizations WHERE name = $1`, [orgName]);
        if (!o.rows[0]) throw new CliError(`no organization named ${orgName}`);
        const secret = ORG_KEY_PREFIX + randomBase62(43);
        const id = newId();
        await db.pool.query(`INSERT INTO organization_keys (id, organization_id, key_hash, prefix, name) VALUES ($1, $2, $3, $4, $5)`, [
          id,
          o.rows[0].id,
          sha256(secret),
          secret.slice(0, ORG_KEY_PREFIX.length + 6),
          opts.name,
        ]);
        io.stdout.write(`${secret}\n`);
        io.stderr.write(`key ${id} of ${orgName}: shown only this once\n`);
      } finally {
        await db.close();
      }
    });
  key
    .command('revoke')
    .description('Revoke a key at once')
    .argument('<key-id>')
    .action(async (id: string) => {
      const db = await openDatabase(io);
      try {
        const r = await db.pool.query(`UPDATE organization_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, [id]);
        if (!r.rowCount) throw new CliError(`no organization key ${id}`);
        io.stderr.write(`key ${id} revoked\n`);
      } finally {
        await db.close();
      }
    });
}
