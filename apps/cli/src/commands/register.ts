// Every commander-based command group, in the order `svc --help` lists them.
import type { Command } from 'commander';
import type { App } from '../app.js';
import { registerAdmin } from './admin.js';
import { registerAi } from './ai.js';
import { registerAlert } from './alert.js';
import { registerAudit } from './audit.js';
import { registerAuth } from './auth.js';
import { registerCompletion } from './completion.js';
import { registerExecutions } from './executions.js';
import { registerFlow } from './flow.js';
import { registerNs } from './ns.js';
import { registerOrg } from './org.js';
import { registerPlatformSecret } from './platform-secret.js';
import { registerRoleBinding } from './role-binding.js';
import { registerSecretsAndVars } from './secrets-vars.js';
import { registerServerLocal } from './server-local.js';
import { registerSso } from './sso.js';

export function registerAll(program: Command, app: App): void {
  registerAuth(program, app);
  registerNs(program, app);
  registerFlow(program, app);
  registerExecutions(program, app);
  registerSecretsAndVars(program, app);
  registerPlatformSecret(program, app);
  registerAdmin(program, app);
  registerAudit(program, app);
  registerAi(program, app);
  registerOrg(program, app);
  registerAlert(program, app);
  registerRoleBinding(program, app);
  registerSso(program, app);
  registerServerLocal(program, app);
  registerCompletion(program, app);
}
