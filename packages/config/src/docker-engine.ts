// Where the docker executor's engine is and how to reach it, read as the
// docker CLI reads it (docs/operating/executors.md, "Remote Docker engine"):
//
// - the address: SVC_DOCKER_HOST, else DOCKER_HOST, else the local socket;
// - TLS: `https://` always; `tcp://` when SVC_DOCKER_TLS_VERIFY is true, or,
//   when it is unset, when DOCKER_TLS_VERIFY is set to anything non-empty
//   (the docker CLI's reading, even for `0`); the engine is verified against
//   ca.pem and the dispatcher presents cert.pem and key.pem, all three read
//   from SVC_DOCKER_CERT_PATH, else DOCKER_CERT_PATH, else ~/.docker;
// - the default port is 2376 with TLS and 2375 without;
// - plain HTTP (`tcp://` without TLS, `http://`) is allowed only to a loopback
//   host (localhost, 127.0.0.0/8, ::1) unless SVC_DOCKER_ALLOW_PLAINTEXT=true:
//   whoever reaches a plain engine port is root on its host.
//
// Every fault is a ConfigProblem (exit 2 at start), found before any
// connection is made; the certificate files are read here only to check they
// are there and hold PEM blocks, never echoed.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ConfigProblem } from './errors.js';

/** The certificate files of a TLS engine connection (paths; the client reads them). */
export interface DockerTlsFiles {
  /** The CA that signed the engine's certificate: `<cert path>/ca.pem`. */
  ca: string;
  /** The dispatcher's client certificate: `<cert path>/cert.pem`. */
  cert: string;
  /** Its private key: `<cert path>/key.pem`. */
  key: string;
}

/** How the docker executor reaches its engine. */
export type DockerEngine =
  | { kind: 'socket'; socketPath: string }
  | { kind: 'tcp'; host: string; port: number; tls: DockerTlsFiles | undefined }
  | { kind: 'ssh'; host: string; port: number; username: string | undefined };

/** The settings parseConfig has read (undefined: unset). */
export interface DockerEngineSettings {
  /** SVC_DOCKER_HOST, already checked to be a URL of a known scheme. */
  host: string | undefined;
  /** SVC_DOCKER_TLS_VERIFY. */
  tlsVerify: boolean | undefined;
  /** SVC_DOCKER_CERT_PATH. */
  certPath: string | undefined;
  /** SVC_DOCKER_ALLOW_PLAINTEXT. */
  allowPlaintext: boolean;
}

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';
const TLS_PORT = 2376;
const PLAIN_PORT = 2375;

/** Whether `host` (a URL's hostname, brackets allowed) is a loopback name or address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  return h === '::1' || h === '0:0:0:0:0:0:0:1';
}

/**
 * The engine the settings and the process environment (`DOCKER_HOST`,
 * `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`) name, or the problems that keep it
 * from being used.
 */
export function resolveDockerEngine(
  settings: DockerEngineSettings,
  env: Record<string, string | undefined>,
  home: string = os.homedir(),
): { engine: DockerEngine; problems: [] } | { engine: undefined; problems: ConfigProblem[] } {
  const fromEnv = env.DOCKER_HOST?.trim() || undefined;
  const hostVariable = settings.host ? 'SVC_DOCKER_HOST' : fromEnv ? 'DOCKER_HOST' : undefined;
  const text = settings.host ?? fromEnv ?? `unix://${DEFAULT_DOCKER_SOCKET}`;
  const fail = (variable: string, message: string, got?: string) => ({ engine: undefined, problems: [{ variable, message, ...(got === undefined ? {} : { got }) }] });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(hostVariable ?? 'DOCKER_HOST', 'must be a URL such as unix:///var/run/docker.sock or tcp://HOST:2376', text);
  }
  switch (url.protocol) {
    case 'unix:':
      return { engine: { kind: 'socket', socketPath: url.pathname }, problems: [] };
    case 'npipe:':
      // npipe:////./pipe/docker_engine names \\.\pipe\docker_engine, which Node opens as a path.
      return { engine: { kind: 'socket', socketPath: `//${url.host}${url.pathname}`.replace(/^\/{3,}/, '//') }, problems: [] };
    case 'ssh:':
      return { engine: { kind: 'ssh', host: url.hostname, port: Number(url.port || 22), username: url.username ? decodeURIComponent(url.username) : undefined }, problems: [] };
    case 'tcp:':
    case 'http:':
    case 'https:':
      break;
    default:
      return fail(hostVariable ?? 'DOCKER_HOST', 'must start with unix://, tcp://, http://, https://, ssh:// or npipe://', text);
  }
  if (!url.hostname) return fail(hostVariable ?? 'DOCKER_HOST', 'must name a host', text);

  const verifyVariable = settings.tlsVerify !== undefined ? 'SVC_DOCKER_TLS_VERIFY' : 'DOCKER_TLS_VERIFY';
  const tlsVerify = settings.tlsVerify ?? Boolean(env.DOCKER_TLS_VERIFY?.trim());
  const tls = url.protocol === 'https:' || (url.protocol === 'tcp:' && tlsVerify);
  if (url.protocol === 'http:' && tlsVerify) {
    return fail(hostVariable!, `is plain HTTP, but ${verifyVariable} asks for TLS: write tcp:// or https:// to connect over TLS`, text);
  }
  const port = Number(url.port || (tls ? TLS_PORT : PLAIN_PORT));
  if (!tls) {
    if (!isLoopbackHost(url.hostname) && !settings.allowPlaintext) {
      return fail(
        hostVariable!,
        'is a remote Docker engine over plain HTTP, which anyone on the path can read and drive: set SVC_DOCKER_TLS_VERIFY=true (or DOCKER_TLS_VERIFY=1) with the certificates in SVC_DOCKER_CERT_PATH, or SVC_DOCKER_ALLOW_PLAINTEXT=true to accept it (a loopback host needs neither)',
        text,
      );
    }
    return { engine: { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port, tls: undefined }, problems: [] };
  }

  const certVariable = settings.certPath !== undefined ? 'SVC_DOCKER_CERT_PATH' : env.DOCKER_CERT_PATH?.trim() ? 'DOCKER_CERT_PATH' : undefined;
  const certPath = settings.certPath ?? (env.DOCKER_CERT_PATH?.trim() || path.join(home, '.docker'));
  const files: DockerTlsFiles = { ca: path.join(certPath, 'ca.pem'), cert: path.join(certPath, 'cert.pem'), key: path.join(certPath, 'key.pem') };
  const problems: ConfigProblem[] = [];
  for (const file of [files.ca, files.cert, files.key]) {
    const fault = pemFault(file);
    if (fault) {
      problems.push({
        variable: certVariable ?? 'SVC_DOCKER_CERT_PATH',
        message: `${fault}: a TLS connection to the Docker engine at ${url.host} needs ca.pem, cert.pem and key.pem in ${certVariable ? 'this directory' : `${certPath} (the default; set SVC_DOCKER_CERT_PATH or DOCKER_CERT_PATH)`}`,
      });
    }
  }
  if (problems.length) return { engine: undefined, problems };
  return { engine: { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port, tls: files }, problems: [] };
}

/** Why `file` cannot serve as a PEM file (unreadable, empty, not PEM), or undefined. Never quotes its content. */
function pemFault(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return `cannot read ${file} (${code ?? (err as Error).message})`;
  }
  return text.includes('-----BEGIN ') ? undefined : `${file} holds no PEM block`;
}
