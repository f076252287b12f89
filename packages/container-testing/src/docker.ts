// The Docker engine of the test run: `npm test` starts one per run
// (scripts/docker-engine.mjs) and passes SVC_TEST_DOCKER_HOST, or
// SVC_TEST_DOCKER_SKIP with the reason it could not. Docker tests skip with
// that reason:
//
//   const d = testDocker();
//   test('…', { skip: 'skip' in d && d.skip }, async () => { … });
import fs from 'node:fs';
import Dockerode from 'dockerode';

export type TestDocker = { docker: Dockerode; host: string } | { skip: string };

/**
 * The engine to test against: SVC_TEST_DOCKER_HOST; else the skip reason in
 * SVC_TEST_DOCKER_SKIP; else (a test file run by hand) DOCKER_HOST or
 * /var/run/docker.sock when present; else a skip.
 */
export function testDocker(env: NodeJS.ProcessEnv = process.env): TestDocker {
  if (env.SVC_TEST_DOCKER_HOST) return { docker: dockerAt(env.SVC_TEST_DOCKER_HOST), host: env.SVC_TEST_DOCKER_HOST };
  if (env.SVC_TEST_DOCKER_SKIP) return { skip: env.SVC_TEST_DOCKER_SKIP };
  const dev = env.DOCKER_HOST || (fs.existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : '');
  if (dev) return { docker: dockerAt(dev), host: dev };
  return { skip: 'no Docker engine: run the tests with npm test, which starts one (or set DOCKER_HOST)' };
}

/** A client for `unix:///path` or `tcp://host:port` (plain HTTP: test engines only). */
export function dockerAt(host: string): Dockerode {
  if (host.startsWith('unix://')) return new Dockerode({ socketPath: host.slice('unix://'.length) });
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return new Dockerode({ host: u.hostname, port: Number(u.port || 2375), protocol: 'http' });
}

/** The test engine's TLS listener (`npm test` starts the engine with one, scripts/docker-engine-tls.mjs). */
export type TestDockerTls =
  | {
      /** tcp://127.0.0.1:PORT, served with --tlsverify. */
      host: string;
      /** A DOCKER_CERT_PATH the engine accepts: its CA, a client certificate it trusts, the key. */
      certPath: string;
      /** The engine's CA, but a client certificate of another CA: the engine refuses the handshake. */
      untrustedCertPath: string;
      /** A good client certificate, but another CA as ca.pem: the client refuses the engine. */
      wrongCaCertPath: string;
    }
  | { skip: string };

/** The TLS listener of the run's engine, else why there is none. */
export function testDockerTls(env: NodeJS.ProcessEnv = process.env): TestDockerTls {
  const {
    SVC_TEST_DOCKER_TLS_HOST: host,
    SVC_TEST_DOCKER_CERT_PATH: certPath,
    SVC_TEST_DOCKER_UNTRUSTED_CERT_PATH: untrustedCertPath,
    SVC_TEST_DOCKER_WRONG_CA_CERT_PATH: wrongCaCertPath,
  } = env;
  if (host && certPath && untrustedCertPath && wrongCaCertPath) return { host, certPath, untrustedCertPath, wrongCaCertPath };
  return { skip: env.SVC_TEST_DOCKER_TLS_SKIP ?? env.SVC_TEST_DOCKER_SKIP ?? 'no TLS Docker engine: run the tests with npm test, which starts one' };
}
