// The outputs file ($SVC_OUTPUTS), JSON Lines:
//   {"outputs": {"k": value}}                                 merged into the outputs (later lines win)
//   {"metrics": [{"name": "rows", "value": 42, "tags": {...}}]} appended to the metrics
// A line may hold both keys. A bad line fails nothing: it is left out whole and
// reported as a warning, so that half of a line never counts.
import fs from 'node:fs';
import { jsonNestsDeeper, MAX_JSON_DEPTH } from '@svc/config';
import { openTaskFile, type TaskUser } from './task-user.js';
import type { Metric } from './types.js';

/** An outputs file larger than this is ignored with one warning; outputs are meant to be small. */
export const MAX_OUTPUTS_FILE_BYTES = 8 * 1024 * 1024;

export interface ParsedOutputs {
  outputs: Record<string, unknown>;
  metrics: Metric[];
  /** One text per ignored line, `[svc] outputs line N ignored: why`. */
  warnings: string[];
}

export function parseOutputs(text: string): ParsedOutputs {
  const result: ParsedOutputs = { outputs: {}, metrics: [], warnings: [] };
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const problem = applyLine(line, result);
    if (problem) result.warnings.push(`[svc] outputs line ${i + 1} ignored: ${problem}`);
  });
  return result;
}

/** Applies one line to `into`, or returns why it is ignored (leaving `into` untouched). */
function applyLine(line: string, into: ParsedOutputs): string | null {
  // The service stores outputs as jsonb, which refuses deep nesting: such a line would make the task run's end unrecordable.
  if (jsonNestsDeeper(line)) return `nests deeper than ${MAX_JSON_DEPTH} levels`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // Not JSON.parse's message: it quotes a few characters of the line, which could be the start of a secret.
    return 'not valid JSON';
  }
  if (!isPlainObject(value)) return 'not a JSON object';
  const unknownKeys = Object.keys(value).filter((k) => k !== 'outputs' && k !== 'metrics');
  if (unknownKeys.length) return `unknown key ${JSON.stringify(unknownKeys[0])} (expected "outputs" or "metrics")`;
  if (!('outputs' in value) && !('metrics' in value)) return 'expected "outputs" or "metrics"';
  if ('outputs' in value && !isPlainObject(value.outputs)) return '"outputs" must be an object';
  const metrics: Metric[] = [];
  if ('metrics' in value) {
    if (!Array.isArray(value.metrics)) return '"metrics" must be an array';
    for (const [j, m] of value.metrics.entries()) {
      const metric = toMetric(m);
      if (typeof metric === 'string') return `metrics[${j}]: ${metric}`;
      metrics.push(metric);
    }
  }
  if (isPlainObject(value.outputs)) Object.assign(into.outputs, value.outputs);
  into.metrics.push(...metrics);
  return null;
}

function toMetric(m: unknown): Metric | string {
  if (!isPlainObject(m)) return 'not an object';
  if (typeof m.name !== 'string' || !m.name) return '"name" must be a non-empty string';
  if (typeof m.value !== 'number' || !Number.isFinite(m.value)) return '"value" must be a finite number';
  if (m.tags === undefined || m.tags === null) return { name: m.name, value: m.value };
  if (!isPlainObject(m.tags) || !Object.values(m.tags).every((t) => typeof t === 'string')) return '"tags" must map names to strings';
  return { name: m.name, value: m.value, tags: m.tags as Record<string, string> };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads and parses the outputs file; a missing file (the task removed it) is
 * empty. Never through a link, and with a task user only a file it owns
 * (openTaskFile): the task cannot have the runner read another file for it.
 */
export function readOutputs(file: string, maxBytes = MAX_OUTPUTS_FILE_BYTES, user?: TaskUser): ParsedOutputs {
  // Synchronous: usually the file does not exist, and a trip through the thread pool costs more than the call.
  if (!fs.lstatSync(file, { throwIfNoEntry: false })) return { outputs: {}, metrics: [], warnings: [] };
  const f = openTaskFile(file, user);
  if (!f) return { outputs: {}, metrics: [], warnings: ['[svc] outputs file ignored: not a regular file of the task'] };
  try {
    if (f.size > maxBytes) {
      return { outputs: {}, metrics: [], warnings: [`[svc] outputs file ignored: ${f.size} bytes exceeds the limit of ${maxBytes} bytes`] };
    }
    return parseOutputs(fs.readFileSync(f.fd, 'utf8'));
  } finally {
    fs.closeSync(f.fd);
  }
}
