// Schemas of the platform secret operations (operations/platform-secrets.ts):
// the credentials the git sources and single sign-on use, which
// no flow can resolve. Values go in and never come out.
import { Type } from '@sinclair/typebox';
import { component, DateTime } from './helpers.js';

const closed = { additionalProperties: false } as const;

export const PlatformSecretName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[A-Za-z0-9_.-]+$',
  description: 'A platform secret name (the characters of a builtin secret key)',
});

export const PlatformSecret = component(
  'PlatformSecret',
  Type.Object(
    {
      name: Type.String(),
      key_id: Type.String({ description: 'Id of the master key that sealed the value (rotation)' }),
      upgraded_from_global: Type.Boolean({
        description: 'Copied by the upgrade from the global secret of the same name and still sealed as it was; `svc secrets rewrap` seals it again as a platform secret',
      }),
      global_copy: Type.Boolean({
        description: 'A global secret of the same name exists: flows can read that one, so the credential is not out of their reach until an admin deletes it',
      }),
      created_at: DateTime(),
      updated_at: DateTime(),
      updated_by: Type.String({ description: 'Id of the user who wrote it last; empty when unknown' }),
    },
    closed,
  ),
);

export const PutPlatformSecretRequest = component(
  'PutPlatformSecretRequest',
  Type.Object({ value: Type.String({ minLength: 1, maxLength: 65536, description: 'The value; never returned, logged or audited' }) }, closed),
);
