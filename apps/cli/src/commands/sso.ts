// svc sso: the single sign-on (OpenID Connect) settings, through
// /api/v1/sso/oidc (admin; docs/operating/sso.md). `set` and the group-role
// commands read the settings, change what their flags name and write them
// back whole (putOidcSettings takes the whole object). The client secret is
// named by its secret reference (--client-secret-ref): the API never holds
// nor shows its value, and no flag takes it.
import type { Command } from 'commander';
import { ROLES } from '@svc/vocabulary';
import { formatDuration, parseDuration } from '@svc/timing/duration';
import type { components } from '@svc/api-spec/openapi-types';
import { withOutput, type App } from '../app.js';
import { ApiError, type ApiClient } from '../api/client.js';
import { CliError } from '../io.js';
import { colorsFor, printRecord, renderTable, serialize, when } from '../ui/output.js';

type OidcSettings = components['schemas']['OidcSettings'];
type OidcSettingsRequest = components['schemas']['OidcSettingsRequest'];
type GroupRole = OidcSettings['group_roles'][number];
type Role = components['schemas']['Role'];

const PATH = '/api/v1/sso/oidc' as const;

function role(v: string, flag: string): Role {
  if (!(ROLES as readonly string[]).includes(v)) throw new CliError(`${flag} is one of ${ROLES.join(', ')}; got "${v}"`, 2);
  return v as Role;
}

function onOff(v: string | undefined, flag: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new CliError(`${flag} takes on or off, got "${v}"`, 2);
}

