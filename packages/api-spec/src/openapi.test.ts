import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from './openapi.js';
import { EXTENSION_OPERATION_IDS, operations } from './operations/index.js';
import { ROLES } from './roles.js';
import { componentSchemas } from './schemas/index.js';

// The contract lives beside the repository: /work/main -> ../shared/spec.
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const specPath = path.resolve(repoRoot, '../shared/spec/service-spec.md');

interface IndexRow {
  operationId: string;
  method: string;
  path: string;
}

/** Rows of the spec's "Operation index" table; `(webhook start)` becomes `webhookStart`. */
function parseOperationIndex(markdown: string): IndexRow[] {
  const start = markdown.indexOf('### Operation index');
  assert.ok(start >= 0, 'the spec has an Operation index');
  const section = markdown.slice(start, markdown.indexOf('\n###', start + 1));
  const rows: IndexRow[] = [];
  for (const line of section.split('\n')) {
    const m = /^\|\s*([^|]+?)\s*\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\S+)\s*\|$/.exec(line.trim());
    if (!m) continue;
    const label = m[1]!;
    const operationId = label.startsWith('(')
      ? label
          .replace(/[()]/g, '')
          .split(/\s+/)
          .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
          .join('')
      : label;
    rows.push({ operationId, method: m[2]!.toLowerCase(), path: m[3]! });
  }
  return rows;
}

const specAvailable = fs.existsSync(specPath);
const index = specAvailable ? parseOperationIndex(fs.readFileSync(specPath, 'utf8')) : [];

test('the OpenAPI document is a valid OpenAPI 3.1.0 document', async () => {
  const doc = buildOpenApiDocument({ version: '9.9.9', serverUrl: 'https://svc.example.com' });
  assert.equal(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.deepEqual((doc.info as { version: string }).version, '9.9.9');
  assert.deepEqual(doc.servers, [{ url: 'https://svc.example.com', description: 'svc server' }]);
});

test('the validator used above does reject a broken document', async () => {
  const doc = structuredClone(buildOpenApiDocument()) as Record<string, any>;
  doc.paths['/api/v1/executions'].get.responses = 'none';
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, false);
});

test(
  'every row of the spec operation index is in the catalog and the document exactly once, and nothing else is',
  { skip: !specAvailable && `spec not found at ${specPath}` },
  () => {
    assert.ok(index.length >= 100, `parsed ${index.length} rows`);
    const doc = buildOpenApiDocument();
    const inDoc: IndexRow[] = [];
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const [method, op] of Object.entries(item)) inDoc.push({ operationId: op.operationId, method, path: p });
    }
    const key = (r: IndexRow) => `${r.operationId} ${r.method.toUpperCase()} ${r.path}`;
    const extensions = new Set(EXTENSION_OPERATION_IDS);
    for (const id of extensions) assert.ok(!index.some((r) => r.operationId === id), `${id} is in the spec index now: drop it from the extensions`);
    const expected = [...index, ...operations.filter((o) => extensions.has(o.operationId)).map((o) => ({ operationId: o.operationId, method: o.method, path: o.path }))];
    const catalogRows = operations.map((o) => ({ operationId: o.operationId, method: o.method, path: o.path }));
    for (const rows of [catalogRows, inDoc]) {
      assert.deepEqual(rows.map(key).sort(), expected.map(key).sort());
      const ids = rows.map((r) => r.operationId);
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    }
  },
);

test('no two operations share a method and path', () => {
  const seen = new Map<string, string>();
  for (const op of operations) {
    const k = `${op.method} ${op.path}`;
    assert.equal(seen.get(k), undefined, `${op.operationId} and ${seen.get(k)} share ${k}`);
    seen.set(k, op.operationId);
  }
});

