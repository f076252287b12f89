// The OpenAPI document against Redocly's `recommended` rules (redocly.yaml):
// any error or warning fails, so an example that stops matching its schema,
// an unused component or an operation without a success response is caught
// here rather than by whoever generates a client from the document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from './openapi.js';

const packageDir = path.resolve(import.meta.dirname, '..');

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}

/** The JS entry of @redocly/cli's `redocly` command (a devDependency of this package). */
function redoclyEntry(): string {
  const dir = path.join(packageDir, 'node_modules', '@redocly', 'cli');
  const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  return path.join(dir, typeof bin === 'string' ? bin : (bin.redocly ?? Object.values(bin)[0]!));
}

/** Runs `redocly lint` with this package's redocly.yaml on `doc`, written to a temporary file. */
function lint(doc: unknown): LintReport {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = spawnSync(process.execPath, [redoclyEntry(), 'lint', file, '--config', path.join(packageDir, 'redocly.yaml'), '--format', 'json'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      // No telemetry or update check: the run must not depend on the network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const json = r.stdout.slice(r.stdout.indexOf('{'));
    assert.ok(json, `redocly printed no report (exit ${r.status ?? r.signal}):\n${r.stderr}`);
    return JSON.parse(json) as LintReport;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const describe = (p: LintProblem) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`;

test("the OpenAPI document passes Redocly's recommended rules with no error and no warning", () => {
  const report = lint(buildOpenApiDocument());
  assert.deepEqual(report.problems.map(describe), []);
  assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
});

test('the lint above reports examples that do not match their schemas, in closed flow file objects too', () => {
  const doc = structuredClone(buildOpenApiDocument()) as { components: { schemas: Record<string, { examples?: unknown[] }> } };
  const { schemas } = doc.components;
  schemas.ExecutionState!.examples = ['DONE'];
  // The discriminated Task closes itself with unevaluatedProperties: an unknown
  // field, or a field of another task type, is still caught with
  // allowAdditionalProperties (redocly.yaml).
  schemas['FlowFile.Task']!.examples = [
    { id: 'extract', type: 'script', file: 'scripts/extract.py', bogus: 1 },
    { id: 'notify', type: 'http', url: 'https://hooks.example.com/done', file: 'scripts/extract.py' },
  ];
  const report = lint(doc);
  assert.deepEqual(
    report.problems.map((p) => `${p.ruleId} ${p.location?.[0]?.pointer}`).sort(),
    [
      'no-invalid-schema-examples #/components/schemas/ExecutionState/examples/0',
      'no-invalid-schema-examples #/components/schemas/FlowFile.Task/examples/0/bogus',
      'no-invalid-schema-examples #/components/schemas/FlowFile.Task/examples/1/file',
    ],
    report.problems.map(describe).join('\n'),
  );
});
