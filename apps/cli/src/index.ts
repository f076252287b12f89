export { runCli, usage } from './cli.js';
export { commands } from './commands/index.js';
export { UsageError, type Command, type CommandIo } from './io.js';
export { cliVersion } from './version.js';