test('every operation has an auth entry, and roles follow docs/operating/roles.md', () => {
  const byId = new Map(operations.map((o) => [o.operationId, o]));
  const label = (id: string) => {
    const a = byId.get(id)?.auth;
    assert.ok(a, `${id} exists`);
    return a.kind === 'role' ? a.minRole : a.kind;
  };
  for (const op of operations) {
    assert.ok(['public', 'role', 'run_token', 'webhook_key', 'signature'].includes(op.auth.kind), op.operationId);
    if (op.auth.kind === 'role') assert.ok((ROLES as readonly string[]).includes(op.auth.minRole), op.operationId);
    if (op.path.startsWith('/api/runner/v1/')) assert.equal(op.auth.kind, 'run_token', op.operationId);
  }
  assert.equal(label('login'), 'public');
  assert.equal(label('getFlowSchema'), 'public');
  assert.equal(label('webhookStart'), 'webhook_key');
  assert.equal(label('gitPushWebhook'), 'signature');
  for (const id of ['logout', 'getMe', 'updateMe', 'changePassword', 'revokeOtherSessions', 'listTokens', 'createToken', 'revokeToken']) {
    assert.equal(label(id), 'viewer', id);
  }
  for (const id of ['triggerFlow', 'cancelExecution', 'rerunExecution', 'restartExecution', 'requestTriage', 'runFile']) {
    assert.equal(label(id), 'operator', id);
  }
  for (const id of [
    'saveChanges',
    'uploadFile',
    'revertVersion',
    'updateFlow',
    'putNamespaceSecret',
    'deleteNamespaceVariable',
    'rotateWebhookKey',
    'pushNamespaceBranch',
    'validateFile',
  ]) {
    assert.equal(label(id), 'editor', id);
  }
  const adminReads = [
    'listUsers',
    'listAuditEvents',
    'exportAuditEvents',
    'listInstances',
    'getStorageStatus',
    'getAIUsage',
    'listOrganizations',
    'listOrganizationEmails',
    'listRoleBindings',
    'getOidcSettings',
    // Platform secrets are the admin's alone, names included.
    'listPlatformSecrets',
  ];
  for (const id of [
    ...adminReads,
    'createUser',
    'updateUser',
    'resetUserPassword',
    'putGlobalSecret',
    'putPlatformSecret',
    'deletePlatformSecret',
    'deleteGlobalVariable',
    'createSecretProvider',
    'createGitSource',
    'syncGitSource',
    'putAIProvider',
    'deleteAIProvider',
    'testAIProvider',
    'createNamespace',
    'deleteNamespace',
    'setNamespaceAllowedCallers',
  ]) {
    assert.equal(label(id), 'admin', id);
  }
  // The AI provider settings are a read like the others (no key in them); the status too.
  for (const id of ['getAIProvider', 'getAIStatus']) assert.equal(label(id), 'viewer', id);
  for (const op of operations) {
    if (op.method === 'get' && op.auth.kind === 'role' && !adminReads.includes(op.operationId)) {
      assert.equal(op.auth.minRole, 'viewer', `${op.operationId} is a read`);
    }
  }
});

test('each operation in the document carries x-min-role and a security requirement matching its auth', () => {
  const doc = buildOpenApiDocument();
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const op of operations) {
    const o = paths[op.path]![op.method]!;
    assert.equal(o['x-min-role'], op.auth.kind === 'role' ? op.auth.minRole : op.auth.kind, op.operationId);
    const sec = o.security as object[];
    if (op.auth.kind === 'role') assert.deepEqual(sec, [{ apiToken: [] }, { sessionCookie: [] }]);
    else if (op.auth.kind === 'run_token') assert.deepEqual(sec, [{ runToken: [] }]);
    else assert.deepEqual(sec, []);
    const responses = o.responses as Record<string, unknown>;
    assert.ok(responses['500'], `${op.operationId} documents 500`);
    if (op.auth.kind !== 'public') assert.ok(responses['401'], `${op.operationId} documents 401`);
  }
});

