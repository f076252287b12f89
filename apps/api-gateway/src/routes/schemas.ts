// Flow file validation: the served JSON Schema (public) and validateFile.
import path from 'node:path/posix';
import type pg from 'pg';
import { editorFlowSchema, fieldPath, validateFlow } from '@svc/flow-schema';
import { reachProblems } from '@svc/namespaces';
import { validationFailed, type OperationHandlers } from '@svc/http';
import type { Answer } from '@svc/api-spec';

/** Files whose name ends so are flow files. */
export const FLOW_FILE_SUFFIX = '.flow.yaml';

/** A namespace-relative path: no absolute paths, `..`, backslashes or NUL. */
function checkRelativePath(p: string): string | null {
  if (p.includes('\0')) return 'must not contain a NUL byte';
  if (p.includes('\\')) return 'must use / as the separator, not \\';
  if (p.startsWith('/')) return 'must be relative to the namespace root';
  if (p.split('/').some((s) => s === '..' || s === '.' || s === '')) return 'must not contain empty, "." or ".." segments';
  return null;
}

/** Where validateFile looks up what a flow may reach outside its namespace (docs/operating/roles.md); without it only the file itself is checked. */
export interface SchemaRouteDeps {
  pool: Pick<pg.Pool, 'query'>;
}

export function schemaHandlers(deps?: SchemaRouteDeps) {
  return {
    // The editor copy: also flags unknown keys in draft-07 editors (VS Code's YAML extension).
    // A JSON Schema document, which the generated types read as the flow file it describes: returned as it is (not
    // written to the response here: the AI tools and MCP call this handler for its value).
    getFlowSchema: () => editorFlowSchema as unknown as Answer<'getFlowSchema'>,

    validateFile: async ({ body, params }) => {
      const { path: filePath, content } = body;
      const problem = checkRelativePath(filePath);
      if (problem) throw validationFailed([{ field: 'path', message: problem }]);
      if (!path.basename(filePath).endsWith(FLOW_FILE_SUFFIX)) return { valid: true, kind: 'unchecked', errors: [] } satisfies Answer<'validateFile'>;
      const { flow, errors } = validateFlow(content);
      // What a save would refuse besides: a subflow, flow trigger or secret provider the namespace may not reach.
      if (flow && deps && typeof params.namespace === 'string') {
        for (const p of await reachProblems(deps.pool, params.namespace, [{ path: filePath, definition: flow }])) {
          const pointer = p.field.slice(filePath.length + 1);
          errors.push({ field: fieldPath(pointer, flow), pointer, message: p.message });
        }
      }
      return { valid: errors.length === 0, kind: 'flow', errors } satisfies Answer<'validateFile'>;
    },
  } satisfies OperationHandlers;
}
