// Text helpers shared by triage and the gateway's assistant tools.
import { createTwoFilesPatch } from 'diff';

/** A tool argument as text: a string as it is, a number or boolean written out, anything else as JSON; empty when absent. */
export function argText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** A unified diff of a file change (the confirm view of save_flow; a triage's flow definition since the last success). */
export function fileDiff(path: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: 3 });
}
