import { componentName } from './helpers.js';
import * as backfills from './backfills.js';
import * as bulk from './bulk.js';
import * as alerts from './alerts.js';
import * as entities from './entities.js';
import * as organizations from './organizations.js';
import * as platformSecrets from './platform-secrets.js';
import * as requests from './requests.js';
import * as replay from './replay.js';
import * as resources from './resources.js';
import * as roleBindings from './role-bindings.js';
import * as runner from './runner.js';
import * as sso from './sso.js';

export * from './alerts.js';
export * from './backfills.js';
export * from './bulk.js';
export * from './cursors.js';
export * from './entities.js';
export * from './helpers.js';
export * from './organizations.js';
export * from './platform-secrets.js';
export * from './replay.js';
export * from './requests.js';
export * from './resources.js';
export * from './role-bindings.js';
export * from './runner.js';
export * from './sso.js';

/** Every schema marked with `component()`, by component name. */
export function componentSchemas(): Map<string, object> {
  const out = new Map<string, object>();
  for (const mod of [resources, entities, requests, runner, organizations, alerts, backfills, bulk, roleBindings, sso, platformSecrets, replay]) {
    for (const value of Object.values(mod)) {
      const name = componentName(value);
      if (name === undefined) continue;
      const seen = out.get(name);
      if (seen !== undefined && seen !== value) throw new Error(`two schemas claim the component name ${name}`);
      out.set(name, value as object);
    }
  }
  return out;
}