test('resource components keep the required lists of the spec', () => {
  const schemas = componentSchemas();
  const required = (name: string) => [...((schemas.get(name) as { required?: string[] }).required ?? [])].sort();
  assert.deepEqual(
    required('Execution'),
    [
      'id',
      'state',
      'reason',
      'error',
      'namespace',
      'snapshot_id',
      'inputs',
      'labels',
      'chain_depth',
      'children',
      'created_at',
      'created_by',
      'secret_keys_used',
      'trigger_type',
      'trigger_payload',
      'task_runs',
    ].sort(),
  );
  assert.deepEqual(required('TaskRun'), ['id', 'task_key', 'task_type', 'executor_type', 'pool', 'state', 'reason', 'error', 'attempt'].sort());
  assert.deepEqual(required('ExecutionChild'), ['created_at', 'id', 'state']);
  assert.deepEqual(required('NamespaceVersion'), ['author', 'created_at', 'file_count', 'id', 'manifest_hash', 'message']);
  assert.deepEqual(required('GitSourceMapping'), ['namespace', 'repo_path']);
  assert.deepEqual(
    required('RunnerSpec'),
    ['task_run_id', 'execution_id', 'flow_id', 'namespace', 'task_id', 'bundle_hash', 'workdir', 'attempt', 'command', 'env', 'limits', 'mask_values', 'timeout_seconds'].sort(),
  );
  assert.deepEqual(required('SaveChangesRequest'), ['changes', 'message']);
  assert.deepEqual(required('FileChange'), ['op', 'path']);
  assert.deepEqual(required('ErrorEnvelope'), ['error']);
});

