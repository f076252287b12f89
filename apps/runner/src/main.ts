#!/usr/bin/env node
// `svc exec`: the process inside every task. It fetches its spec and bundle
// over the runner protocol, runs the task, streams logs and reports the end.
// The protocol is built by the execution engine issue; until then it says so.
const args = process.argv.slice(2);
if (args[0] === '--help' || args[0] === '-h' || args.length === 0) {
  process.stdout.write('usage: svc exec --server URL --task-run ID (run token in SVC_RUN_TOKEN)\n');
  process.exit(args.length === 0 ? 2 : 0);
}
process.stderr.write('svc exec: the runner protocol is not available in this build yet\n');
process.exit(2);
