// SVC_DOCKER_REGISTRY_AUTH and SVC_K8S_IMAGE_PULL_SECRETS as the config reads
// them: which registry an image reference names (as the Docker engine reads
// it), which entry serves an image for a namespace (the longest prefix among
// those serving it; none across the namespace boundary), and every mistake of
// a value reported on its variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from './config.js';
import { ConfigError } from './errors.js';
import { allowedIn } from './namespace-allowlist.js';
import { imageLocation, parseRegistryAuth, registryAuthFor } from './registry-auth.js';

const machine = { cwd: '/srv/app', hostname: 'node-7' };

test('an image reference names its registry as the Docker engine reads it (Docker Hub as docker.io, library/ for official images)', () => {
  const cases: [string, string, string][] = [
    ['busybox', 'docker.io', 'library/busybox'],
    ['busybox:1.36', 'docker.io', 'library/busybox'],
    ['acme/tool:2', 'docker.io', 'acme/tool'],
    ['docker.io/acme/tool', 'docker.io', 'acme/tool'],
    ['index.docker.io/acme/tool', 'docker.io', 'acme/tool'],
    ['ghcr.io/acme-a/etl:1.2@sha256:' + 'a'.repeat(64), 'ghcr.io', 'acme-a/etl'],
    ['127.0.0.1:5000/private/img:t', '127.0.0.1:5000', 'private/img'],
    ['localhost/img', 'localhost', 'img'],
    ['Registry.Example.com:443/a/b/c', 'registry.example.com:443', 'a/b/c'],
  ];
  for (const [image, registry, repository] of cases) assert.deepEqual(imageLocation(image), { registry, repository }, image);
});

test('the entry serving an image is the longest covering prefix among those serving the namespace; another namespace gets none', () => {
  const entries = parseRegistryAuth('ghcr.io=GHCR_ORG@team-a|team-c; ghcr.io/acme-a=GHCR_A@team-a;ghcr.io/acme-b=GHCR_B@team-b;127.0.0.1:5000=LOCAL;docker.io=HUB@*');
  const pick = (image: string, ns: string) => registryAuthFor(entries, image, ns);
  assert.equal(pick('ghcr.io/acme-a/etl:1', 'team-a').entry?.secret, 'GHCR_A', 'the longer prefix');
  assert.equal(pick('ghcr.io/acme-a/etl:1', 'team-a.etl.nightly').entry?.secret, 'GHCR_A', 'a descendant namespace');
  assert.equal(pick('ghcr.io/acme-ab/etl:1', 'team-a').entry?.secret, 'GHCR_ORG', 'a path prefix ends at a /');
  assert.equal(pick('ghcr.io/acme-a/etl:1', 'team-c').entry?.secret, 'GHCR_ORG', 'team-c is served by the registry-wide entry only');
  const crossing = pick('ghcr.io/acme-a/etl:1', 'team-b');
  assert.equal(crossing.entry, undefined, 'team-b may not use the credentials of team-a by naming its image');
  assert.deepEqual(
    crossing.unserved.map((e) => e.secret),
    ['GHCR_ORG', 'GHCR_A'],
  );
  assert.equal(pick('ghcr.io/acme-a/etl:1', 'team-ab').entry, undefined, 'team-a does not cover team-ab');
  assert.equal(pick('127.0.0.1:5000/private/img:t', 'anyone').entry?.secret, 'LOCAL', 'no @: every namespace');
  assert.equal(pick('busybox', 'x').entry?.secret, 'HUB');
  assert.deepEqual(pick('quay.io/x/y', 'team-a'), { unserved: [] }, 'no entry covers it: anonymous, nothing guarded');
});

test('a bad SVC_DOCKER_REGISTRY_AUTH or SVC_K8S_IMAGE_PULL_SECRETS is refused on its variable, every mistake named', () => {
  let caught: unknown;
  try {
    parseConfig(
      {
        SVC_DOCKER_REGISTRY_AUTH: 'team-a/img=X; ghcr.io=has space; ghcr.io/Upper=Y; ghcr.io=Z@Team_B; nothing; ghcr.io=A@t; ghcr.io=B@t',
        SVC_K8S_IMAGE_PULL_SECRETS: 'team-a=Regcred',
      },
      machine,
    );
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConfigError);
  const byVar = Object.fromEntries(caught.problems.map((p) => [p.variable, p.message]));
  assert.deepEqual(Object.keys(byVar).sort(), ['SVC_DOCKER_REGISTRY_AUTH', 'SVC_K8S_IMAGE_PULL_SECRETS']);
  const m = byVar.SVC_DOCKER_REGISTRY_AUTH!;
  assert.match(m, /"team-a\/img" does not begin with a registry host/);
  assert.match(m, /names "has space", which is not a platform secret name/);
  assert.match(m, /"ghcr.io\/Upper" has a repository path that is not lower-case/);
  assert.match(m, /serves "Team_B", which is not a namespace prefix/);
  assert.match(m, /"nothing" is not REGISTRY\[\/PATH\]=PLATFORM_SECRET/);
  assert.match(m, /"ghcr.io" is written twice for the same namespaces/);
  assert.match(byVar.SVC_K8S_IMAGE_PULL_SECRETS!, /"Regcred" must be a Kubernetes Secret name/);
});

test('unset, both settings allow nothing; set, they parse to entries and allowlists', () => {
  const none = parseConfig({}, machine);
  assert.deepEqual(none.dockerRegistryAuth, []);
  assert.deepEqual(none.k8sImagePullSecrets, []);
  const c = parseConfig({ SVC_DOCKER_REGISTRY_AUTH: 'registry-1.docker.io/acme=HUB_ACME@team-a', SVC_K8S_IMAGE_PULL_SECRETS: 'team-a=regcred-a;*=regcred-shared' }, machine);
  assert.deepEqual(c.dockerRegistryAuth, [{ registry: 'docker.io', path: 'acme', secret: 'HUB_ACME', namespaces: ['team-a'] }]);
  assert.deepEqual(allowedIn(c.k8sImagePullSecrets, 'team-a.x'), ['regcred-a', 'regcred-shared']);
  assert.deepEqual(allowedIn(c.k8sImagePullSecrets, 'team-b'), ['regcred-shared']);
});
