// svc platform-secret: the credentials of the git sources and of single
// sign-on, kept where no flow's `secret()` can read them; admin
// only. As with `svc secret set`, a value is read from standard input or a
// hidden prompt, never from the command line, and never shown.
import type { Command } from 'commander';
import { withOutput, type App } from '../app.js';
import { CliError } from '../io.js';
import { printList, when } from '../ui/output.js';
import { askHidden, readAllStdin } from '../ui/prompt.js';

export function registerPlatformSecret(program: Command, app: App): void {
  const { io } = app;
  const ps = program
    .command('platform-secret')
    .description('Set, list and delete platform secrets: the credentials of git sources and SSO, which no flow can read (admin)')
    .addHelpText(
      'after',
      `
A git source's credential_secret_key and webhook_secret_key and the SSO
settings' client_secret_secret name a platform secret. secret() in a task
never resolves one, whatever its name.
`,
    );
  ps.command('set')
    .description('Set a platform secret; the value comes from standard input or a hidden prompt, never from argv')
    .argument('<name>')
    .addHelpText('after', '\nExamples:\n  svc platform-secret set GIT_TOKEN          (asks for the value)\n  printf %s "$TOKEN" | svc platform-secret set GIT_TOKEN\n')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const value = io.stdinIsTTY ? await askHidden(io, `Value of ${name}`) : (await readAllStdin(io)).replace(/\r?\n$/, '');
      if (!value) throw new CliError('the value is empty: nothing set');
      const got = await app.client(cmd).put('/api/v1/platform-secrets/{name}', { params: { path: { name } }, body: { value } });
      io.stderr.write(`platform secret ${name} set\n`);
      if (got.global_copy) io.stderr.write(`warning: a global secret ${name} exists too, and flows can read it: delete it (svc secret delete ${name}) once no flow uses it\n`);
    });
  withOutput(ps.command('list').description('List platform secrets (values are never shown)')).action(async (_opts: unknown, cmd: Command) => {
    const items = await app.client(cmd).all('/api/v1/platform-secrets');
    printList(
      io,
      app.format(cmd),
      items,
      [
        ['NAME', (s) => s.name],
        ['UPDATED', (s) => when(s.updated_at)],
        ['UPDATED BY', (s) => s.updated_by],
        ['NOTE', (s) => (s.global_copy ? 'a global secret of this name exists: flows can read it' : s.upgraded_from_global ? 'copied from a global secret by the upgrade' : '')],
      ],
      'no platform secrets',
    );
  });
  ps.command('delete')
    .description('Delete a platform secret (git sources and SSO naming it stop authenticating)')
    .argument('<name>')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      await app.client(cmd).delete('/api/v1/platform-secrets/{name}', { params: { path: { name } } });
      io.stderr.write(`platform secret ${name} deleted\n`);
    });
}
