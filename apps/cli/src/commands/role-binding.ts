// svc role-binding: namespace-scoped roles through
// /api/v1/role-bindings (admin). A binding gives a user (id or email) or an
// IdP group a role on a namespace and its children; a caller's role there is
// the highest of its global role and its bindings (docs/operating/roles.md).
import type { Command } from 'commander';
import { SPEC_ROLES } from '@svc/vocabulary';
import type { components } from '@svc/api-spec/openapi-types';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { colorsFor, renderTable, serialize, when } from '../ui/output.js';

type RoleBinding = components['schemas']['RoleBinding'];
type CreateRequest = components['schemas']['CreateRoleBindingRequest'];

/** The roles a binding may give (never `none`). */
const ROLES: readonly string[] = SPEC_ROLES;

/** The createRoleBinding body of `svc role-binding create NAMESPACE ROLE (--user U | --group G)`. */
export function createBody(namespace: string, role: string, o: { user?: string; group?: string }): CreateRequest {
  if (!ROLES.includes(role)) throw new CliError(`the role is one of ${ROLES.join(', ')}; got "${role}"`, 2);
  if ((o.user === undefined) === (o.group === undefined)) throw new CliError('give exactly one of --user and --group', 2);
  return { namespace, role: role as CreateRequest['role'], ...(o.user !== undefined ? { user: o.user } : { group: o.group! }) };
}

export function registerRoleBinding(program: Command, app: App): void {
  const { io } = app;
  const rb = program.command('role-binding').description('Roles on a namespace and its children for a user or an IdP group (admin)');

  withOutput(
    rb
      .command('list')
      .description('Role bindings, by namespace')
      .option('--namespace <ns>', 'only the bindings of this namespace')
      .option('--user <user>', 'only those of this user (id or email)')
      .option('--group <group>', 'only those of this IdP group'),
  ).action(async (o: { namespace?: string; user?: string; group?: string }, cmd: Command) => {
    const query = Object.fromEntries(Object.entries({ namespace: o.namespace, user: o.user, group: o.group }).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const { items } = await app.client(cmd).get('/api/v1/role-bindings', { params: { query } });
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(items, format));
    io.stdout.write(
      renderTable(
        items,
        [
          ['ID', (b: RoleBinding) => b.id],
          ['NAMESPACE', (b: RoleBinding) => b.namespace],
          ['SUBJECT', (b: RoleBinding) => (b.group !== null ? `group:${b.group}` : `user:${b.user_email ?? b.user_id}`)],
          ['ROLE', (b: RoleBinding) => b.role],
          ['CREATED BY', (b: RoleBinding) => b.created_by],
          ['CREATED', (b: RoleBinding) => when(b.created_at)],
        ],
        colorsFor(io),
      ),
    );
  });

  withOutput(
    rb
      .command('create <namespace> <role>')
      .description(`Give a user or an IdP group a role (${ROLES.join(', ')}) on a namespace and its children`)
      .option('--user <user>', 'the user (id or email)')
      .option('--group <group>', 'the IdP group, as the groups claim names it'),
  ).action(async (namespace: string, role: string, o: { user?: string; group?: string }, cmd: Command) => {
    const b = await app.client(cmd).post('/api/v1/role-bindings', { body: createBody(namespace, role, o) });
    const format = app.format(cmd);
    io.stdout.write(format === 'table' ? `${b.id}\n` : serialize(b, format));
    io.stderr.write(`${b.role} on ${b.namespace} (and children) for ${b.group !== null ? `group ${b.group}` : b.user_email}: binding ${b.id} created\n`);
  });

  rb.command('delete <id>')
    .description('Delete a role binding')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await app.client(cmd).delete('/api/v1/role-bindings/{bindingId}', { params: { path: { bindingId: id } } });
      io.stderr.write(`role binding ${id} deleted\n`);
    });
}
