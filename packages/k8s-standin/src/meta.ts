// Object metadata, Status error bodies and API validation, shaped as the
// Kubernetes API server answers them (apimachinery's StatusError and the
// field paths of its validation messages).
import crypto from 'node:crypto';

export type Labels = Record<string, string>;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Labels;
  annotations?: Labels;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

/** Any stored object: Jobs and Pods keep their spec and status as the client sent and the controllers wrote them. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: any;
  status?: any;
}

/** The API server's time format (RFC 3339, seconds). */
export function timestamp(d = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function newUid(): string {
  return crypto.randomUUID();
}

/** The 5 characters generateName appends (apiserver's utilrand alphabet: no vowels, no confusable digits). */
export function randomSuffix(n = 5): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (const b of crypto.randomBytes(n)) s += alphabet[b % alphabet.length];
  return s;
}

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** An API error answered as a `Status` object. */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] },
  ) {
    super(message);
    this.name = 'StatusError';
  }

  body(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** A resource as the API names it in messages: `jobs.batch`, `pods`. */
export interface ResourceInfo {
  resource: 'jobs' | 'pods';
  group: string;
  kind: 'Job' | 'Pod';
  apiVersion: string;
}

export const RESOURCES: Record<'jobs' | 'pods', ResourceInfo> = {
  jobs: { resource: 'jobs', group: 'batch', kind: 'Job', apiVersion: 'batch/v1' },
  pods: { resource: 'pods', group: '', kind: 'Pod', apiVersion: 'v1' },
};

const qualified = (r: ResourceInfo) => (r.group ? `${r.resource}.${r.group}` : r.resource);
const qualifiedKind = (r: ResourceInfo) => (r.group ? `${r.kind}.${r.group}` : r.kind);

export const notFound = (r: ResourceInfo, name: string) =>
  new StatusError(404, 'NotFound', `${qualified(r)} "${name}" not found`, { name, group: r.group || undefined, kind: r.resource });

export const alreadyExists = (r: ResourceInfo, name: string) =>
  new StatusError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, { name, group: r.group || undefined, kind: r.resource });

export const namespaceNotFound = (ns: string) => new StatusError(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' });

export const badRequest = (message: string) => new StatusError(400, 'BadRequest', message);

export function invalid(r: ResourceInfo, name: string, causes: StatusCause[]): StatusError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const message = `${qualifiedKind(r)} "${name}" is invalid: ${list.length === 1 ? list[0] : `[${list.join(', ')}]`}`;
  return new StatusError(422, 'Invalid', message, { name, group: r.group || undefined, kind: r.kind, causes });
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Why a name is not a DNS-1123 subdomain (object names), or null. */
export function subdomainError(name: string): string | null {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
  }
  return null;
}

/** Why a name is not a DNS-1123 label (container and volume names), or null. */
export function labelNameError(name: string): string | null {
  if (name.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL.test(name)) {
    return `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
  }
  return null;
}

/** Causes for label keys and values that Kubernetes would refuse. */
export function labelCauses(labels: Labels | undefined, field: string): StatusCause[] {
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    const slash = k.lastIndexOf('/');
    const prefix = slash >= 0 ? k.slice(0, slash) : '';
    const name = slash >= 0 ? k.slice(slash + 1) : k;
    if ((prefix && subdomainError(prefix)) || name.length > 63 || !LABEL_NAME.test(name)) {
      out.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      out.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: "${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
  }
  return out;
}