test('nullable fields use 3.1 type arrays and components are referenced, not inlined', () => {
  const doc = buildOpenApiDocument();
  const schemas = (doc.components as { schemas: Record<string, any> }).schemas;
  assert.deepEqual(schemas.Execution.properties.flow_id.type, ['string', 'null']);
  assert.deepEqual(schemas.Execution.properties.task_runs.items, { $ref: '#/components/schemas/TaskRun' });
  assert.deepEqual(schemas.TaskRun.properties.exit_code.type, ['integer', 'null']);
  assert.deepEqual(schemas.GitSource.properties.last_sync_at.type, ['string', 'null']);
  const save = (doc.paths as any)['/api/v1/namespaces/{namespace}/changes'].post;
  assert.deepEqual(save.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/SaveChangesRequest' });
  assert.deepEqual(save.responses['201'].content['application/json'].schema, { $ref: '#/components/schemas/NamespaceVersion' });
  assert.deepEqual(save.responses['422'], { $ref: '#/components/responses/ValidationFailed' });
  assert.equal(schemas.SaveChangesRequest.properties.changes.maxItems, 1000);
  assert.equal(schemas.SaveChangesRequest.properties.message.maxLength, 500);
  assert.deepEqual(schemas.FileChange.properties.op.enum, ['put', 'delete', 'rename']);
});

test('stream, log download, artifact download and flow schema responses carry their media types', () => {
  const paths = buildOpenApiDocument().paths as Record<string, any>;
  const content = (p: string, m = 'get', s = '200') => Object.keys(paths[p][m].responses[s].content);
  assert.deepEqual(content('/api/v1/executions/{executionId}/events'), ['text/event-stream']);
  assert.deepEqual(content('/api/v1/executions/{executionId}/logs/stream'), ['text/event-stream']);
  assert.deepEqual(content('/api/v1/ai/conversations/{conversationId}/messages', 'post'), ['text/event-stream']);
  assert.deepEqual(content('/api/v1/executions/{executionId}/logs/download'), ['text/plain']);
  assert.deepEqual(content('/api/v1/audit/export'), ['application/x-ndjson']);
  assert.deepEqual(content('/api/v1/executions/{executionId}/artifacts/{artifactId}'), ['application/octet-stream']);
  assert.match(paths['/api/v1/schemas/flow.json'].get.responses['200'].description, /\/api\/v1\/schemas\/flow\.json/);
  const logsQuery = paths['/api/v1/executions/{executionId}/logs'].get.parameters.find((p: any) => p.name === 'limit');
  assert.deepEqual([logsQuery.schema.minimum, logsQuery.schema.maximum, logsQuery.schema.default], [1, 5000, 1000]);
  const range = paths['/api/v1/stats/dashboard'].get.parameters.find((p: any) => p.name === 'range');
  assert.deepEqual(range.schema.enum, ['24h', '7d', '30d']);
});

test('the runner protocol is published from the schemas its routes validate with', () => {
  const doc = buildOpenApiDocument();
  const paths = doc.paths as Record<string, any>;
  const schemas = (doc.components as { schemas: Record<string, any> }).schemas;
  const base = '/api/runner/v1/task-runs/{taskRunId}';
  const body = (p: string) => paths[base + p].post.requestBody.content['application/json'].schema;
  assert.deepEqual(paths[`${base}/spec`].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/RunnerSpec' });
  assert.deepEqual(paths[`${base}/heartbeat`].post.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/RunnerHeartbeatResponse' });
  assert.deepEqual(body('/logs'), { $ref: '#/components/schemas/RunnerLogsRequest' });
  assert.deepEqual(body('/complete'), { $ref: '#/components/schemas/RunnerCompleteRequest' });
  assert.deepEqual(schemas.RunnerLogsRequest.properties.lines.items, { $ref: '#/components/schemas/RunnerLogLine' });
  assert.deepEqual(schemas.RunnerLogLine.required, ['stream', 'text']);
  // A task that never ran reports exit_code null.
  assert.deepEqual(schemas.RunnerCompleteRequest.properties.exit_code.type, ['integer', 'null']);
  assert.deepEqual(schemas.RunnerCompleteRequest.properties.state.enum, ['SUCCESS', 'FAILED', 'TIMED_OUT', 'CANCELLED']);
  assert.deepEqual(schemas.RunnerCompleteRequest.properties.metrics.items, { $ref: '#/components/schemas/RunnerMetric' });
});

test('the dashboard, flow stats, flow metrics and upcoming schedules declare their responses, errors included', () => {
  const doc = buildOpenApiDocument();
  const paths = doc.paths as Record<string, any>;
  const schemas = (doc.components as { schemas: Record<string, any> }).schemas;
  const op = (p: string) => paths[p].get;
  const ok = (p: string) => op(p).responses['200'].content['application/json'].schema;
  const statuses = (p: string) => Object.keys(op(p).responses).sort();
  assert.deepEqual(ok('/api/v1/stats/dashboard'), { $ref: '#/components/schemas/Dashboard' });
  assert.deepEqual(statuses('/api/v1/stats/dashboard'), ['200', '401', '403', '404', '422', '500']);
  assert.equal(op('/api/v1/stats/dashboard')['x-min-role'], 'viewer');
  assert.deepEqual(ok('/api/v1/flows/{namespace}/{flowId}/stats'), { $ref: '#/components/schemas/FlowStats' });
  assert.deepEqual(ok('/api/v1/flows/{namespace}/{flowId}/metrics'), { $ref: '#/components/schemas/FlowMetrics' });
  assert.deepEqual(statuses('/api/v1/flows/{namespace}/{flowId}/metrics'), ['200', '401', '403', '404', '422', '500']);
  assert.equal(ok('/api/v1/schedules/upcoming').properties.items.items.$ref, '#/components/schemas/UpcomingSchedule');

  const d = schemas.Dashboard.properties;
  assert.deepEqual(d.kpis.required.sort(), ['cancelled', 'executions', 'failed', 'median_duration_ms', 'running', 'skipped', 'succeeded', 'success_rate', 'timed_out']);
  assert.deepEqual(d.buckets.items.required.sort(), ['cancelled', 'failed', 'skipped', 'start', 'success', 'timed_out'], 'p50_ms and p95_ms may be absent');
  assert.equal(d.running.maxItems, 20);
  assert.equal(d.recent_failures.maxItems, 10);
  assert.ok(schemas.UpcomingSchedule.required.includes('next_fire_at') && schemas.UpcomingSchedule.required.includes('timezone'));
});

test('the document describes file inputs: the flow schema takes `type: file` without a default, artifacts of kind input, triggerFlow names uploads', () => {
  const doc = buildOpenApiDocument() as unknown as { components: { schemas: Record<string, any> }; paths: Record<string, any> };
  const text = JSON.stringify(Object.entries(doc.components.schemas).filter(([k]) => k.startsWith('FlowFile')));
  assert.match(text, /"enum":\["string","int","number","boolean","select","json","file"\]/);
  assert.match(text, /a file input has no default/);
  assert.deepEqual(doc.components.schemas.Artifact.properties.kind.enum, ['artifact', 'output', 'input']);
  assert.ok(!doc.components.schemas.Artifact.required.includes('task_run_id'), 'a file input has no task run');
  assert.match(doc.paths['/api/v1/flows/{namespace}/{flowId}/executions'].post.description, /type: file.*createUpload/);
});
