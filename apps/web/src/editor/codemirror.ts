// CodeMirror set-up for namespace files: the language by file name, for flow
// files the served JSON Schema (completion and hover docs), completion inside
// `{{ … }}` (template-completion.ts) and inline errors
// from the service's validateFile, with its line and column.
import { basicSetup } from 'codemirror';
import { EditorView, hoverTooltip, keymap } from '@codemirror/view';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { StreamLanguage } from '@codemirror/language';
import { linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { indentWithTab } from '@codemirror/commands';
import { yaml, yamlLanguage } from '@codemirror/lang-yaml';
import { python } from '@codemirror/lang-python';
import { javascript } from '@codemirror/lang-javascript';
import { shell } from '@codemirror/legacy-modes/mode/shell';
import { oneDark } from '@codemirror/theme-one-dark';
import { JSONHover, stateExtensions, updateSchema, type FoundCursorData } from 'codemirror-json-schema';
import { yamlCompletion, yamlSchemaHover } from 'codemirror-json-schema/yaml';
import type { JSONSchema7 } from 'json-schema';
import { client } from '../api';
import type { ValidationProblem } from '../types';
import { schemaAt } from './schema-at';
import { templateCompletionSource } from './template-completion';

export const isFlowFile = (p: string) => p.endsWith('.flow.yaml');

let schemaPromise: Promise<JSONSchema7> | undefined;
/** The flow schema as the gateway serves it, fetched once per page load. */
export function flowSchema(): Promise<JSONSchema7> {
  schemaPromise ??= client.get('/api/v1/schemas/flow.json');
  return schemaPromise;
}

/** Offset of a 1-based line and column in the document, clamped to it. */
function offsetOf(state: EditorState, line?: number, column?: number): number {
  if (!line) return 0;
  const l = state.doc.line(Math.min(Math.max(line, 1), state.doc.lines));
  return Math.min(l.from + Math.max((column ?? 1) - 1, 0), l.to);
}

/** Diagnostics of the service's validateFile for the editor's text. */
export function serverLinter(ns: () => string, path: () => string, onProblems: (p: ValidationProblem[]) => void): Extension {
  return linter(
    async (view) => {
      const content = view.state.doc.toString();
      let problems: ValidationProblem[];
      try {
        const r = await client.post('/api/v1/namespaces/{namespace}/validate', { params: { path: { namespace: ns() } }, body: { path: path(), content } });
        problems = r.errors;
      } catch {
        return []; // validation is advisory here; saving reports the same problems
      }
      onProblems(problems);
      return problems.map((p): Diagnostic => {
        const from = offsetOf(view.state, p.line, p.column);
        const line = view.state.doc.lineAt(from);
        return {
          from,
          to: Math.max(from + 1, line.to) > line.to ? line.to : Math.max(from + 1, line.to),
          severity: 'error',
          message: p.field ? `${p.field}: ${p.message}` : p.message,
          source: 'svc',
        };
      });
    },
    { delay: 400 },
  );
}

/**
 * Hover texts for the key at the pointer: the property's schema as the flow
 * schema itself gives it (schemaAt), so a task's keys show their docs; the
 * library's own pick when the schema has no description there.
 */
function flowHoverTexts(schema: JSONSchema7 | undefined) {
  const base = JSONHover.prototype.getHoverTexts.bind(JSONHover.prototype);
  return (data: FoundCursorData, ...rest: unknown[]) => {
    const own = schema ? schemaAt(schema as Record<string, unknown>, data.pointer) : undefined;
    const pick = own?.description ? { ...data, schema: own } : data;
    // The library calls this with its schema draft as a second argument (for oneOf/anyOf names).
    return (base as (d: FoundCursorData, ...r: unknown[]) => ReturnType<typeof base>)(pick, ...rest);
  };
}

function languageFor(path: string, schema?: JSONSchema7): Extension[] {
  if (isFlowFile(path))
    return [
      yaml(),
      yamlLanguage.data.of({ autocomplete: yamlCompletion() }),
      yamlLanguage.data.of({ autocomplete: templateCompletionSource }),
      hoverTooltip(yamlSchemaHover({ getHoverTexts: flowHoverTexts(schema) })),
      stateExtensions(schema),
    ];
  if (/\.ya?ml$/.test(path)) return [yaml()];
  if (path.endsWith('.py')) return [python()];
  if (path.endsWith('.sh')) return [StreamLanguage.define(shell)];
  if (/\.(ts|tsx|mts)$/.test(path)) return [javascript({ typescript: true })];
  if (/\.(js|mjs|cjs|jsx)$/.test(path)) return [javascript()];
  return [];
}

export interface EditorHandle {
  view: EditorView;
  /** Replaces the document and the language for another file. */
  load(path: string, text: string, readOnly: boolean): void;
  /** Makes the open document editable or not, keeping its text (a git-mapped namespace's edit for a branch). */
  setReadOnly(readOnly: boolean): void;
  destroy(): void;
}

export async function createEditor(
  parent: HTMLElement,
  opts: { ns: () => string; path: () => string; onChange: (text: string) => void; onProblems: (p: ValidationProblem[]) => void; onSave: () => void },
): Promise<EditorHandle> {
  const schema = await flowSchema().catch(() => undefined);
  const lang = new Compartment();
  const ro = new Compartment();
  const theme = new Compartment();
  const isDark = () => document.documentElement.dataset.theme === 'dark';
  const base: Extension[] = [
    basicSetup,
    keymap.of([indentWithTab, { key: 'Mod-s', preventDefault: true, run: () => (opts.onSave(), true) }]),
    lintGutter(),
    serverLinter(opts.ns, opts.path, opts.onProblems),
    EditorView.updateListener.of((u) => u.docChanged && opts.onChange(u.state.doc.toString())),
    EditorView.contentAttributes.of({ 'aria-label': 'File content' }),
    // The gateway's CSP lets inline <style> elements in only with the page's nonce; CodeMirror's theme is one.
    EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: '', extensions: [...base, lang.of([]), ro.of([]), theme.of(isDark() ? oneDark : [])] }) });
  // The header's theme switch sets data-theme on <html>: follow it.
  const watch = new MutationObserver(() => view.dispatch({ effects: theme.reconfigure(isDark() ? oneDark : []) }));
  watch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return {
    view,
    load(path, text, readOnly) {
      view.setState(
        EditorState.create({ doc: text, extensions: [...base, lang.of(languageFor(path, schema)), ro.of(EditorState.readOnly.of(readOnly)), theme.of(isDark() ? oneDark : [])] }),
      );
      if (schema && isFlowFile(path)) updateSchema(view, schema);
    },
    setReadOnly(readOnly) {
      view.dispatch({ effects: ro.reconfigure(EditorState.readOnly.of(readOnly)) });
    },
    destroy: () => {
      watch.disconnect();
      view.destroy();
    },
  };
}
