// Certificates for the test engine's TLS listener (scripts/docker-engine.mjs),
// made per run with the openssl CLI: the engine listens on
// tcp://127.0.0.1:<free port> with --tlsverify, as a remote engine would, so
// the docker executor's TLS client is tested against a real dockerd
// (e2e/test/executors-docker-tls.test.ts).
//
// Under `<dir>/`:
//   ca.pem, ca-key.pem              the CA the engine trusts and is signed by
//   server-cert.pem, server-key.pem the engine's (IP SAN 127.0.0.1)
//   client/{ca,cert,key}.pem        a client the engine accepts (a DOCKER_CERT_PATH)
//   untrusted-client/…              the same CA, a client certificate of another CA: the engine refuses it
//   wrong-ca/…                      a good client certificate, another CA as ca.pem: the client refuses the engine
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Valid for two days: a run lasts hours at most. */
const DAYS = '2';

/**
 * Makes the certificates under `dir` (emptied first). Returns
 * { ok: true, dockerdArgs(port), certPath, untrustedCertPath, wrongCaCertPath }
 * or { ok: false, reason }.
 */
export function makeEngineTls(dir) {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const f = (name) => path.join(dir, name);
    const ssl = (...args) => {
      const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
      if (r.error) throw r.error;
      if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    };
    const ca = (name, cn) =>
      ssl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        f(`${name}-key.pem`),
        '-out',
        f(`${name}.pem`),
        '-days',
        DAYS,
        '-subj',
        `/CN=${cn}`,
      );
    const leaf = (name, cn, caName, ext) => {
      fs.writeFileSync(f(`${name}.ext`), ext);
      ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f(`${name}-key.pem`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
      ssl(
        'x509',
        '-req',
        '-in',
        f(`${name}.csr`),
        '-CA',
        f(`${caName}.pem`),
        '-CAkey',
        f(`${caName}-key.pem`),
        '-CAcreateserial',
        '-out',
        f(`${name}-cert.pem`),
        '-days',
        DAYS,
        '-extfile',
        f(`${name}.ext`),
      );
    };
    ca('ca', 'svc test engine CA');
    ca('other-ca', 'svc test untrusted CA');
    leaf('server', '127.0.0.1', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    leaf('client', 'svc-dispatcher', 'ca', 'extendedKeyUsage=clientAuth\n');
    leaf('untrusted', 'svc-dispatcher', 'other-ca', 'extendedKeyUsage=clientAuth\n');
    const certDir = (name, caName, client) => {
      const d = f(name);
      fs.mkdirSync(d, { mode: 0o700 });
      fs.copyFileSync(f(`${caName}.pem`), path.join(d, 'ca.pem'));
      fs.copyFileSync(f(`${client}-cert.pem`), path.join(d, 'cert.pem'));
      fs.copyFileSync(f(`${client}-key.pem`), path.join(d, 'key.pem'));
      return d;
    };
    return {
      ok: true,
      dockerdArgs: (port) => ['--host', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscacert', f('ca.pem'), '--tlscert', f('server-cert.pem'), '--tlskey', f('server-key.pem')],
      certPath: certDir('client', 'ca', 'client'),
      untrustedCertPath: certDir('untrusted-client', 'ca', 'untrusted'),
      wrongCaCertPath: certDir('wrong-ca', 'other-ca', 'client'),
    };
  } catch (err) {
    return { ok: false, reason: `cannot make the TLS certificates with openssl: ${err?.message ?? err}` };
  }
}

/** A loopback TCP port free right now (the engine binds it a moment later). */
export function freeLoopbackPort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
