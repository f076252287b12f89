// svc login / logout / whoami / context: credentials and named contexts.
// `svc login` with an email and password signs in once, creates an API token
// named after this machine, ends the session, and keeps only the token.
import os from 'node:os';
import type { Command } from 'commander';
import { toApiError } from '@svc/api-spec/client';
import { apiClient, ApiError } from '../api/client.js';
import { withOutput, type App } from '../app.js';
import { contextNameFor, DEFAULT_URL, readContexts, writeContexts, type SvcContext } from '../config/contexts.js';
import { CliError, type CommandIo } from '../io.js';
import { printList, printRecord } from '../ui/output.js';
import { askHidden, askText, readAllStdin } from '../ui/prompt.js';
import { cliVersion } from '../version.js';

interface LoginOptions {
  token?: string;
  tokenStdin?: boolean;
  email?: string;
  passwordStdin?: boolean;
  name?: string;
}

/** Signs in with email and password; returns a new API token (the session is ended again). */
async function tokenFromPassword(url: string, email: string, password: string): Promise<{ secret: string; id: string }> {
  const anon = apiClient(url, undefined, `svc-cli/${cliVersion()}`);
  const { response: login, error } = await anon.raw.POST('/api/v1/auth/login', { body: { email, password } });
  if (!login.ok) throw toApiError(login, error);
  const cookie = /svc_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new CliError('the server accepted the login but set no session cookie');
  // A cookie request needs an Origin the server trusts: its own.
  const headers = { cookie, origin: new URL(url).origin };
  try {
    const name = `svc CLI on ${os.hostname()} (${new Date().toISOString().slice(0, 10)})`;
    const tok = await anon.post('/api/v1/tokens', { headers, body: { name } });
    return tok;
  } finally {
    await anon.post('/api/v1/auth/logout', { headers }).catch(() => undefined);
  }
}

async function login(app: App, urlArg: string | undefined, opts: LoginOptions): Promise<void> {
  const { io } = app;
  const interactive = Boolean(io.stdinIsTTY);
  let url = urlArg ?? io.env.SVC_URL;
  if (!url) url = interactive && !opts.token ? await askText(io, 'Server URL', DEFAULT_URL) : DEFAULT_URL;
  url = url.replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new CliError(`not a URL: ${url}`, 2);
  }

  let token = opts.token;
  if (opts.tokenStdin) token = (await readAllStdin(io)).trim();
  let tokenId: string | undefined;
  let user: string | undefined;
  if (token) {
    const me = await apiClient(url, token).get('/api/v1/auth/me');
    user = me.email;
  } else {
    const email = opts.email ?? (interactive ? await askText(io, 'Email') : undefined);
    if (!email) throw new CliError('give --email (and --password-stdin), or --token, or run svc login in a terminal', 2);
    let password: string;
    if (opts.passwordStdin) password = (await readAllStdin(io)).replace(/\r?\n$/, '');
    else if (interactive) password = await askHidden(io, 'Password');
    else throw new CliError('no terminal to ask the password on: use --password-stdin', 2);
    const tok = await tokenFromPassword(url, email, password);
    token = tok.secret;
    tokenId = tok.id;
    user = email;
  }

  const file = app.contextsFile;
  const data = readContexts(file);
  const name = opts.name ?? contextNameFor(url);
  const ctx: SvcContext = { name, url, token, ...(tokenId ? { token_id: tokenId } : {}), ...(user ? { user } : {}) };
  data.contexts = [...data.contexts.filter((c) => c.name !== name), ctx];
  data.current = name;
  writeContexts(file, data);
  io.stderr.write(`Logged in to ${url}${user ? ` as ${user}` : ''} (context "${name}", saved in ${file})\n`);
}

