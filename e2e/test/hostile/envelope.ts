// What every hostile request's answer must look like: never a 5xx, always an
// X-Request-Id, and every error in the spec's envelope
// `{error: {code, message, details?}}` with nothing beside it.
import assert from 'node:assert/strict';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Reads a response whole (event streams: only their head, then the stream is dropped). */
export async function answerOf(r: Response): Promise<Answer> {
  if ((r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await r.body?.cancel().catch(() => undefined);
    return { status: r.status, headers: r.headers, text: '' };
  }
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Throws (an AssertionError naming `what`) when `a` is a 5xx, lacks X-Request-Id, or is an error outside the envelope. */
export function assertWellFormed(a: Answer, what: string): void {
  assert.ok(a.status < 500, `${what}: answered ${a.status}: ${a.text.slice(0, 500)}`);
  assert.ok(a.headers.get('x-request-id'), `${what}: no X-Request-Id header`);
  if (a.status < 400) return;
  assert.match(a.headers.get('content-type') ?? '', /^application\/json/, `${what}: error ${a.status} is not JSON: ${a.text.slice(0, 300)}`);
  let body: any;
  try {
    body = JSON.parse(a.text);
  } catch {
    assert.fail(`${what}: error ${a.status} body is not JSON: ${a.text.slice(0, 300)}`);
  }
  assert.deepEqual(Object.keys(body), ['error'], `${what}: error ${a.status} has keys beside "error": ${a.text.slice(0, 300)}`);
  const e = body.error;
  assert.equal(typeof e?.code, 'string', `${what}: error.code is not a string: ${a.text.slice(0, 300)}`);
  assert.match(e.code, /^[a-z_]+$/, `${what}: error.code ${e.code}`);
  assert.equal(typeof e.message, 'string', `${what}: error.message is not a string`);
  for (const k of Object.keys(e)) assert.ok(['code', 'message', 'details'].includes(k), `${what}: unexpected error field ${k}`);
  if (e.details !== undefined) {
    if (e.code === 'validation_failed' || e.code === 'flow_invalid') {
      assert.ok(Array.isArray(e.details), `${what}: ${e.code} details is not an array`);
      for (const d of e.details) {
        assert.equal(typeof d.field, 'string', `${what}: a details entry without field: ${JSON.stringify(d)}`);
        assert.equal(typeof d.message, 'string', `${what}: a details entry without message: ${JSON.stringify(d)}`);
      }
    }
  }
}
