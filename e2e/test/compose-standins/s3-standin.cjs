// The S3 store of infra/compose.yaml in the Compose test: SeaweedFS's image
// cannot be pulled here, so s3rver (bundled into one file) stands in for it,
// started with SeaweedFS's own arguments and identities file:
//   server -dir=/data -s3 -s3.port=9000 -s3.config=/run/secrets/s3_config ...
// It serves /healthz as SeaweedFS's S3 gateway does, and accepts only the
// access key of the identities file (s3rver does not check V4 signatures).
// It listens where SeaweedFS's S3 gateway would (-s3.ip.bind, else -ip.bind,
// else -ip), and it refuses to start, as a stricter SeaweedFS would, unless
// /etc/seaweedfs/security.toml (the s3_security secret) is mounted with its
// JWT keys set and every gRPC section names a mounted certificate and key
// that match each other and were signed by the mounted CA.
const crypto = require('node:crypto');
const fs = require('node:fs');
const S3rver = require('s3rver');
const AWSAccount = require('s3rver/lib/models/account');

const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`-${name}=`));
  return a ? a.slice(name.length + 2) : fallback;
};
const dir = arg('dir', '/data');
const port = Number(arg('s3.port', '8333'));
const bind = arg('s3.ip.bind', arg('ip.bind', arg('ip', '0.0.0.0')));

/** The sections of a TOML file as flat key = "string" maps (the subset security.toml uses). */
function toml(text) {
  const out = {};
  let section = out;
  for (const line of text.split('\n')) {
    const t = line.replace(/#.*$/, '').trim();
    if (!t) continue;
    const head = /^\[([^\]]+)\]$/.exec(t);
    if (head) section = out[head[1]] = {};
    else {
      const kv = /^([\w.]+)\s*=\s*(?:"([^"]*)"|(\S+))$/.exec(t);
      if (!kv) throw new Error(`security.toml: cannot read ${JSON.stringify(t)}`);
      section[kv[1]] = kv[2] ?? kv[3];
    }
  }
  return out;
}
function checkSecurity(file) {
  const sec = toml(fs.readFileSync(file, 'utf8'));
  for (const s of ['jwt.signing', 'jwt.filer_signing', 'jwt.filer_signing.read'])
    if (!(sec[s] && sec[s].key && sec[s].key.length >= 32)) throw new Error(`security.toml: [${s}] key is not set`);
  if (sec['jwt.signing.read']) throw new Error('security.toml: [jwt.signing.read] breaks the filer (SeaweedFS: read JWTs need master+volume alone)');
  const ca = new crypto.X509Certificate(fs.readFileSync(sec.grpc.ca));
  if (!ca.ca) throw new Error(`security.toml: ${sec.grpc.ca} is not a CA certificate`);
  for (const c of ['grpc.master', 'grpc.volume', 'grpc.filer', 'grpc.s3', 'grpc.client']) {
    if (!sec[c]) throw new Error(`security.toml: no [${c}]: that gRPC port would take any client`);
    const cert = new crypto.X509Certificate(fs.readFileSync(sec[c].cert));
    if (!cert.verify(ca.publicKey)) throw new Error(`security.toml: [${c}] cert is not signed by the CA`);
    if (!cert.checkPrivateKey(crypto.createPrivateKey(fs.readFileSync(sec[c].key)))) throw new Error(`security.toml: [${c}] key does not match its cert`);
    for (const usage of ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'])
      if (!(cert.keyUsage || []).includes(usage)) throw new Error(`security.toml: [${c}] cert lacks extended key usage ${usage}`);
  }
}
checkSecurity(process.env.SEAWEEDFS_SECURITY_TOML || '/etc/seaweedfs/security.toml');

const identities = JSON.parse(fs.readFileSync(arg('s3.config', '/etc/seaweedfs/s3.json'), 'utf8')).identities;
// Only the identities of the file: s3rver's built-in S3RVER account is removed.
for (const [key, acc] of [...AWSAccount.registry]) acc.revokeAccessKey(key);
const account = new AWSAccount('123456789012', 'svc');
for (const id of identities) for (const c of id.credentials) account.createKeyPair(c.accessKey, c.secretKey);

const s3 = new S3rver({ address: bind, port, directory: dir, silent: true });
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
