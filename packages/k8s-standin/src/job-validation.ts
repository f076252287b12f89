// What the API server checks and fills in when a batch/v1 Job is created:
// the validation of apis/batch and core/v1 pod templates that a Job of the
// kubernetes executor can run into, and the defaults the server writes into
// the stored object (a client reading the Job back sees them). Quantities are
// read by @svc/vocabulary, the parser the flow schema and the dispatcher use.
import {
  labelCauses,
  labelNameError,
  subdomainError,
  type Container,
  type Job,
  type JobRequest,
  type JobSpec,
  type PodSpec,
  type PodTemplateSpec,
  type StatusCause,
  type Unchecked,
} from './meta.js';
import { compareQuantities, parseQuantity, quantityScaled, type Quantity } from '@svc/vocabulary';

/** A quantity as the API server reads it (a JSON number is read as its text); null when malformed. */
function quantityOf(q: unknown): Quantity | null {
  return typeof q === 'string' ? parseQuantity(q) : typeof q === 'number' && Number.isFinite(q) ? parseQuantity(String(q)) : null;
}

/** A cpu quantity in cores (millicore precision, as the kubelet reads it); null when malformed. */
export function cpuCores(q: unknown): number | null {
  const parsed = quantityOf(q);
  return parsed ? Number(quantityScaled(parsed, 3)) / 1000 : null;
}

/** A memory quantity in bytes (rounded up, Quantity.Value); null when malformed. */
export function memoryBytes(q: unknown): number | null {
  const parsed = quantityOf(q);
  return parsed ? Number(quantityScaled(parsed, 0)) : null;
}

/** Cpu and memory are quantities; an extended resource (`nvidia.com/gpu`) a whole number. */
const quantity = (res: string, q: unknown): Quantity | null =>
  res === 'cpu' || res === 'memory' ? quantityOf(q) : typeof q === 'string' && /^\d+$/.test(q) ? parseQuantity(q) : null;

function containerCauses(c: Unchecked<Container>, field: string, volumeNames: Set<string | undefined>): StatusCause[] {
  const out: StatusCause[] = [];
  const err = (f: string, reason: string, message: string) => out.push({ reason, field: `${field}.${f}`, message });
  if (!c.name) err('name', 'FieldValueRequired', 'Required value');
  else if (labelNameError(c.name)) err('name', 'FieldValueInvalid', `Invalid value: "${c.name}": ${labelNameError(c.name)}`);
  if (!c.image) err('image', 'FieldValueRequired', 'Required value');
  else if (c.image !== c.image.trim()) err('image', 'FieldValueInvalid', `Invalid value: "${c.image}": must not have leading or trailing whitespace`);
  if (c.imagePullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy)) {
    err('imagePullPolicy', 'FieldValueNotSupported', `Unsupported value: "${c.imagePullPolicy}": supported values: "Always", "IfNotPresent", "Never"`);
  }
  for (const kind of ['requests', 'limits'] as const) {
    for (const [res, q] of Object.entries(c.resources?.[kind] ?? {})) {
      const parsed = quantity(res, q);
      if (parsed === null) err(`resources.${kind}[${res}]`, 'FieldValueInvalid', `Invalid value: "${String(q)}": must be a valid quantity`);
      else if (parsed.nanos < 0n) err(`resources.${kind}[${res}]`, 'FieldValueInvalid', `Invalid value: "${String(q)}": must be greater than or equal to 0`);
    }
  }
  for (const [res, q] of Object.entries(c.resources?.requests ?? {})) {
    const limit = c.resources?.limits?.[res];
    const [request, max] = [quantity(res, q), limit === undefined ? null : quantity(res, limit)];
    if (request && max && compareQuantities(request, max) > 0) {
      err(`resources.requests`, 'FieldValueInvalid', `Invalid value: "${String(q)}": must be less than or equal to ${res} limit of ${String(limit)}`);
    }
  }
  (c.env ?? []).forEach((e, i) => {
    if (!e?.name) err(`env[${i}].name`, 'FieldValueRequired', 'Required value');
  });
  (c.volumeMounts ?? []).forEach((m, i) => {
    if (!volumeNames.has(m?.name)) err(`volumeMounts[${i}].name`, 'FieldValueNotFound', `Not found: "${m?.name}"`);
    if (!m?.mountPath) err(`volumeMounts[${i}].mountPath`, 'FieldValueRequired', 'Required value');
  });
  return out;
}

