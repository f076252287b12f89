// What "masked" means, as one table: each row is secret values, a text, and
// the text as every masking place (runner, engine, alerts, git, AI) shows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MASK, Masker, maskForms, maskText } from './index.js';

const PEM = '-----BEGIN KEY-----\nAAAABBBBCCCC\n}\n-----END KEY-----';

const TABLE: { what: string; secrets: string[]; text: string; masked: string }[] = [
  { what: 'every occurrence of every value', secrets: ['s3cret', 'tok'], text: 'a s3cret b tok c s3cret', masked: 'a *** b *** c ***' },
  { what: 'the longest value wins where values overlap (no tail left)', secrets: ['abc', 'abcdef'], text: 'xabcdefx abc', masked: 'x***x ***' },
  { what: 'a value inside a longer one, listed first', secrets: ['abcdef', 'cd'], text: 'abcdef cd', masked: '*** ***' },
  { what: 'regular expression characters are literal', secrets: ['a.b*c', '(x)'], text: 'a.b*c axbbc (x) x', masked: '*** axbbc *** x' },
  { what: 'an empty value masks nothing', secrets: [''], text: 'unchanged', masked: 'unchanged' },
  { what: 'no values mask nothing', secrets: [], text: 'unchanged', masked: 'unchanged' },
  { what: 'a short value is still a secret', secrets: ['q'], text: 'quiz', masked: '***uiz' },
  { what: 'inside a JSON string (quotes and backslashes escaped)', secrets: ['p"a\\ss'], text: '{"password":"p\\"a\\\\ss"}', masked: '{"password":"***"}' },
  { what: 'a multi-line value inside a JSON string', secrets: ['line one\nline two'], text: '{"v":"line one\\nline two"}', masked: '{"v":"***"}' },
  { what: 'URL-encoded as a component', secrets: ['p@ss word/1'], text: 'https://h/?p=p%40ss%20word%2F1', masked: 'https://h/?p=***' },
  { what: 'URL-encoded as a whole URL', secrets: ['https://h/a b'], text: 'GET https://h/a%20b', masked: 'GET ***' },
  { what: 'form-encoded (space as +, parentheses escaped)', secrets: ["it's (a) secret"], text: 'v=it%27s+%28a%29+secret', masked: 'v=***' },
  { what: 'each line of a multi-line value', secrets: [PEM], text: 'key line AAAABBBBCCCC here', masked: 'key line *** here' },
  { what: 'a line shorter than the minimum is text', secrets: [PEM], text: 'a } brace', masked: 'a } brace' },
  { what: 'a line masked trimmed too (re-indented)', secrets: ['  indented line\nsecond line'], text: '> indented line', masked: '> ***' },
  { what: 'the whole multi-line value at once', secrets: [PEM], text: `x ${PEM} y`, masked: 'x *** y' },
  { what: 'a lone surrogate (not URL-encodable) is masked as written', secrets: ['a\ud800b'], text: 'x a\ud800b y', masked: 'x *** y' },
];

for (const row of TABLE) {
  test(`masked: ${row.what}`, () => {
    assert.equal(new Masker(row.secrets).text(row.text), row.masked);
    assert.equal(maskText(row.text, row.secrets), row.masked);
  });
}

test('the mask is ***', () => {
  assert.equal(MASK, '***');
});

test('a JSON value is masked in every string and key, at any depth, and __proto__ stays a key', () => {
  const m = new Masker(['s3cret']);
  const v = m.value({ a: ['x s3cret', 1, null, { s3cret: true }], n: 2, ['__proto__']: 's3cret' }) as Record<string, unknown>;
  assert.deepEqual(JSON.parse(JSON.stringify(v)), { a: ['x ***', 1, null, { '***': true }], n: 2, ['__proto__']: '***' });
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
});

test('straddleStart finds a value (in any form) that a cut would split', () => {
  const m = new Masker(['SECRET']);
  const text = 'xxxxSECRETyyyy';
  assert.equal(m.straddleStart(text, 6), 4);
  assert.equal(m.straddleStart(text, 4), -1, 'cut right before it');
  assert.equal(m.straddleStart(text, 10), -1, 'cut right after it');
  assert.equal(new Masker(['a b']).straddleStart('xx a%20b', 5), 3, 'its URL form');
});

test('longest is the longest form, masks says whether anything is masked', () => {
  assert.equal(new Masker(['a b']).longest, 'a%20b'.length);
  assert.equal(new Masker(['']).masks, false);
  assert.equal(new Masker(['x']).masks, true);
});

test('maskForms lists each form once and none for the empty value', () => {
  assert.deepEqual(maskForms(''), []);
  assert.deepEqual(maskForms('plain'), ['plain']);
  assert.deepEqual(maskForms('a b').sort(), ['a b', 'a%20b', 'a+b'].sort());
});
