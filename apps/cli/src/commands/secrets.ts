import { openDatabase } from '../db.js';
import { UsageError, type Command } from '../io.js';

const usage = `Usage: svc secrets rewrap

Re-encrypts every builtin secret and secret provider credential that is sealed
with an older master key, using the first key of SVC_MASTER_KEYS, so the old
key can then be removed from SVC_MASTER_KEYS. Works on the database directly
(SVC_DATABASE_URL, or the embedded PostgreSQL under SVC_DATA_DIR). Every key
id still in use must be present in SVC_MASTER_KEYS while it runs.
`;


export const secretsCommand: Command = {
  summary: 'Re-encrypt secrets with the first master key (key rotation)',
  usage,
  async run(args, io) {
    if (args[0] === '--help' || args[0] === '-h') {
      io.stdout.write(usage);
      return 0;
    }
    if (args[0] !== 'rewrap' || args.length !== 1) throw new UsageError('expected: svc secrets rewrap');
    const { parseMasterKeys } = await import('@svc/config');
    const keys = parseMasterKeys(io.env.SVC_MASTER_KEYS ?? '');
    if (!keys.length) {
      io.stderr.write('svc secrets: SVC_MASTER_KEYS is empty: there is no key to re-encrypt with\n');
      return 1;
    }
    const { rewrapSecrets } = await import('@svc/secrets');
    const db = await openDatabase(io);
    try {
      const report = await rewrapSecrets(db.pool, keys, { batchSize: 200 });
      io.stdout.write(`re-encrypted ${report.secrets} secret(s) and ${report.providers} provider credential(s) with key ${keys[0]!.id}\n`);
      if (report.skipped.length) {
        io.stderr.write(`skipped ${report.skipped.length}: ${JSON.stringify(report.skipped.slice(0, 10))}\n`);
        return 1;
      }
      return 0;
    } finally {
      await db.close();
    }
  },
};