function podSpecCauses(spec: Unchecked<PodSpec> | undefined, field: string): StatusCause[] {
  const out: StatusCause[] = [];
  const volumeNames = new Set<string | undefined>();
  (spec?.volumes ?? []).forEach((v, i) => {
    if (!v?.name || labelNameError(v.name))
      out.push({
        reason: 'FieldValueInvalid',
        field: `${field}.volumes[${i}].name`,
        message: `Invalid value: "${v?.name ?? ''}": ${labelNameError(v?.name ?? '') ?? 'Required value'}`,
      });
    volumeNames.add(v?.name);
    if (v?.secret && !v.secret.secretName) out.push({ reason: 'FieldValueRequired', field: `${field}.volumes[${i}].secret.secretName`, message: 'Required value' });
    if (!v?.emptyDir && !v?.secret)
      out.push({ reason: 'FieldValueNotSupported', field: `${field}.volumes[${i}]`, message: 'the stand-in supports emptyDir and secret volumes only' });
  });
  if (!Array.isArray(spec?.containers) || spec.containers.length === 0) out.push({ reason: 'FieldValueRequired', field: `${field}.containers`, message: 'Required value' });
  const names = new Set<string | undefined>();
  for (const [list, items] of [
    ['initContainers', spec?.initContainers ?? []],
    ['containers', spec?.containers ?? []],
  ] as const) {
    items.forEach((c, i) => {
      out.push(...containerCauses(c, `${field}.${list}[${i}]`, volumeNames));
      if (c?.name && names.has(c.name)) out.push({ reason: 'FieldValueDuplicate', field: `${field}.${list}[${i}].name`, message: `Duplicate value: "${c.name}"` });
      names.add(c?.name);
    });
  }
  (spec?.tolerations ?? []).forEach((t, i) => {
    const f = `${field}.tolerations[${i}]`;
    if (t.operator !== undefined && !['Exists', 'Equal'].includes(t.operator))
      out.push({ reason: 'FieldValueNotSupported', field: `${f}.operator`, message: `Unsupported value: "${t.operator}": supported values: "Equal", "Exists"` });
    if (t.operator === 'Exists' && t.value)
      out.push({ reason: 'FieldValueInvalid', field: `${f}.operator`, message: `Invalid value: "${t.value}": value must be empty when \`operator\` is 'Exists'` });
    if (!t.key && t.operator !== 'Exists')
      out.push({
        reason: 'FieldValueInvalid',
        field: `${f}.operator`,
        message: `Invalid value: "${t.operator ?? 'Equal'}": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      });
    if (t.effect !== undefined && t.effect !== '' && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      out.push({
        reason: 'FieldValueNotSupported',
        field: `${f}.effect`,
        message: `Unsupported value: "${t.effect}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
      });
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      out.push({ reason: 'FieldValueInvalid', field: `${f}.effect`, message: `Invalid value: "${t.effect ?? ''}": effect must be 'NoExecute' when \`tolerationSeconds\` is set` });
    }
  });
  (spec?.imagePullSecrets ?? []).forEach((s, i) => {
    if (!s?.name) out.push({ reason: 'FieldValueRequired', field: `${field}.imagePullSecrets[${i}].name`, message: 'Required value' });
  });
  if (spec?.serviceAccountName && subdomainError(spec.serviceAccountName)) {
    out.push({
      reason: 'FieldValueInvalid',
      field: `${field}.serviceAccountName`,
      message: `Invalid value: "${spec.serviceAccountName}": ${subdomainError(spec.serviceAccountName)}`,
    });
  }
  out.push(...labelCauses(spec?.nodeSelector, `${field}.nodeSelector`));
  return out;
}

