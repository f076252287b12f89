import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';

import { type CreateLoggerOptions, createLogger, createTestLogger } from './logger.js';

const fixed = () => new Date('2026-01-02T03:04:05.000Z');

/** A logger writing into a string, with a fixed clock. */
function capture(opts: Partial<CreateLoggerOptions> = {}) {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  const logger = createLogger({ service: 'api-gateway', now: fixed, stream, ...opts });
  return {
    logger,
    text: () => text,
    json: () =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger, json format', () => {
  it('writes one object per line with timestamp, level, service and message first', () => {
    const { logger, text } = capture();
    logger.info('request done', { request_id: 'r-1', status: 200 });
    logger.warn('slow');
    assert.equal(
      text(),
      '{"timestamp":"2026-01-02T03:04:05.000Z","level":"info","service":"api-gateway","message":"request done","request_id":"r-1","status":200}\n' +
        '{"timestamp":"2026-01-02T03:04:05.000Z","level":"warn","service":"api-gateway","message":"slow"}\n',
    );
  });

  it('uses an ISO timestamp from the real clock by default', () => {
    let text = '';
    const stream = new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) });
    const before = Date.now();
    createLogger({ service: 's', stream }).info('x');
    const { timestamp } = JSON.parse(text) as { timestamp: string };
    assert.match(timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(timestamp) >= before - 1 && Date.parse(timestamp) <= Date.now() + 1);
  });

  it('adds instance_id and child metadata to every line', () => {
    const { logger, json } = capture({ instanceId: 'inst-9' });
    logger.child({ request_id: 'r-2' }).info('in child');
    assert.deepEqual(json()[0], {
      timestamp: '2026-01-02T03:04:05.000Z',
      level: 'info',
      service: 'api-gateway',
      message: 'in child',
      request_id: 'r-2',
      instance_id: 'inst-9',
    });
  });

  it('writes info and above by default', () => {
    const { logger, json } = capture();
    logger.debug('hidden');
    logger.info('shown');
    logger.error('shown too');
    assert.deepEqual(
      json().map((l) => l.level),
      ['info', 'error'],
    );
  });

  it('honours the level option', () => {
    const warn = capture({ level: 'warn' });
    warn.logger.info('dropped');
    warn.logger.warn('kept');
    assert.deepEqual(
      warn.json().map((l) => l.message),
      ['kept'],
    );
    const debug = capture({ level: 'debug' });
    debug.logger.debug('kept');
    assert.equal(debug.json()[0]!.level, 'debug');
  });

  it('serializes an error passed as metadata with message, stack, fields and cause', () => {
    const { logger, json } = capture();
    const err = Object.assign(new Error('disk full', { cause: new RangeError('quota') }), { code: 'ENOSPC' });
    logger.error('upload failed', { err, request_id: 'r-3' });
    const line = json()[0]!;
    assert.equal(line.message, 'upload failed');
    assert.equal(line.request_id, 'r-3');
    const logged = line.err as Record<string, unknown>;
    assert.equal(logged.name, 'Error');
    assert.equal(logged.message, 'disk full');
    assert.equal(logged.code, 'ENOSPC');
    assert.match(String(logged.stack), /^Error: disk full\n\s+at /);
    assert.deepEqual((logged.cause as Record<string, unknown>).message, 'quota');
    assert.equal((logged.cause as Record<string, unknown>).name, 'RangeError');
  });

  it('takes the message and stack of an error logged on its own', () => {
    const { logger, json } = capture();
    logger.error(new TypeError('bad input'));
    const line = json()[0]!;
    assert.equal(line.message, 'bad input');
    assert.match(String(line.stack), /^TypeError: bad input/);
  });

  it('survives metadata JSON.stringify cannot write', () => {
    const { logger, json } = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    logger.info('odd values', { cyclic, big: 12n, bytes: Buffer.from('abc') });
    const line = json()[0]!;
    assert.deepEqual(line.cyclic, { name: 'loop', self: '[Circular]' });
    assert.equal(line.big, '12');
    assert.equal(line.bytes, '[Buffer 3 bytes]');
  });
});

describe('createLogger, text format', () => {
  it('writes TIMESTAMP LEVEL [service] message key=value', () => {
    const { logger, text } = capture({ format: 'text' });
    logger.info('request done', { request_id: 'r-1', status: 200, note: 'two words', ok: true, tags: { a: 1 } });
    assert.equal(text(), '2026-01-02T03:04:05.000Z INFO  [api-gateway] request done request_id=r-1 status=200 note="two words" ok=true tags={"a":1}\n');
  });

  it('keeps the entry on one line and puts error stacks, with causes, on indented lines after it', () => {
    const { logger, text } = capture({ format: 'text' });
    const err = Object.assign(new Error('boom', { cause: new Error('root cause') }), { code: 'E1' });
    logger.error('first\nsecond', { err });
    const lines = text().trimEnd().split('\n');
    assert.equal(lines[0], '2026-01-02T03:04:05.000Z ERROR [api-gateway] first\\nsecond err="Error: boom" err.code=E1');
    assert.equal(lines[1], '    Error: boom');
    assert.ok(lines.slice(2).every((l) => l.startsWith('    ')));
    assert.ok(lines.includes('    Caused by: Error: root cause'));
  });
});

describe('createTestLogger', () => {
  it('captures lines synchronously, parsed, at debug level', () => {
    const { logger, lines, clear } = createTestLogger();
    logger.debug('one', { request_id: 'x' });
    logger.child({ task_run_id: 't1' }).warn('two');
    assert.deepEqual(
      lines().map((l) => [l.level, l.message, l.service]),
      [
        ['debug', 'one', 'test'],
        ['warn', 'two', 'test'],
      ],
    );
    assert.equal(lines()[0]!.request_id, 'x');
    assert.equal(lines()[1]!.task_run_id, 't1');
    clear();
    assert.deepEqual(lines(), []);
    logger.info('three');
    assert.equal(lines().length, 1);
  });

  it('keeps loggers apart', () => {
    const a = createTestLogger({ service: 'a' });
    const b = createTestLogger({ service: 'b' });
    a.logger.info('only in a');
    assert.equal(a.lines().length, 1);
    assert.equal(b.lines().length, 0);
  });
});
