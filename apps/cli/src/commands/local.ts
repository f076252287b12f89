import { type Command } from '../io.js';

const usage = `Usage: svc local

Runs the whole service on this machine in the foreground: an embedded
PostgreSQL under SVC_DATA_DIR (unless SVC_DATABASE_URL is set), migrations,
then api-gateway, scheduler, dispatcher and maintenance as separate processes.
Ctrl-C stops the services, then the database. This is what \`npm start\` runs.
`;

export const localCommand: Command = {
  summary: 'Run the whole service locally (embedded PostgreSQL by default)',
  usage,
  async run(args, io) {
    if (args.includes('--help') || args.includes('-h')) {
      io.stdout.write(usage);
      return 0;
    }
    // Loaded here so commands that need no database never load @svc/db.
    const { runLocal } = await import('../local/supervisor.js');
    return runLocal(args, { stdout: process.stdout, stderr: process.stderr }, { ...process.env, ...io.env });
  },
};
