// The commands that need no server: `svc openapi` (the OpenAPI document from
// the operation catalog) and `svc local` (the whole service on this machine);
// and those that work on the database directly: `svc user` (recovery, see
// docs/operating/roles.md) and `svc secrets rewrap` (master key rotation).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { App } from '../app.js';
import { openDatabase, serverVariable } from '../db.js';
import { CliError } from '../io.js';
import { askHidden, readAllStdin } from '../ui/prompt.js';
import { cliVersion } from '../version.js';

export function registerServerLocal(program: Command, app: App): void {
  const { io } = app;

  program
    .command('openapi')
    .description('Print the OpenAPI document (no database or server needed)')
    .option('-o, --output <file>', 'write the document to FILE instead of standard output')
    .option('--server-url <url>', 'URL listed in "servers" (default http://127.0.0.1:8080)')
    .addHelpText('after', '\nThe OpenAPI 3.1.0 document of the svc API as JSON, built from the operation catalog.\n')
    .action(async (opts: { output?: string; serverUrl?: string }) => {
      const { buildOpenApiDocument } = await import('@svc/api-spec');
      const doc = buildOpenApiDocument({ version: cliVersion(), ...(opts.serverUrl !== undefined ? { serverUrl: opts.serverUrl } : {}) });
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (opts.output === undefined) return void io.stdout.write(text);
      const file = path.resolve(io.cwd, opts.output);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, text);
      io.stderr.write(`wrote ${file}\n`);
    });

  program
    .command('local')
    .description('Run the whole service locally (embedded PostgreSQL by default)')
    .addHelpText(
      'after',
      `
Runs the whole service on this machine in the foreground: an embedded
PostgreSQL under SVC_DATA_DIR (unless SVC_DATABASE_URL is set), migrations,
then api-gateway, scheduler, dispatcher and maintenance as separate processes.
Ctrl-C stops the services, then the database. This is what \`npm start\` runs.
`,
    )
    .action(async () => {
      // Loaded here so commands that need no database never load @svc/db.
      const { runLocal } = await import('../local/supervisor.js');
      app.exitCode = await runLocal([], { stdout: process.stdout, stderr: process.stderr }, { ...process.env, ...io.env });
    });

  const user = program
    .command('user')
    .description('Create users and reset passwords on the database directly (recovery)')
    .addHelpText(
      'after',
      `
Recovery commands that work on the database directly (no server, no
credential): SVC_DATABASE_URL, or the embedded PostgreSQL that \`npm start\`
runs under SVC_DATA_DIR. The password is read from standard input (one line),
or asked for without echo on a terminal.
`,
    );
  const password = async () => {
    const pw = io.stdinIsTTY ? await askHidden(io, 'New password') : (await readAllStdin(io)).replace(/\r?\n$/, '');
    const identity = await import('@svc/identity');
    const problem = identity.passwordProblem(pw);
    if (problem) throw new CliError(`the password ${io.stdinIsTTY ? 'given' : 'from standard input'} ${problem}`);
    return pw;
  };
  user
    .command('reset-password')
    .description('Set a user\'s password, clear "must change password", re-enable the user and end their sessions')
    .requiredOption('--email <email>', 'the user')
    .action(async (opts: { email: string }) => {
      const identity = await import('@svc/identity');
      const pw = await password();
      const db = await openDatabase(io);
      try {
        const now = new Date();
        const u = await identity.findUserByEmail(db.pool, opts.email);
        if (!u) throw new CliError(`no user with email ${identity.normalizeEmail(opts.email)}`);
        await identity.setPassword(db.pool, u.id, pw, { temporary: false, now });
        await identity.enableUser(db.pool, u.id);
        await identity.recordAudit(db.pool, {
          action: 'user.password_reset',
          actor: { id: null, type: 'system' },
          targetType: 'user',
          targetId: u.id,
          details: { via: 'cli' },
          at: now,
        });
        io.stdout.write(`password of ${u.email} reset\n`);
      } finally {
        await db.close();
      }
    });
  user
    .command('create')
    .description('Create a user')
    .requiredOption('--email <email>', 'email of the user')
    .option('--role <role>', 'none, viewer, operator, editor or admin (none: only the namespaces a role binding opens)', 'viewer')
    .option('--name <name>', 'display name')
    .action(async (opts: { email: string; role: string; name?: string }) => {
      const identity = await import('@svc/identity');
      if (!identity.isRole(opts.role)) throw new CliError(`--role must be one of ${identity.ROLES.join(', ')}`, 2);
      const role = opts.role;
      const pw = await password();
      const db = await openDatabase(io);
      try {
        const now = new Date();
        const { user: u } = await identity.createUser(db.pool, { email: opts.email, role, name: opts.name, password: pw }, now).catch((err: unknown) => {
          if (err instanceof identity.EmailTakenError) throw new CliError(err.message);
          throw err;
        });
        await identity.recordAudit(db.pool, {
          action: 'user.create',
          actor: { id: null, type: 'system' },
          targetType: 'user',
          targetId: u.id,
          details: { email: u.email, role, via: 'cli' },
          at: now,
        });
        io.stdout.write(`created ${u.email} (${role})\n`);
      } finally {
        await db.close();
      }
    });

  program
    .command('secrets')
    .description('Re-encrypt secrets with the first master key (key rotation)')
    .command('rewrap')
    .description('Re-encrypt every builtin secret, provider credential and platform secret sealed with an older master key')
    .addHelpText(
      'after',
      `
Uses the first key of SVC_MASTER_KEYS, so the old key can then be removed from
SVC_MASTER_KEYS. Works on the database directly (SVC_DATABASE_URL, or the
embedded PostgreSQL under SVC_DATA_DIR). Every key id still in use must be
present in SVC_MASTER_KEYS while it runs.
`,
    )
    .action(async () => {
      const { parseMasterKeys } = await import('@svc/config');
      const keys = parseMasterKeys((await serverVariable(io, 'SVC_MASTER_KEYS')) ?? '');
      if (!keys.length) throw new CliError('SVC_MASTER_KEYS is empty: there is no key to re-encrypt with');
      const { rewrapSecrets } = await import('@svc/secrets');
      const db = await openDatabase(io);
      try {
        const report = await rewrapSecrets(db.pool, keys, { batchSize: 200 });
        io.stdout.write(
          `re-encrypted ${report.secrets} secret(s), ${report.providers} provider credential(s) and ${report.platformSecrets} platform secret(s) with key ${keys[0].id}\n`,
        );
        if (report.skipped.length) {
          io.stderr.write(`skipped ${report.skipped.length}: ${JSON.stringify(report.skipped.slice(0, 10))}\n`);
          app.exitCode = 1;
        }
      } finally {
        await db.close();
      }
    });
}
