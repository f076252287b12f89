// The reasons a failed ping is logged with: TLS refusals say which side
// refused, and carry the error's message and code only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type Docker from 'dockerode';
import { dockerEngineClient, engineUnavailableReason } from './docker-engine-client.js';

/** The modem's connection options (docker-modem's typings leave them out). */
const modem = (d: Docker) => d.modem as unknown as { socketPath?: string; protocol?: string; host?: string; port?: number; ca?: Buffer; cert?: Buffer; key?: Buffer };

const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

test('an engine certificate not signed by ca.pem, and a client certificate the engine refuses, are told apart', () => {
  assert.match(
    engineUnavailableReason(err('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN')),
    /^TLS: the Docker engine's certificate is not trusted.*SELF_SIGNED_CERT_IN_CHAIN/,
  );
  assert.match(engineUnavailableReason(err('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')), /^TLS: the Docker engine's certificate is not trusted/);
  assert.match(
    engineUnavailableReason(err('error:0A000412:SSL routines::sslv3 alert bad certificate', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE')),
    /^TLS: the handshake with the Docker engine failed \(does it trust the CA of cert\.pem/,
  );
  assert.match(
    engineUnavailableReason(Object.assign(err('(HTTP code 400) bad parameter'), { statusCode: 400, json: { message: 'Client sent an HTTP request to an HTTPS server.' } })),
    /speaks TLS.*SVC_DOCKER_TLS_VERIFY=true/,
  );
  assert.equal(engineUnavailableReason(err('connect ECONNREFUSED 127.0.0.1:2376', 'ECONNREFUSED')), 'connect ECONNREFUSED 127.0.0.1:2376 (ECONNREFUSED)');
});

test('a socket engine, the default socket, and a plain loopback tcp engine make clients without reading any file', () => {
  assert.equal(modem(dockerEngineClient(undefined)).socketPath, '/var/run/docker.sock');
  assert.equal(modem(dockerEngineClient({ kind: 'socket', socketPath: '/run/x.sock' })).socketPath, '/run/x.sock');
  const plain = modem(dockerEngineClient({ kind: 'tcp', host: '127.0.0.1', port: 2375, tls: undefined }));
  assert.deepEqual([plain.protocol, plain.host, plain.port], ['http', '127.0.0.1', 2375]);
});

test('a TLS engine: https with the CA, the client certificate and the key read from their files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docker-client-'));
  try {
    const tls = { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
    for (const [name, file] of Object.entries(tls)) fs.writeFileSync(file, `-----BEGIN ${name}-----\n`);
    const m = modem(dockerEngineClient({ kind: 'tcp', host: 'docker.example.com', port: 2376, tls }));
    assert.deepEqual([m.protocol, m.host, m.port], ['https', 'docker.example.com', 2376]);
    assert.deepEqual([String(m.ca), String(m.cert), String(m.key)], ['-----BEGIN ca-----\n', '-----BEGIN cert-----\n', '-----BEGIN key-----\n']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