/** A comma- or space-separated list; empty text is the empty list. */
function list(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(/[\s,]+/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** `--session-max-age`: a duration (12h, 30m, 3600s) in whole seconds, or `off` (null: no cap). */
function maxAge(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'off') return null;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch {
    throw new CliError(`--session-max-age takes a duration such as 12h, 30m or 3600s, or off; got "${v}"`, 2);
  }
  if (ms < 300_000 || ms > 31_536_000_000) throw new CliError(`--session-max-age is between 5m and 365d; got "${v}"`, 2);
  return Math.round(ms / 1000);
}

function scopes(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The settings, or undefined when single sign-on is not configured (404). */
async function current(client: ApiClient): Promise<OidcSettings | undefined> {
  try {
    return await client.get(PATH);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** What putOidcSettings takes, from settings read: the fields the server adds left out. */
function requestOf(s: OidcSettings): OidcSettingsRequest {
  return {
    enabled: s.enabled,
    display_name: s.display_name,
    issuer_url: s.issuer_url,
    client_id: s.client_id,
    client_secret_secret: s.client_secret_secret,
    scopes: s.scopes,
    groups_claim: s.groups_claim,
    password_login_disabled: s.password_login_disabled,
    default_role: s.default_role,
    group_roles: s.group_roles,
    link_by_email: s.link_by_email,
    allowed_email_domains: s.allowed_email_domains,
    google_hd: s.google_hd,
    entra_tid: s.entra_tid,
    existing_users_only: s.existing_users_only,
    session_max_age_seconds: s.session_max_age_seconds,
  };
}

export interface SetOptions {
  displayName?: string;
  issuer?: string;
  clientId?: string;
  clientSecretRef?: string;
  scopes?: string;
  groupsClaim?: string;
  defaultRole?: string;
  passwordLogin?: string;
  enabled?: string;
  linkByEmail?: string;
  existingUsersOnly?: string;
  allowedDomains?: string;
  googleHd?: string;
  entraTid?: string;
  sessionMaxAge?: string;
}

/** What the flags of `svc sso set` change, checked before any request. */
export function setPatch(o: SetOptions): Partial<OidcSettingsRequest> {
  const passwordLogin = onOff(o.passwordLogin, '--password-login');
  const enabled = onOff(o.enabled, '--enabled');
  const defaultRole = o.defaultRole !== undefined ? role(o.defaultRole, '--default-role') : undefined;
  const linkByEmail = onOff(o.linkByEmail, '--link-by-email');
  const existingUsersOnly = onOff(o.existingUsersOnly, '--existing-users-only');
  const sessionMaxAge = maxAge(o.sessionMaxAge);
  return {
    ...(o.displayName !== undefined ? { display_name: o.displayName } : {}),
    ...(o.issuer !== undefined ? { issuer_url: o.issuer } : {}),
    ...(o.clientId !== undefined ? { client_id: o.clientId } : {}),
    ...(o.clientSecretRef !== undefined ? { client_secret_secret: o.clientSecretRef } : {}),
    ...(o.scopes !== undefined ? { scopes: scopes(o.scopes) } : {}),
    ...(o.groupsClaim !== undefined ? { groups_claim: o.groupsClaim } : {}),
    ...(defaultRole !== undefined ? { default_role: defaultRole } : {}),
    ...(passwordLogin !== undefined ? { password_login_disabled: !passwordLogin } : {}),
    ...(enabled !== undefined ? { enabled } : {}),
    ...(linkByEmail !== undefined ? { link_by_email: linkByEmail } : {}),
    ...(existingUsersOnly !== undefined ? { existing_users_only: existingUsersOnly } : {}),
    ...(o.allowedDomains !== undefined ? { allowed_email_domains: list(o.allowedDomains) } : {}),
    ...(o.googleHd !== undefined ? { google_hd: o.googleHd.trim() } : {}),
    ...(o.entraTid !== undefined ? { entra_tid: o.entraTid.trim() } : {}),
    ...(sessionMaxAge !== undefined ? { session_max_age_seconds: sessionMaxAge } : {}),
  };
}

/** The putOidcSettings body of `svc sso set`: the settings read (if any) with the flags' changes applied. */
export function setBody(before: OidcSettings | undefined, patch: Partial<OidcSettingsRequest>): OidcSettingsRequest {
  const body: Partial<OidcSettingsRequest> = { ...(before ? requestOf(before) : {}), ...patch };
  const missing = (
    [
      ['display_name', '--display-name'],
      ['issuer_url', '--issuer'],
      ['client_id', '--client-id'],
      ['client_secret_secret', '--client-secret-ref'],
    ] as const
  ).filter(([k]) => body[k] === undefined);
  if (missing.length) throw new CliError(`single sign-on is not configured yet: give ${missing.map(([, f]) => f).join(', ')}`, 2);
  return body as OidcSettingsRequest;
}

function printSettings(app: App, cmd: Command, s: OidcSettings): void {
  const { io } = app;
  const format = app.format(cmd);
  if (format !== 'table') return void io.stdout.write(serialize(s, format));
  printRecord(io, format, s, [
    ['enabled', (x) => (x.enabled ? 'yes' : 'no')],
    ['display name', (x) => x.display_name],
    ['issuer', (x) => x.issuer_url],
    ['client id', (x) => x.client_id],
    ['client secret', (x) => `secret ${x.client_secret_secret} (the value is never shown)`],
    ['scopes', (x) => ['openid', ...x.scopes.filter((s) => s !== 'openid')].join(' ')],
    ['groups claim', (x) => x.groups_claim],
    ['default role', (x) => x.default_role],
    ['group roles', (x) => x.group_roles.map((g) => `${g.group}=${g.role}`).join(', ')],
    ['password login', (x) => (x.password_login_disabled ? 'off for SSO users' : 'on')],
    ['link by email', (x) => (x.link_by_email ? 'on (never to an admin)' : 'off (users link from their profile)')],
    ['allowed domains', (x) => (x.allowed_email_domains.length ? x.allowed_email_domains.join(', ') : 'any')],
    ['google hd', (x) => x.google_hd || 'not checked'],
    ['entra tid', (x) => x.entra_tid || 'not checked'],
    ['new users', (x) => (x.existing_users_only ? 'none (existing users only)' : `created with role ${x.default_role} unless a group maps higher`)],
    ['session max age', (x) => (x.session_max_age_seconds === null ? 'none' : formatDuration(x.session_max_age_seconds * 1000))],
    ['redirect URI', (x) => x.redirect_uri],
    ['updated', (x) => `${when(x.updated_at)} by ${x.updated_by}`],
  ]);
}

export function registerSso(program: Command, app: App): void {
  const { io } = app;
  const sso = program.command('sso').description('Single sign-on through OpenID Connect: the IdP, its client, and IdP groups to roles (admin)');

  withOutput(sso.command('status').description('Whether the login page offers single sign-on (public)')).action(async (_o: unknown, cmd: Command) => {
    const s = await app.client(cmd).get('/api/v1/sso/status');
    printRecord(io, app.format(cmd), s, [
      ['offered', (x) => (x.oidc ? 'yes' : 'no')],
      ['button', (x) => (x.display_name ? `Sign in with ${x.display_name}` : '')],
      ['login URL', (x) => x.login_url],
    ]);
  });

  withOutput(sso.command('get').description('The OpenID Connect settings; the client secret is shown by its reference only')).action(async (_o: unknown, cmd: Command) => {
    const s = await app.client(cmd).get(PATH);
    printSettings(app, cmd, s);
  });

  withOutput(
    sso
      .command('set')
      .description(
        "Write the settings: the flags given change the current settings (all four of the first ones are needed the first time); the server reads the issuer's discovery document and the secret first",
      )
      .option('--display-name <name>', 'the name on the login button ("Sign in with NAME")')
      .option('--issuer <url>', 'the issuer URL (https; http only on a loopback address)')
      .option('--client-id <id>', 'the client registered at the IdP')
      .option('--client-secret-ref <secret>', 'the platform secret holding the client secret (set it with `svc platform-secret set NAME`); flows cannot read it')
      .option('--scopes <scopes>', 'scopes besides openid, comma- or space-separated (default email,profile)')
      .option('--groups-claim <claim>', 'the claim holding the groups, a dotted path such as realm_access.roles (default groups)')
      .option('--default-role <role>', `the role when no group matches: ${ROLES.join(', ')} (default none)`)
      .option('--password-login <on|off>', 'off: users who signed in through SSO may no longer sign in with a password')
      .option('--enabled <on|off>', 'whether the login page offers single sign-on')
      .option(
        '--link-by-email <on|off>',
        'on: an IdP identity not linked yet signs in as the existing non-admin user with its email (default off: the user links it from their profile)',
      )
      .option('--existing-users-only <on|off>', 'on: an SSO login never creates a user')
      .option('--allowed-domains <domains>', "email domains a login's email must have, comma-separated; '' for any")
      .option('--google-hd <domain>', "the Google Workspace domain every ID token's hd claim must have; '' to stop checking")
      .option('--entra-tid <tenant>', "the Entra tenant id every ID token's tid claim must have; '' to stop checking")
      .option('--session-max-age <duration|off>', 'an SSO session ends this long after its login however it is used (5m to 365d), or off'),
  ).action(async (o: SetOptions, cmd: Command) => {
    const patch = setPatch(o);
    const client = app.client(cmd);
    const before = await current(client);
    const s = await client.put(PATH, { body: setBody(before, patch) });
    printSettings(app, cmd, s);
    io.stderr.write(`single sign-on settings ${before ? 'updated' : 'created'}; register ${s.redirect_uri} as the redirect URI at the IdP\n`);
  });

  sso
    .command('delete')
    .description('Remove the settings: single sign-on is no longer offered (SSO users keep their accounts)')
    .action(async (_o: unknown, cmd: Command) => {
      await app.client(cmd).delete(PATH);
      io.stderr.write('single sign-on settings deleted\n');
    });

  const gr = sso.command('group-role').description('IdP groups to global roles, applied at every SSO login (the highest role of the groups, else the default role)');

  withOutput(gr.command('list').description('The group to role mappings')).action(async (_o: unknown, cmd: Command) => {
    const s = await app.client(cmd).get(PATH);
    const format = app.format(cmd);
    if (format !== 'table') return void io.stdout.write(serialize(s.group_roles, format));
    if (!s.group_roles.length) return void io.stderr.write(`no group mappings: every SSO user gets the default role ${s.default_role}\n`);
    io.stdout.write(
      renderTable(
        s.group_roles,
        [
          ['GROUP', (g: GroupRole) => g.group],
          ['ROLE', (g: GroupRole) => g.role],
        ],
        colorsFor(io),
      ),
    );
  });

  gr.command('add <group> <role>')
    .description(`Map an IdP group (a value of the groups claim) to a role: ${ROLES.join(', ')}; replaces the group's mapping if it has one`)
    .action(async (group: string, r: string, _o: unknown, cmd: Command) => {
      const wanted = role(r, 'the role');
      const client = app.client(cmd);
      const s = await client.get(PATH);
      const had = s.group_roles.find((g) => g.group === group);
      const group_roles = had ? s.group_roles.map((g) => (g.group === group ? { group, role: wanted } : g)) : [...s.group_roles, { group, role: wanted }];
      await client.put(PATH, { body: { ...requestOf(s), group_roles } });
      io.stderr.write(had ? `group ${group}: ${had.role} -> ${wanted}\n` : `group ${group} -> ${wanted}\n`);
    });

  gr.command('remove <group>')
    .description("Remove an IdP group's mapping")
    .action(async (group: string, _o: unknown, cmd: Command) => {
      const client = app.client(cmd);
      const s = await client.get(PATH);
      if (!s.group_roles.some((g) => g.group === group)) throw new CliError(`group ${group} has no mapping (see \`svc sso group-role list\`)`);
      await client.put(PATH, { body: { ...requestOf(s), group_roles: s.group_roles.filter((g) => g.group !== group) } });
      io.stderr.write(`group ${group}: mapping removed\n`);
    });
}
