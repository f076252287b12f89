export { runCli, usage, buildProgram } from './cli.js';
export { App } from './app.js';
export { CliError, type CommandIo } from './io.js';
export { cliVersion } from './version.js';
