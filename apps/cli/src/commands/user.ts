import { parseArgs } from 'node:util';
import { openDatabase } from '../db.js';
import { UsageError, type Command } from '../io.js';

const usage = `Usage: svc user reset-password --email EMAIL
       svc user create --email EMAIL [--role ROLE] [--name NAME]

Recovery commands that work on the database directly (no server, no
credential): SVC_DATABASE_URL, or the embedded PostgreSQL that \`npm start\`
runs under SVC_DATA_DIR. The password is read from standard input (one line).

  reset-password  Sets the user's password, clears "must change password",
                  re-enables the user and ends their sessions.
  create          Creates a user (role viewer, operator, editor or admin;
                  default viewer).
`;

async function readPassword(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += chunk;
  return text.replace(/\r?\n$/, '');
}


export const userCommand: Command = {
  summary: 'Create users and reset passwords on the database directly (recovery)',
  usage,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (!sub || sub === '--help' || sub === '-h') {
      io.stdout.write(usage);
      return sub ? 0 : 2;
    }
    let values: { email?: string; role?: string; name?: string };
    try {
      ({ values } = parseArgs({ args: rest, options: { email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } }, strict: true }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (!values.email) throw new UsageError('--email is required');
    const identity = await import('@svc/identity');
    const password = await readPassword(io.stdin ?? process.stdin);
    const problem = identity.passwordProblem(password);
    if (problem) {
      io.stderr.write(`svc user: the password from standard input ${problem}\n`);
      return 1;
    }
    const db = await openDatabase(io);
    try {
      const now = new Date();
      if (sub === 'reset-password') {
        const user = await identity.findUserByEmail(db.pool, values.email);
        if (!user) {
          io.stderr.write(`svc user: no user with email ${identity.normalizeEmail(values.email)}\n`);
          return 1;
        }
        await identity.setPassword(db.pool, user.id, password, { temporary: false, now });
        await db.pool.query(`UPDATE users SET disabled = false WHERE id = $1`, [user.id]);
        await identity.recordAudit(db.pool, { action: 'user.password_reset', actor: { id: null, type: 'system' }, targetType: 'user', targetId: user.id, details: { via: 'cli' }, at: now });
        io.stdout.write(`password of ${user.email} reset\n`);
        return 0;
      }
      if (sub === 'create') {
        const role = values.role ?? 'viewer';
        if (!identity.isRole(role)) throw new UsageError(`--role must be one of ${identity.ROLES.join(', ')}`);
        try {
          const { user } = await identity.createUser(db.pool, { email: values.email, role, name: values.name, password }, now);
          await identity.recordAudit(db.pool, { action: 'user.create', actor: { id: null, type: 'system' }, targetType: 'user', targetId: user.id, details: { email: user.email, role, via: 'cli' }, at: now });
          io.stdout.write(`created ${user.email} (${role})\n`);
          return 0;
        } catch (err) {
          if (err instanceof identity.EmailTakenError) {
            io.stderr.write(`svc user: ${err.message}\n`);
            return 1;
          }
          throw err;
        }
      }
      throw new UsageError(`unknown subcommand ${sub}`);
    } finally {
      await db.close();
    }
  },
};
