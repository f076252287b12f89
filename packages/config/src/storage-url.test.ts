import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { StorageUrlError, parseStorageUrl } from './storage-url.js';

describe('parseStorageUrl', () => {
  it('reads an absolute file URL', () => {
    assert.deepEqual(parseStorageUrl('file:///var/lib/svc/objects'), { kind: 'file', dir: '/var/lib/svc/objects' });
    assert.deepEqual(parseStorageUrl('file:///var/lib/svc/objects/'), { kind: 'file', dir: '/var/lib/svc/objects' });
    assert.deepEqual(parseStorageUrl('file:///tmp/with%20space'), { kind: 'file', dir: '/tmp/with space' });
  });

  it('refuses a relative or root file URL', () => {
    assert.throws(() => parseStorageUrl('file://data/objects'), /absolute path/);
    assert.throws(() => parseStorageUrl('file:///'), /other than the root/);
    assert.throws(() => parseStorageUrl('file:///x?y=1'), /no query/);
  });

  it('reads an s3 URL with its options', () => {
    assert.deepEqual(parseStorageUrl('s3://AKIA:se%2Fcret@minio.local:9000/svc-objects?ssl=false&region=eu-west-1'), {
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

  it('defaults an s3 URL to TLS on 443 and us-east-1', () => {
    const target = parseStorageUrl('s3://k:s@s3.example.com/bucket');
    assert.equal(target.kind, 's3');
    if (target.kind !== 's3') return;
    assert.equal(target.useSSL, true);
    assert.equal(target.port, 443);
    assert.equal(target.region, 'us-east-1');
    const plain = parseStorageUrl('s3://k:s@h/bucket?ssl=false');
    assert.equal(plain.kind === 's3' ? plain.port : undefined, 80);
  });

  const bad: [string, RegExp][] = [
    ['s3://h:9000/bucket', /credentials are missing/],
    ['s3://k@h:9000/bucket', /credentials are missing/],
    ['s3://k:s@h:9000', /bucket is missing/],
    ['s3://k:s@h:9000/a/b', /is a path/],
    ['s3://k:s@h:9000/Bad_Bucket', /not a valid name/],
    ['s3://k:s@h:9000/b?ssl=yes', /ssl must be true or false/],
    ['s3://k:s@h:9000/bkt?pathStyle=1', /unknown query parameter "pathStyle"/],
    ['s3://k:s@h:99999/bkt', /expected file:/],
    ['gs://bucket', /unsupported scheme "gs:"/],
    ['/var/lib/svc', /expected file:/],
    ['', /expected file:/],
  ];
  for (const [text, message] of bad) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      assert.throws(
        () => parseStorageUrl(text),
        (err: unknown) => err instanceof StorageUrlError && message.test(err.message),
      );
    });
  }
});
