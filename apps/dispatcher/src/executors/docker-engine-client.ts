// The one Docker Engine client of the dispatcher: every part of the docker
// executor (tasks, the leftover-container sweep, runner volumes, health pings)
// uses the client made here from config.dockerEngine, which @svc/config
// resolves and checks at start as the docker CLI reads its settings
// (docs/operating/executors.md, "Remote Docker engine").
//
// Over TLS the engine's certificate is verified against ca.pem and the
// dispatcher presents cert.pem and key.pem; the files are read once, here.
// A handshake the engine or this side refuses is no crash: the engine "does
// not answer", docker is withdrawn from the advertised executors and the log
// says why (engineUnavailableReason), with the error's code, never the
// certificates or the key.
import fs from 'node:fs';
import Docker from 'dockerode';
import { assertNever } from '@svc/assert';
import { DEFAULT_DOCKER_SOCKET, type DockerEngine } from '@svc/config';

/** A client for `engine`; undefined: the local socket (/var/run/docker.sock). */
export function dockerEngineClient(engine: DockerEngine | undefined): Docker {
  if (!engine) return new Docker({ socketPath: DEFAULT_DOCKER_SOCKET });
  switch (engine.kind) {
    case 'socket':
      return new Docker({ socketPath: engine.socketPath });
    case 'ssh':
      return new Docker({ protocol: 'ssh', host: engine.host, port: engine.port, ...(engine.username ? { username: engine.username } : {}) });
    case 'tcp':
      if (!engine.tls) return new Docker({ protocol: 'http', host: engine.host, port: engine.port });
      return new Docker({
        protocol: 'https',
        host: engine.host,
        port: engine.port,
        ca: fs.readFileSync(engine.tls.ca),
        cert: fs.readFileSync(engine.tls.cert),
        key: fs.readFileSync(engine.tls.key),
      });
    default:
      return assertNever(engine, 'Docker engine');
  }
}

/** Node's codes for a certificate the client could not verify. */
const CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Why the engine did not answer a ping, for the log: a TLS failure says which
 * side refused (the engine's certificate is not signed by ca.pem, or the
 * engine refused this client's certificate). Only messages and codes of
 * Node's and the engine's errors, which hold no key material.
 */
export function engineUnavailableReason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; statusCode?: unknown; json?: { message?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.json?.message === 'string' ? e.json.message : typeof e?.message === 'string' ? e.message : String(err);
  if (code && CERT_CODES.has(code)) {
    return `TLS: the Docker engine's certificate is not trusted (is it signed by the ca.pem in SVC_DOCKER_CERT_PATH, for this host name?): ${message} (${code})`;
  }
  if (code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_') || /alert (unknown ca|bad certificate|certificate required)|handshake/i.test(message)) {
    return `TLS: the handshake with the Docker engine failed (does it trust the CA of cert.pem in SVC_DOCKER_CERT_PATH?): ${message}${code ? ` (${code})` : ''}`;
  }
  if (/HTTP request to an HTTPS server/i.test(message)) return `the Docker engine speaks TLS, this client plain HTTP: set SVC_DOCKER_TLS_VERIFY=true: ${message}`;
  return code ? `${message} (${code})` : message;
}
