// Label and field selectors of list and watch requests, with the API
// server's syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`,
// `!a`, comma-separated (all must hold); fields: `metadata.name=x` and the
// few pod fields the API server indexes.
import { badRequest, type KubeObject, type Labels } from './meta.js';

type Requirement = (labels: Labels) => boolean;

/** Splits on commas outside parentheses. */
function terms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter(Boolean);
}

export function parseLabelSelector(selector: string | undefined | null): (labels: Labels | undefined) => boolean {
  if (!selector) return () => true;
  const reqs: Requirement[] = terms(selector).map((t) => {
    let m = /^([^\s!=,()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
    if (m) {
      const [, key, op, list] = m;
      const values = new Set(list.split(',').map((v) => v.trim()));
      return op === 'in' ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
    }
    m = /^([^\s!=,()]+)\s*(==|=|!=)\s*([^\s!=,()]*)$/.exec(t);
    if (m) {
      const [, key, op, value] = m;
      return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
    }
    m = /^(!?)([^\s!=,()]+)$/.exec(t);
    if (m) {
      const [, not, key] = m;
      return not ? (l) => l[key] === undefined : (l) => l[key] !== undefined;
    }
    throw badRequest(`unable to parse requirement: found '${t}', expected: in, notin, =, ==, !=, gt, lt`);
  });
  return (labels) => reqs.every((r) => r(labels ?? {}));
}

/** The fields a selector may name, per kind (as the API server indexes them). */
const SUPPORTED_FIELDS: Record<string, string[]> = {
  Job: ['metadata.name', 'metadata.namespace', 'status.successful'],
  Pod: ['metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName'],
};

/** A field's value in an object. */
function fieldOf(obj: KubeObject, field: string): string | undefined {
  switch (field) {
    case 'metadata.name':
      return obj.metadata.name;
    case 'metadata.namespace':
      return obj.metadata.namespace;
    case 'status.phase':
      return obj.kind === 'Pod' ? (obj.status?.phase ?? '') : undefined;
    case 'spec.nodeName':
      return obj.kind === 'Pod' ? (obj.spec?.nodeName ?? '') : undefined;
    case 'status.successful':
      return obj.kind === 'Job' ? String(obj.status?.succeeded ?? 0) : undefined;
    default:
      return undefined;
  }
}

export function parseFieldSelector(selector: string | undefined | null, kind: string): (obj: KubeObject) => boolean {
  if (!selector) return () => true;
  const reqs = terms(selector).map((t) => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${t}'`);
    const [, field, op, value] = m;
    if (!SUPPORTED_FIELDS[kind]?.includes(field)) throw badRequest(`field label not supported: ${field}`);
    return (o: KubeObject) => (op === '!=' ? fieldOf(o, field) !== value : fieldOf(o, field) === value);
  });
  return (o) => reqs.every((r) => r(o));
}
