import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import tar from 'tar-stream';
import { Rootfs } from './rootfs.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rootfs-test-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function list(r: Rootfs): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const extract = tar.extract();
  extract.on('entry', (h, stream, next) => {
    let body = '';
    stream.on('data', (c: unknown) => void (body += String(c)));
    stream.on('end', () => {
      out[h.name] = h.type === 'symlink' ? `-> ${h.linkname}` : h.type === 'directory' ? 'dir' : body;
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
  r.tar().pipe(extract as unknown as NodeJS.WritableStream);
  await done;
  return out;
}

test('a host path comes with the links on its way, each kept as a link, parents before children', async () => {
  // tmp/lib -> usr/lib, tmp/usr/lib/libx.so.1 -> libx.so.1.2
  fs.mkdirSync(path.join(tmp, 'usr/lib'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'usr/lib/libx.so.1.2'), 'x');
  fs.symlinkSync('libx.so.1.2', path.join(tmp, 'usr/lib/libx.so.1'));
  fs.symlinkSync('usr/lib', path.join(tmp, 'lib'));
  const r = new Rootfs();
  assert.equal(r.host(path.join(tmp, 'lib/libx.so.1')), path.join(tmp, 'usr/lib/libx.so.1.2'));
  r.file('/etc/hello', 'hi').symlink('/usr/local/bin/svc', '/opt/svc/svc');
  const t = tmp.slice(1);
  const entries = await list(r);
  assert.equal(entries[`${t}/lib`], '-> usr/lib');
  assert.equal(entries[`${t}/usr/lib/libx.so.1`], '-> libx.so.1.2');
  assert.equal(entries[`${t}/usr/lib/libx.so.1.2`], 'x');
  assert.equal(entries['etc/hello'], 'hi');
  assert.equal(entries['usr/local/bin/svc'], '-> /opt/svc/svc');
  const names = Object.keys(entries);
  assert.ok(names.indexOf(`${t}/usr/lib`) < names.indexOf(`${t}/usr/lib/libx.so.1.2`));
});
