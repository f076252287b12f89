// The S3 store of infra/compose.yaml in the Compose test: SeaweedFS's image
// cannot be pulled here, so s3rver (bundled into one file) stands in for it,
// started with SeaweedFS's own arguments and identities file:
//   server -dir=/data -s3 -s3.port=9000 -s3.config=/run/secrets/s3_config ...
// It serves /healthz as SeaweedFS's S3 gateway does, and accepts only the
// access key of the identities file (s3rver does not check V4 signatures).
const fs = require('node:fs');
const S3rver = require('s3rver');
const AWSAccount = require('s3rver/lib/models/account');

const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`-${name}=`));
  return a ? a.slice(name.length + 2) : fallback;
};
const dir = arg('dir', '/data');
const port = Number(arg('s3.port', '8333'));
const identities = JSON.parse(fs.readFileSync(arg('s3.config', '/etc/seaweedfs/s3.json'), 'utf8')).identities;
// Only the identities of the file: s3rver's built-in S3RVER account is removed.
for (const [key, acc] of [...AWSAccount.registry]) acc.revokeAccessKey(key);
const account = new AWSAccount('123456789012', 'svc');
for (const id of identities) for (const c of id.credentials) account.createKeyPair(c.accessKey, c.secretKey);

const s3 = new S3rver({ address: '0.0.0.0', port, directory: dir, silent: true });
s3.middleware.unshift(async (ctx, next) => {
  if (ctx.path === '/healthz') {
    ctx.body = 'ok';
    return;
  }
  await next();
});
s3.run().then(
  (addr) => process.stdout.write(`s3 stand-in on ${addr.port}\n`),
  (err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
