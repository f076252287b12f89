import type { Command } from '../io.js';
import { localCommand } from './local.js';
import { openapiCommand } from './openapi.js';
import { secretsCommand } from './secrets.js';
import { userCommand } from './user.js';

/**
 * The command table: `svc <name>` runs `commands[name]`. A new command is one
 * file under src/commands/ plus one line here. Commands that need the database
 * import @svc/db inside their own module, so `svc openapi` never loads it.
 */
export const commands: Readonly<Record<string, Command>> = Object.freeze({
  local: localCommand,
  openapi: openapiCommand,
  secrets: secretsCommand,
  user: userCommand,
});
