// runFile (docs/using/triggers.md, "runFile"): a namespace file run as an
// execution with flow_id null and trigger_type `file`. The execution carries
// a one-task definition synthesized here, `{id: run-file, tasks: [{id: run,
// type: script, file, args, env}]}` (the runtime follows the extension, as for
// script tasks), pinned to the namespace's current snapshot. Arguments and
// environment values are the caller's literal text: any `{{` in them is
// escaped, so they are never read as templates (no secret() through runFile).
// Environment names are an allowlist (run-file-env.ts: a pattern minus a
// reserved set of loader, interpreter, proxy, TLS, git and package-index
// variables): an operator may run files, not write code or redirect it.
import type { Db } from '@svc/db';
import type { Engine } from '@svc/engine';
import type { FlowDefinition } from '@svc/flow-schema';
import { notFound, reply, validationFailed, type ErrorDetail, type OperationHandlers } from '@svc/http';
import { NamespaceNotFoundError, normalizePath, resolveVersion, snapshotHasFile, type ResolvedVersion } from '@svc/namespaces';
import type { AuthPrincipal } from '../identity/principal.js';
import { startAudit } from './audit.js';
import { refusedEnvName } from './run-file-env.js';

export interface RunFileDeps {
  db: Db;
  engine: Engine;
}

/** A template whose rendering is exactly `text` (`{{` written as `{{ '{{' }}`). */
export const literalTemplate = (text: string): string => text.replaceAll('{{', "{{ '{{' }}");

export function runFileHandlers(deps: RunFileDeps) {
  const { db } = deps;
  return {
    async runFile(ctx) {
      const { params, principal } = ctx;
      const b = ctx.body;
      const problems: ErrorDetail[] = [];
      const p = normalizePath(b.path);
      if (!p.ok) problems.push({ field: 'path', message: p.message });
      for (const k of Object.keys(b.env ?? {})) {
        const refused = refusedEnvName(k);
        if (refused) problems.push({ field: `env.${k}`, message: refused });
      }
      if (problems.length || !p.ok) throw validationFailed(problems);
      let ns: ResolvedVersion;
      try {
        ns = await resolveVersion(db.pool, params.namespace);
      } catch (err) {
        if (err instanceof NamespaceNotFoundError) throw notFound(`no namespace ${params.namespace}`, 'namespace_not_found');
        throw err;
      }
      const file = ns.snapshotId ? await snapshotHasFile(db.pool, ns.snapshotId, p.path) : false;
      if (!file) throw notFound(`no file ${p.path} in namespace ${params.namespace}`, 'file_not_found');
      const task = {
        id: 'run',
        type: 'script' as const,
        file: p.path,
        ...(b.args?.length ? { args: b.args.map(literalTemplate) } : {}),
        ...(b.env && Object.keys(b.env).length ? { env: Object.fromEntries(Object.entries(b.env).map(([k, v]) => [k, literalTemplate(v)])) } : {}),
      };
      const definition: FlowDefinition = { id: 'run-file', tasks: [task] };
      const created = await deps.engine.executions.start({
        namespace: params.namespace,
        flowId: null,
        flowRevisionId: null,
        definition,
        snapshotId: ns.snapshotId!,
        snapshotVersion: ns.version,
        gitSha: ns.gitSha,
        inputs: {},
        labels: {},
        triggerType: 'file',
        triggerPayload: { path: p.path, args: b.args ?? [], env: b.env ?? {} },
        createdBy: principal.email,
        // The environment's names and the number of arguments only: their values may be secrets.
        audit: startAudit(ctx, 'file.run', {
          namespace: params.namespace,
          path: p.path,
          trigger_type: 'file',
          arg_count: b.args?.length ?? 0,
          env_keys: Object.keys(b.env ?? {}).sort(),
        }),
      });
      return reply(201, created.execution ?? (await deps.engine.executions.load([created.id]))[0]);
    },
  } satisfies OperationHandlers<AuthPrincipal>;
}
