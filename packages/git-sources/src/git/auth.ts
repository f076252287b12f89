// Credentials of one git operation, handed to git without ever being on a
// command line or in a URL:
//   none   nothing; an ssh:// remote still checks its host key strictly.
//   token  HTTPS: GIT_ASKPASS points at a script that prints the user name
//          (`x-access-token`, which GitHub, GitLab and Gitea accept with a
//          token, unless the URL names a user) and the token, both read from
//          variables of the git process's environment.
//   basic  HTTPS: the secret is `user:password`, given the same way.
//   ssh    the secret is a private key, written to a 0600 file in a 0700
//          temp directory; GIT_SSH_COMMAND runs ssh with that key only, the
//          source's known_hosts as the only known hosts and
//          StrictHostKeyChecking=yes (an unknown or changed host key fails the
//          operation), never asking anything.
// `close()` removes the directory with the key, the known_hosts file and the
// askpass script.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertNever } from '@svc/assert';
import { Redactor } from '../redact.js';

export const AUTH_TYPES = ['none', 'token', 'basic', 'ssh'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];
export const isAuthType = (v: string): v is AuthType => (AUTH_TYPES as readonly string[]).includes(v);

export interface AuthSettings {
  authType: AuthType;
  /** The value of the secret named by credential_secret_key ('' for none). */
  credential: string;
  /** known_hosts lines (ssh remotes). */
  knownHosts: string;
}

export interface AuthSession {
  /** Variables for every git command of the operation. */
  env: Record<string, string>;
  /** HOME of the git commands: an empty directory of the session. */
  home: string;
  /** Scratch directory of the operation (removed by close). */
  dir: string;
  redactor: Redactor;
  close(): void;
}

/** Single-quotes a path for the shell that runs GIT_SSH_COMMAND. */
const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const ASKPASS = `#!/bin/sh
case "$1" in
  [Uu]sername*) printf '%s\\n' "$SVC_GIT_USERNAME" ;;
  *) printf '%s\\n' "$SVC_GIT_PASSWORD" ;;
esac
`;

/** The ssh command line of GIT_SSH_COMMAND (exported for tests of its strictness). */
export function sshCommand(knownHostsFile: string, keyFile: string | null): string {
  return [
    'ssh',
    '-F /dev/null',
    ...(keyFile ? [`-i ${shq(keyFile)}`, '-o IdentitiesOnly=yes'] : []),
    '-o IdentityAgent=none',
    '-o StrictHostKeyChecking=yes',
    `-o UserKnownHostsFile=${shq(knownHostsFile)}`,
    '-o GlobalKnownHostsFile=/dev/null',
    '-o BatchMode=yes',
    '-o PasswordAuthentication=no',
    '-o KbdInteractiveAuthentication=no',
    '-o ConnectTimeout=20',
  ].join(' ');
}

export function openAuth(s: AuthSettings): AuthSession {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-git-'));
  fs.chmodSync(dir, 0o700);
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  try {
    // Any ssh remote: only the source's known hosts, strictly.
    const knownHostsFile = path.join(dir, 'known_hosts');
    fs.writeFileSync(knownHostsFile, s.knownHosts.replace(/\r\n/g, '\n').trim() + '\n', { mode: 0o600 });
    let keyFile: string | null = null;
    switch (s.authType) {
      case 'none':
        break;
      case 'token':
      case 'basic': {
        const askpass = path.join(dir, 'askpass.sh');
        fs.writeFileSync(askpass, ASKPASS, { mode: 0o700 });
        let user = 'x-access-token';
        let password = s.credential;
        if (s.authType === 'basic') {
          const colon = s.credential.indexOf(':');
          user = colon >= 0 ? s.credential.slice(0, colon) : s.credential;
          password = colon >= 0 ? s.credential.slice(colon + 1) : '';
        }
        Object.assign(env, { GIT_ASKPASS: askpass, SVC_GIT_USERNAME: user, SVC_GIT_PASSWORD: password });
        secrets.push(s.credential, password);
        break;
      }
      case 'ssh': {
        keyFile = path.join(dir, 'id_key');
        const key = s.credential.replace(/\r\n/g, '\n').trim() + '\n';
        fs.writeFileSync(keyFile, key, { mode: 0o600 });
        secrets.push(s.credential);
        break;
      }
      default:
        assertNever(s.authType, 'auth type');
    }
    env.GIT_SSH_COMMAND = sshCommand(knownHostsFile, keyFile);
    env.GIT_SSH_VARIANT = 'ssh';
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    env,
    home,
    dir,
    redactor: new Redactor(secrets),
    close: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
