import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidStorageUrlError } from './errors.js';
import { parseObjectStoreUrl, redactUrl } from './url.js';

describe('parseObjectStoreUrl', () => {
  it('parses a file URL to an absolute directory', () => {
    assert.deepEqual(parseObjectStoreUrl('file:///var/lib/svc/objects/'), { kind: 'file', dir: '/var/lib/svc/objects' });
    assert.deepEqual(parseObjectStoreUrl('file://localhost/data%20dir'), { kind: 'file', dir: '/data dir' });
  });

  it('parses a full s3 URL', () => {
    assert.deepEqual(parseObjectStoreUrl('s3://AKIA:se%2Fcret@minio.local:9000/svc-objects?ssl=false&region=eu-west-1'), {
      kind: 's3',
      endPoint: 'minio.local',
      port: 9000,
      useSSL: false,
      accessKey: 'AKIA',
      secretKey: 'se/cret',
      bucket: 'svc-objects',
      region: 'eu-west-1',
    });
  });

  it('defaults to TLS on 443 and us-east-1, or port 80 without TLS', () => {
    const tls = parseObjectStoreUrl('s3://k:s@s3.example.com/bucket');
    assert.deepEqual([tls.kind === 's3' && tls.port, tls.kind === 's3' && tls.useSSL, tls.kind === 's3' && tls.region], [443, true, 'us-east-1']);
    const plain = parseObjectStoreUrl('s3://k:s@[::1]/bucket?ssl=false');
    assert.deepEqual([plain.kind === 's3' && plain.port, plain.kind === 's3' && plain.endPoint], [80, '::1']);
  });

  const bad: Array<[string, RegExp]> = [
    ['http://host/bucket', /unsupported scheme "http:"/],
    ['not a url', /expected file:\/\/\/ABSOLUTE\/DIR/],
    ['file://relative/dir', /three slashes/],
    ['file:///', /other than the root/],
    ['file:///data?x=1', /no query/],
    ['s3://host:9000/bucket', /credentials are missing/],
    ['s3://k:s@host/a/b', /is a path/],
    ['s3://k:s@host/AB', /not a valid name/],
    ['s3://k:s@host/bucket?region=EU%20WEST', /region/],
  ];
  for (const [url, message] of bad) {
    it(`rejects ${url}`, () =>
      assert.throws(
        () => parseObjectStoreUrl(url),
        (err: unknown) => err instanceof InvalidStorageUrlError && message.test(err.message),
      ));
  }

  it('never puts the secret key in the error', () => {
    assert.throws(
      () => parseObjectStoreUrl('s3://key:hunter2@host/x'),
      (err: unknown) => err instanceof InvalidStorageUrlError && !err.message.includes('hunter2') && err.url === 's3://key:***@host/x',
    );
  });
});

describe('redactUrl', () => {
  it('masks only the password', () => {
    assert.equal(redactUrl('s3://key:secret@host:9000/b?ssl=false'), 's3://key:***@host:9000/b?ssl=false');
    assert.equal(redactUrl('file:///data'), 'file:///data');
  });
});
