// Secret references: what `secret('...')` names.
//
//   reference   = builtin-key | provider-ref
//   builtin-key = 1*255 ( ALPHA / DIGIT / "_" / "." / "-" )         e.g. DB_PASSWORD
//   provider-ref = provider ":" path [ "#" field ]                    e.g. vault:team/db#password
//   provider    = [a-z0-9][a-z0-9_-]{0,62}   (a secret provider's name)
//   path        = segment *( "/" segment ), each segment of
//                 ALPHA / DIGIT / "_" / "." / "-" / "@" / "+" / "=" / "~",
//                 and never "." or ".." (a path must not climb out of the
//                 provider's mount into other endpoints)
//   field       = 1*( ALPHA / DIGIT / "_" / "." / "-" )
//
// A builtin key cannot contain ":", so the two forms never overlap: a
// reference with a ":" always goes to the named provider, one without is
// looked up in the builtin store (namespace, parents, global).

import { SecretReferenceError } from './errors.js';

export const BUILTIN_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,255}$/;
export const PROVIDER_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SEGMENT = /^[A-Za-z0-9_.@+=~-]+$/;
const FIELD = /^[A-Za-z0-9_.-]{1,255}$/;
const MAX_PATH = 1024;

export type SecretReference =
  | { kind: 'builtin'; key: string }
  | {
      kind: 'provider';
      provider: string;
      path: string;
      /** The field of a structured secret (Vault KV); undefined picks the default (see the provider). */
      field?: string;
    };

/** @throws SecretReferenceError naming what is wrong (never a value: references are names). */
export function parseSecretReference(ref: string): SecretReference {
  const colon = ref.indexOf(':');
  if (colon < 0) {
    if (!BUILTIN_KEY_PATTERN.test(ref)) throw new SecretReferenceError(ref, 'a builtin key has 1 to 255 of A-Z a-z 0-9 _ . -');
    return { kind: 'builtin', key: ref };
  }
  const provider = ref.slice(0, colon);
  if (!PROVIDER_NAME_PATTERN.test(provider)) throw new SecretReferenceError(ref, 'the provider name has 1 to 63 of a-z 0-9 _ - and starts with a letter or digit');
  const rest = ref.slice(colon + 1);
  const hash = rest.indexOf('#');
  const path = hash < 0 ? rest : rest.slice(0, hash);
  const field = hash < 0 ? undefined : rest.slice(hash + 1);
  if (path === '' || path.length > MAX_PATH) throw new SecretReferenceError(ref, `the path after "${provider}:" must have 1 to ${MAX_PATH} characters`);
  for (const segment of path.split('/')) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new SecretReferenceError(ref, 'path segments are separated by single "/", use A-Z a-z 0-9 _ . - @ + = ~, and are never "." or ".."');
    }
  }
  if (field !== undefined && !FIELD.test(field)) throw new SecretReferenceError(ref, 'the field after "#" has 1 to 255 of A-Z a-z 0-9 _ . -');
  return { kind: 'provider', provider, path, ...(field !== undefined ? { field } : {}) };
}

/** The reference as text (inverse of `parseSecretReference`). */
export function formatSecretReference(r: SecretReference): string {
  return r.kind === 'builtin' ? r.key : `${r.provider}:${r.path}${r.field !== undefined ? `#${r.field}` : ''}`;
}
