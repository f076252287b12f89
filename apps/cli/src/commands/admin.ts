// svc token (API tokens of the caller) and svc instances (admin).
import type { Command } from 'commander';
import type { Role } from '@svc/vocabulary';
import { withOutput, type App } from '../app.js';
import { colorsFor, printList, serialize, when } from '../ui/output.js';

export function registerAdmin(program: Command, app: App): void {
  const { io } = app;
  const token = program.command('token').description('Create, list and revoke API tokens (for scripts and CI)');
  withOutput(
    token
      .command('create')
      .description('Create an API token; its secret is printed once, on standard output')
      .argument('<name>')
      .option('--role <role>', 'none, viewer, operator, editor or admin (default: your role; at most your role or what a role binding gives you)')
      .option('--expires-in-days <n>', 'expiry, 1 to 365 days (default: never)'),
  ).action(async (name: string, opts: { role?: string; expiresInDays?: string }, cmd: Command) => {
    const t = await app.client(cmd).post('/api/v1/tokens', {
      body: {
        name,
        ...(opts.role ? { role: opts.role as Role } : {}) /* the server refuses an unknown role (422) */,
        ...(opts.expiresInDays ? { expires_in_days: Number(opts.expiresInDays) } : {}),
      },
    });
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(t, format));
    io.stdout.write(`${t.secret}\n`);
    io.stderr.write(`token ${t.id} "${t.name}" (${t.role}${t.expires_at ? `, expires ${when(t.expires_at)}` : ''}): the secret above is shown only this once\n`);
  });
  withOutput(token.command('list').description('List your API tokens').option('--all', "every user's tokens (admin)")).action(async (opts: { all?: boolean }, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/tokens', opts.all ? { params: { query: { all: true } } } : {});
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['ID', (t) => t.id],
        ['NAME', (t) => t.name],
        ['ROLE', (t) => t.role],
        ['CREATED', (t) => when(t.created_at)],
        ['EXPIRES', (t) => when(t.expires_at) || 'never'],
        ['LAST USED', (t) => when(t.last_used_at)],
        ['REVOKED', (t) => when(t.revoked_at)],
      ],
      'no tokens',
    );
  });
  token
    .command('revoke')
    .description('Revoke an API token')
    .argument('<id>')
    .action(async (id: string, _o, cmd: Command) => {
      await app.client(cmd).delete('/api/v1/tokens/{tokenId}', { params: { path: { tokenId: id } } });
      io.stderr.write(`token ${id} revoked\n`);
    });

  withOutput(program.command('instances').description('List the service instances, their pools, executors and heartbeat (admin)')).action(async (_o, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/instances');
    const c = colorsFor(io);
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['ID', (i) => i.id],
        ['HOST', (i) => i.hostname],
        ['KIND', (i) => i.kind ?? ''],
        ['VERSION', (i) => i.version],
        ['POOLS', (i) => (i.pools ?? []).join(',')],
        ['EXECUTORS', (i) => (i.executors ?? []).join(',')],
        ['STATUS', (i) => (i.online ? c.green('Online') : c.red('Offline'))],
        ['LAST HEARTBEAT', (i) => when(i.last_heartbeat_at)],
      ],
      'no instances',
    );
  });
}
