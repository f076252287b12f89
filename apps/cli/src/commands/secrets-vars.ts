// svc secret and svc var: per namespace (-n) or global. A secret value is
// read from standard input or a hidden prompt, never from the command line,
// where it would land in shell history and the process list.
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { printList, when } from '../ui/output.js';
import { askHidden, readAllStdin } from '../ui/prompt.js';

const where = (ns: string | undefined) => (ns ? `namespace ${ns}` : 'global scope');

export function registerSecretsAndVars(program: Command, app: App): void {
  const { io } = app;
  const secret = program.command('secret').description('Set, list and delete secrets of a namespace (-n) or global ones');
  secret
    .command('set')
    .description('Set a secret; the value comes from standard input or a hidden prompt, never from argv')
    .argument('<key>')
    .option('-n, --namespace <ns>', 'namespace (default: a global secret, admin only)')
    .addHelpText('after', '\nExamples:\n  svc secret set DB_PASSWORD -n team.etl          (asks for the value)\n  printf %s "$TOKEN" | svc secret set API_TOKEN -n team.etl\n')
    .action(async (key: string, opts: { namespace?: string }, cmd: Command) => {
      let value: string;
      if (io.stdinIsTTY) {
        value = await askHidden(io, `Value of ${key}`);
      } else {
        // One trailing newline is what `echo` adds, not part of the value.
        value = (await readAllStdin(io)).replace(/\r?\n$/, '');
      }
      if (!value) throw new CliError('the value is empty: nothing set');
      const api = app.client(cmd);
      if (opts.namespace) await api.put('/api/v1/namespaces/{namespace}/secrets/{key}', { params: { path: { namespace: opts.namespace, key } }, body: { value } });
      else await api.put('/api/v1/secrets/{key}', { params: { path: { key } }, body: { value } });
      io.stderr.write(`secret ${key} set in ${where(opts.namespace)}\n`);
    });
  withOutput(secret.command('list').description('List secret keys (values are never shown)').option('-n, --namespace <ns>', 'namespace (default global)')).action(
    async (opts: { namespace?: string }, cmd: Command) => {
      const api = app.client(cmd);
      const items = opts.namespace
        ? await api.all('/api/v1/namespaces/{namespace}/secrets', { params: { path: { namespace: opts.namespace } } })
        : await api.all('/api/v1/secrets');
      printList(
        io,
        app.format(cmd),
        items,
        [
          ['KEY', (s) => s.key],
          ['UPDATED', (s) => when(s.updated_at ?? s.created_at)],
          ['UPDATED BY', (s) => s.updated_by ?? ''],
        ],
        `no secrets in ${where(opts.namespace)}`,
      );
    },
  );
  secret
    .command('delete')
    .description('Delete a secret')
    .argument('<key>')
    .option('-n, --namespace <ns>', 'namespace (default global)')
    .action(async (key: string, opts: { namespace?: string }, cmd: Command) => {
      const api = app.client(cmd);
      if (opts.namespace) await api.delete('/api/v1/namespaces/{namespace}/secrets/{key}', { params: { path: { namespace: opts.namespace, key } } });
      else await api.delete('/api/v1/secrets/{key}', { params: { path: { key } } });
      io.stderr.write(`secret ${key} deleted from ${where(opts.namespace)}\n`);
    });

  // Secret providers (admin writes): which namespaces' flows may use each.
  const provider = secret.command('provider').description('External secret providers (env, vault): list them, set the namespaces they serve');
  withOutput(provider.command('list').description('List secret providers and the namespaces they serve')).action(async (_opts: unknown, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/secret-providers');
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['NAME', (p) => p.name],
        ['TYPE', (p) => p.type],
        ['ENABLED', (p) => (p.enabled ? 'yes' : 'no')],
        ['NAMESPACES', (p) => (p.namespaces.length ? p.namespaces.join(', ') : '(none)')],
      ],
      'no secret providers',
    );
  });
  provider
    .command('namespaces')
    .description("Set the namespaces whose flows may use a provider's references (admin); each covers its children")
    .argument('<name>', 'the provider')
    .argument('[namespaces...]', 'namespaces served; replaces the list')
    .option('--all', 'serve every namespace (*)')
    .option('--none', 'serve no namespace')
    .addHelpText('after', '\nExamples:\n  svc secret provider namespaces vault team-a team-b.etl\n  svc secret provider namespaces vault --none\n')
    .action(async (name: string, namespaces: string[], opts: { all?: boolean; none?: boolean }, cmd: Command) => {
      if ([namespaces.length > 0, !!opts.all, !!opts.none].filter(Boolean).length !== 1) throw new CliError('give namespaces, --all or --none (exactly one of them)', 2);
      const list = opts.all ? ['*'] : opts.none ? [] : namespaces;
      const p = await app.client(cmd).put('/api/v1/secret-providers/{name}', { params: { path: { name } }, body: { namespaces: list } });
      io.stderr.write(`secret provider ${name} serves ${p.namespaces.length ? p.namespaces.join(', ') : 'no namespace'}\n`);
    });

  const v = program.command('var').alias('variable').description('Set, list and delete variables of a namespace (-n) or global ones');
  v.command('set')
    .description('Set a variable')
    .argument('<key>')
    .argument('<value>')
    .option('-n, --namespace <ns>', 'namespace (default: a global variable, admin only)')
    .action(async (key: string, value: string, opts: { namespace?: string }, cmd: Command) => {
      const api = app.client(cmd);
      if (opts.namespace) await api.put('/api/v1/namespaces/{namespace}/variables/{key}', { params: { path: { namespace: opts.namespace, key } }, body: { value } });
      else await api.put('/api/v1/variables/{key}', { params: { path: { key } }, body: { value } });
      io.stderr.write(`variable ${key} set in ${where(opts.namespace)}\n`);
    });
  withOutput(v.command('list').description('List variables').option('-n, --namespace <ns>', 'namespace (default global)')).action(
    async (opts: { namespace?: string }, cmd: Command) => {
      const api = app.client(cmd);
      const items = opts.namespace
        ? await api.all('/api/v1/namespaces/{namespace}/variables', { params: { path: { namespace: opts.namespace } } })
        : await api.all('/api/v1/variables');
      printList(
        io,
        app.format(cmd),
        items,
        [
          ['KEY', (x) => x.key],
          ['VALUE', (x) => x.value],
          ['UPDATED', (x) => when(x.updated_at)],
        ],
        `no variables in ${where(opts.namespace)}`,
      );
    },
  );
  v.command('delete')
    .description('Delete a variable')
    .argument('<key>')
    .option('-n, --namespace <ns>', 'namespace (default global)')
    .action(async (key: string, opts: { namespace?: string }, cmd: Command) => {
      const api = app.client(cmd);
      if (opts.namespace) await api.delete('/api/v1/namespaces/{namespace}/variables/{key}', { params: { path: { namespace: opts.namespace, key } } });
      else await api.delete('/api/v1/variables/{key}', { params: { path: { key } } });
      io.stderr.write(`variable ${key} deleted from ${where(opts.namespace)}\n`);
    });
}