/** Everything wrong with a Job about to be created (its name already chosen). */
export function jobCauses(job: JobRequest): StatusCause[] {
  const out: StatusCause[] = [];
  const name = job.metadata.name ?? '';
  const nameErr = subdomainError(name) ?? (name.length > 63 ? 'must be no more than 63 characters' : null);
  if (nameErr) out.push({ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${name}": ${nameErr}` });
  out.push(...labelCauses(job.metadata.labels, 'metadata.labels'));
  const spec: Unchecked<JobSpec> = job.spec ?? {};
  for (const f of ['backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished', 'completions', 'parallelism'] as const) {
    const v = spec[f];
    if (v !== undefined && !(Number.isInteger(v) && v >= (f === 'activeDeadlineSeconds' ? 1 : 0))) {
      out.push({
        reason: 'FieldValueInvalid',
        field: `spec.${f}`,
        message: `Invalid value: ${JSON.stringify(v)}: must be ${f === 'activeDeadlineSeconds' ? 'greater than 0' : 'greater than or equal to 0'}`,
      });
    }
  }
  const template: Unchecked<PodTemplateSpec> = spec.template ?? {};
  out.push(...labelCauses(template.metadata?.labels, 'spec.template.metadata.labels'));
  const rp = template.spec?.restartPolicy;
  if (rp !== 'Never' && rp !== 'OnFailure') {
    out.push({
      reason: rp === undefined ? 'FieldValueRequired' : 'FieldValueNotSupported',
      field: 'spec.template.spec.restartPolicy',
      message: `${rp === undefined ? 'Required value' : `Unsupported value: "${rp}"`}: supported values: "OnFailure", "Never"`,
    });
  }
  out.push(...podSpecCauses(template.spec, 'spec.template.spec'));
  return out;
}

/** The image pull policy Kubernetes defaults to: Always for `:latest` or no tag, else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const tag = last.includes(':') ? last.slice(last.indexOf(':') + 1) : '';
  return !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Unchecked<Container>): void {
  // Validated: every container has an image.
  c.imagePullPolicy ??= defaultPullPolicy(c.image!);
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.resources ??= {};
  // A limit without a request requests the limit.
  for (const [res, q] of Object.entries(c.resources.limits ?? {})) {
    c.resources.requests ??= {};
    c.resources.requests[res] ??= q;
  }
}

/** The API server's defaults, written into the Job about to be stored (uid-dependent selector labels included); after `jobCauses` found nothing wrong, they make it a `Job`. */
export function defaultJob(job: JobRequest): Job {
  const spec = (job.spec ??= {});
  spec.parallelism ??= 1;
  spec.completions ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.manualSelector ??= false;
  spec.podReplacementPolicy ??= 'TerminatingOrFailed';
  const uid = job.metadata.uid!;
  const selectorLabels = { 'batch.kubernetes.io/controller-uid': uid };
  spec.selector ??= { matchLabels: selectorLabels };
  const t = (spec.template ??= {});
  t.metadata ??= {};
  // Defaulting (at decode) copies the template's own labels to a Job that has none, before the selector labels are added.
  if (!Object.keys(job.metadata.labels ?? {}).length && t.metadata.labels) job.metadata.labels = { ...t.metadata.labels };
  t.metadata.labels = {
    ...t.metadata.labels,
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': job.metadata.name!,
    'controller-uid': uid,
    'job-name': job.metadata.name!,
  };
  const ps = (t.spec ??= {});
  ps.terminationGracePeriodSeconds ??= 30;
  ps.dnsPolicy ??= 'ClusterFirst';
  ps.schedulerName ??= 'default-scheduler';
  ps.securityContext ??= {};
  if (ps.serviceAccountName) ps.serviceAccount = ps.serviceAccountName;
  for (const c of [...(ps.initContainers ?? []), ...(ps.containers ?? [])]) defaultContainer(c);
  for (const tol of ps.tolerations ?? []) if (tol.operator === undefined && tol.key) tol.operator = 'Equal';
  job.status ??= {};
  return job as Job;
}
