// Object metadata, Status error bodies and API validation, shaped as the
// Kubernetes API server answers them (apimachinery's StatusError and the
// field paths of its validation messages).
import crypto from 'node:crypto';
import type {
  V1Container,
  V1ContainerStateTerminated,
  V1ContainerStatus,
  V1JobCondition,
  V1JobSpec,
  V1JobStatus,
  V1PodSpec,
  V1PodStatus,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';

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

/**
 * A model type of @kubernetes/client-node as it travels in JSON: times are
 * RFC 3339 strings (or null, as the API server writes an unset
 * `lastProbeTime`), not the client's `Date`s.
 */
export type Json<T> = T extends Date ? string | null : T extends (infer U)[] ? Json<U>[] : T extends object ? { [K in keyof T]: Json<T[K]> } : T;

/** Every field optional, at every depth: a request body before validation. */
export type Unchecked<T> = T extends (infer U)[]
  ? Unchecked<U>[]
  : T extends object
    ? string extends keyof T
      ? { [k: string]: Unchecked<T[keyof T]> } // maps (labels, quantities) keep their values' type
      : { [K in keyof T]?: Unchecked<T[K]> }
    : T;

export type JobSpec = Json<V1JobSpec>;
export type PodTemplateSpec = Json<V1PodTemplateSpec>;
export type JobStatus = Json<V1JobStatus>;
export type JobCondition = Json<V1JobCondition>;
export type PodSpec = Json<V1PodSpec>;
export type PodStatus = Json<V1PodStatus>;
export type Container = Json<V1Container>;
export type ContainerStatus = Json<V1ContainerStatus>;
export type ContainerStateTerminated = Json<V1ContainerStateTerminated>;

/** A stored Job: its spec as the client sent it, validated and defaulted (so its template has a spec); its status as the Job controller wrote it. */
export interface Job {
  apiVersion: string;
  kind: 'Job';
  metadata: ObjectMeta;
  spec: JobSpec & { template: PodTemplateSpec & { spec: PodSpec } };
  status: JobStatus;
}

/** A stored Pod: its spec from its Job's template; its status as the kubelet wrote it. */
export interface Pod {
  apiVersion: string;
  kind: 'Pod';
  metadata: ObjectMeta;
  spec: PodSpec;
  status: PodStatus;
}

/** A Job as a client sent it, before validation and defaults make it a stored `Job`. */
export interface JobRequest {
  apiVersion: string;
  kind: 'Job';
  metadata: ObjectMeta;
  spec: Unchecked<JobSpec>;
  status: JobStatus;
}

/** Any stored object. */
export type KubeObject = Job | Pod;

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
export function labelCauses(labels: Record<string, unknown> | undefined, field: string): StatusCause[] {
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
