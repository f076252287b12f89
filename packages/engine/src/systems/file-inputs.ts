// File inputs (docs/using/files.md): the value of an input of `type: file` is
// the id of an upload of the execution's namespace (createUpload). As the
// execution is created, each becomes an artifact of kind `input` named
// `<input id>/<file name>`, pointing at the upload's object: listed and
// downloaded like any artifact, fetched by the runner for the tasks that read
// `{{ inputs.<id> }}`, kept (with its object) as long as the execution. A
// rerun, restart or replay names the same upload and points at the same object,
// whether the upload itself expired since or not.
import type { FlowDefinition } from '@svc/flow-schema';
import { newId, type Queryable } from '@svc/db';
import { InputsInvalidError, type EngineErrorDetail } from '../errors.js';
import { fileSources } from '../sql/uploads.js';
import { uploadKey } from './uploads.js';

/** An input artifact to insert with the execution. */
export interface InputFile {
  id: string;
  name: string;
  object_key: string;
  size: string;
  sha256: string;
}

/** The file inputs an execution is given: input id and upload id. */
export function fileInputsOf(def: FlowDefinition, inputs: Record<string, unknown>): { input: string; upload: string }[] {
  return (def.inputs ?? []).filter((d) => d.type === 'file' && typeof inputs[d.id] === 'string').map((d) => ({ input: d.id, upload: inputs[d.id] as string }));
}

/**
 * The input artifacts of a new execution of `namespace`; an upload that is
 * unknown in the namespace (another namespace's included: it is not told
 * apart) or expired unused is an InputsInvalidError on `<prefix>inputs.<id>`.
 */
export async function resolveFileInputs(db: Queryable, namespace: string, def: FlowDefinition, inputs: Record<string, unknown>, prefix = ''): Promise<InputFile[]> {
  const wanted = fileInputsOf(def, inputs);
  if (!wanted.length) return [];
  const rows = await fileSources(db, { namespace, keys: wanted.map((w) => uploadKey(namespace, w.upload)) });
  const byKey = new Map(rows.map((r) => [r.object_key, r]));
  const problems: EngineErrorDetail[] = [];
  const out: InputFile[] = [];
  for (const w of wanted) {
    const src = byKey.get(uploadKey(namespace, w.upload));
    if (!src) problems.push({ field: `${prefix}inputs.${w.input}`, message: `no upload ${JSON.stringify(w.upload)} in namespace ${namespace}` });
    else if (!src.live) problems.push({ field: `${prefix}inputs.${w.input}`, message: `upload ${JSON.stringify(w.upload)} has expired: upload the file again` });
    else out.push({ id: newId(), name: `${w.input}/${src.name}`, object_key: src.object_key, size: src.size, sha256: src.sha256 });
  }
  if (problems.length) throw new InputsInvalidError(problems);
  return out;
}

/** The file inputs of every item of a batch checked (each problem named `items[i].inputs.<id>`): one InputsInvalidError for all. */
export async function checkBatchFiles(db: Queryable, ns: readonly { namespace: string; definition: FlowDefinition; inputs: Record<string, unknown> }[]): Promise<void> {
  const problems: EngineErrorDetail[] = [];
  for (const [i, n] of ns.entries()) {
    try {
      await resolveFileInputs(db, n.namespace, n.definition, n.inputs, `items[${i}].`);
    } catch (e) {
      if (!(e instanceof InputsInvalidError)) throw e;
      problems.push(...e.problems);
    }
  }
  if (problems.length) throw new InputsInvalidError(problems);
}