async function logout(app: App, cmd: Command): Promise<void> {
  const { io } = app;
  const file = app.contextsFile;
  const data = readContexts(file);
  const name = cmd.optsWithGlobals<{ context?: string }>().context ?? data.current;
  const ctx = data.contexts.find((c) => c.name === name);
  if (!ctx) throw new CliError(name ? `no context named "${name}"` : 'not logged in (no current context)');
  if (ctx.token_id) {
    // Revoke the token login created; a token that is already gone is fine.
    await apiClient(ctx.url, ctx.token)
      .delete('/api/v1/tokens/{tokenId}', { params: { path: { tokenId: ctx.token_id } } })
      .catch((err) => {
        if (!(err instanceof ApiError) && !(err instanceof CliError)) throw err;
        io.stderr.write(`(could not revoke the token on the server: ${err.message})\n`);
      });
  }
  data.contexts = data.contexts.filter((c) => c.name !== ctx.name);
  if (data.current === ctx.name) delete data.current;
  writeContexts(file, data);
  io.stderr.write(`Logged out of ${ctx.url} (context "${ctx.name}" removed)\n`);
}

function useContext(io: CommandIo, file: string, name: string): void {
  const data = readContexts(file);
  if (!data.contexts.some((c) => c.name === name)) throw new CliError(`no context named "${name}" (see svc context list)`);
  data.current = name;
  writeContexts(file, data);
  io.stderr.write(`Switched to context "${name}"\n`);
}

export function registerAuth(program: Command, app: App): void {
  const { io } = app;
  program
    .command('login')
    .description('Log in to a server and save it as a context (prompts for email and password on a terminal)')
    .argument('[url]', `server URL (default SVC_URL, else ${DEFAULT_URL})`)
    .option('--token <token>', 'use an existing API token instead of a password (visible in the process list: prefer --token-stdin)')
    .option('--token-stdin', 'read the API token from standard input')
    .option('--email <email>', 'email to log in with')
    .option('--password-stdin', 'read the password from standard input')
    .option('--name <context>', 'name of the context to save (default: host:port of the URL)')
    .addHelpText('after', '\nExamples:\n  svc login https://svc.example.com\n  echo "$SVC_CI_TOKEN" | svc login https://svc.example.com --token-stdin --name ci\n')
    .action((url: string | undefined, opts: LoginOptions) => login(app, url, opts));

  program
    .command('logout')
    .description('Revoke the token of the current context (or --context) and forget the context')
    .action((_opts, cmd: Command) => logout(app, cmd));

  withOutput(program.command('whoami').description('Show the user of the current credential')).action(async (_o, cmd: Command) => {
    const me = await app.client(cmd).get('/api/v1/auth/me');
    const t = app.target(cmd);
    printRecord(io, app.format(cmd), { ...me, server: t.url }, [
      ['email', (m) => m.email],
      ['role', (m) => m.role],
      ['auth', (m) => m.auth_type],
      ['server', (m) => m.server],
    ]);
  });

  const ctx = program.command('context').description('List, show and switch the saved contexts');
  withOutput(ctx.command('list').description('List the contexts')).action((_o, cmd: Command) => {
    const data = readContexts(app.contextsFile);
    const rows = data.contexts.map((c) => ({ current: c.name === data.current, name: c.name, url: c.url, user: c.user ?? '' }));
    printList(
      io,
      app.format(cmd),
      rows,
      [
        ['CURRENT', (r) => (r.current ? '*' : '')],
        ['NAME', (r) => r.name],
        ['URL', (r) => r.url],
        ['USER', (r) => r.user],
      ],
      'no contexts: run svc login',
    );
  });
  ctx
    .command('use')
    .description('Make a context the current one')
    .argument('<name>')
    .action((name: string) => useContext(io, app.contextsFile, name));
  ctx
    .command('current')
    .description('Print the name of the current context')
    .action(() => {
      const data = readContexts(app.contextsFile);
      if (!data.current) throw new CliError('no current context: run svc login');
      io.stdout.write(`${data.current}\n`);
    });
  ctx
    .command('delete')
    .description('Forget a context (its token stays valid; `svc logout` revokes it)')
    .argument('<name>')
    .action((name: string) => {
      const data = readContexts(app.contextsFile);
      if (!data.contexts.some((c) => c.name === name)) throw new CliError(`no context named "${name}"`);
      data.contexts = data.contexts.filter((c) => c.name !== name);
      if (data.current === name) delete data.current;
      writeContexts(app.contextsFile, data);
      io.stderr.write(`Deleted context "${name}"\n`);
    });
}
