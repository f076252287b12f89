import * as yaml from 'js-yaml';
import { assertNever } from '@svc/assert';
import type { FlowError } from './flow-error.js';
import { escapePointerToken, SourcePositions, type NodeOffsets } from './positions.js';

/** Options of {@link parseFlowYaml}. */
export interface ParseFlowOptions {
  /** Largest accepted source, in UTF-8 bytes. Default: 1 MiB (1048576). */
  maxBytes?: number;
  /**
   * Largest number of YAML nodes (scalars, sequences, mappings, keys included)
   * the document may hold once every alias is expanded. This is what stops a
   * "billion laughs" file: its few hundred bytes expand to ~10^9 nodes, and
   * the count is taken on the event stream before any value is built.
   * Default: 100000 (a 200-task flow is a few thousand nodes).
   */
  maxNodes?: number;
  /** Deepest nesting of sequences and mappings. Default: 64. */
  maxDepth?: number;
  /**
   * Largest total size of the scalars, in source bytes, once every alias is
   * expanded. The node bound alone lets a long string aliased thousands of
   * times through (a 500 KB scalar used 50,000 times is 50,000 nodes but
   * 25 GB once the definition is serialized for storage). Default: 4 times
   * `maxBytes` (sharing a retry policy or an env block by alias costs far less).
   */
  maxExpandedBytes?: number;
}

export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_NODES = 100_000;
export const DEFAULT_MAX_DEPTH = 64;

/** Result of {@link parseFlowYaml}: the loaded value, or the errors that stopped it. */
export interface ParseFlowResult {
  /** The document as plain JSON-like data; absent when `errors` is not empty. */
  value?: unknown;
  errors: FlowError[];
}

/** {@link ParseFlowResult} plus the source positions of every node (used by validation). */
export interface ParsedFlowSource extends ParseFlowResult {
  positions: SourcePositions;
}

/**
 * Loads a flow file safely. The YAML 1.2 core schema is used with no custom
 * or language tags (`!!js/function`, `!!binary` and the like are errors), no
 * merge keys, duplicate keys rejected, and the size and alias-expansion
 * bounds of {@link ParseFlowOptions}. Aliases are allowed (they are handy for
 * sharing a retry policy) but a recursive alias is an error, since the loaded
 * value must be a tree.
 */
export function parseFlowYaml(source: string, opts: ParseFlowOptions = {}): ParseFlowResult {
  const { value, errors } = parseFlowSource(source, opts);
  return value === undefined ? { errors } : { value, errors };
}

/** Like {@link parseFlowYaml}, also returning where each node sits in the source. */
export function parseFlowSource(source: string, opts: ParseFlowOptions = {}): ParsedFlowSource {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const emptyPositions = new SourcePositions('', new Map());
  // source.length <= UTF-8 byte length, so this cheap test never rejects a file that fits.
  if (source.length > maxBytes || Buffer.byteLength(source, 'utf8') > maxBytes) {
    const bytes = Buffer.byteLength(source, 'utf8');
    return {
      errors: [rootError(`the flow file is ${bytes} bytes, more than the limit of ${maxBytes} bytes`)],
      positions: emptyPositions,
    };
  }

  let events: yaml.Event[];
  try {
    events = yaml.parseEvents(source, { maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH });
  } catch (err) {
    return { errors: [yamlError(err)], positions: emptyPositions };
  }

  let indexed: IndexResult;
  try {
    indexed = indexEvents(source, events, opts.maxNodes ?? DEFAULT_MAX_NODES, opts.maxExpandedBytes ?? 4 * maxBytes);
  } catch (err) {
    if (err instanceof SourceBoundError) {
      const positions = new SourcePositions(source, new Map());
      return { errors: [{ ...rootError(err.message), ...positions.lineColumn(err.offset) }], positions };
    }
    throw err;
  }
  const positions = new SourcePositions(source, indexed.nodes);
  if (indexed.documents === 0) return { errors: [rootError('the flow file is empty')], positions };
  if (indexed.documents > 1) {
    return {
      errors: [rootError(`a flow file holds one YAML document, found ${indexed.documents}`)],
      positions,
    };
  }

  let documents: unknown[];
  try {
    documents = yaml.constructFromEvents(events, { source, schema: yaml.CORE_SCHEMA });
  } catch (err) {
    return { errors: [yamlError(err)], positions };
  }
  const value = documents[0];
  if (value === null || value === undefined) {
    return { errors: [rootError('the flow file is empty')], positions };
  }
  return { value, errors: [], positions };
}

/** Raised while indexing when the document breaks a bound; `offset` is where it was found. */
class SourceBoundError extends Error {
  override readonly name = 'SourceBoundError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

interface IndexResult {
  documents: number;
  nodes: Map<string, NodeOffsets>;
}

interface Frame {
  kind: 'document' | 'sequence' | 'mapping';
  /** Pointer of this collection, or null when it is a mapping key (not addressable). */
  pointer: string | null;
  /** Children seen so far; in a mapping, even children are keys and odd ones values. */
  children: number;
  /** Decoded text of the current key, or null when the key is not a scalar. */
  key: string | null;
  keyOffset: number;
  /** Nodes in this subtree with aliases expanded. */
  size: number;
  /** Source bytes of the scalars in this subtree with aliases expanded. */
  bytes: number;
  /** Source offset where the collection starts (for error positions). */
  start: number;
  anchor: string | null;
}

/**
 * One pass over the event stream: records the source offset of every
 * addressable node under its JSON pointer, counts documents, and computes the
 * alias-expanded node count of each subtree (an alias weighs as much as the
 * node it names). Nothing is expanded, so a bomb costs time linear in its
 * source, and the first subtree that passes `maxNodes` stops the walk.
 */
function indexEvents(source: string, events: readonly yaml.Event[], maxNodes: number, maxBytes: number): IndexResult {
  const nodes = new Map<string, NodeOffsets>();
  const anchorSizes = new Map<string, number>();
  const anchorBytes = new Map<string, number>();
  const openAnchors = new Set<string>();
  const stack: Frame[] = [];
  let documents = 0;

  const grow = (frame: Frame, by: number, bytes: number, offset: number): void => {
    frame.size += by;
    frame.bytes += bytes;
    if (frame.size > maxNodes) {
      throw new SourceBoundError(`the flow file expands to more than ${maxNodes} YAML nodes (aliases counted at full size); ` + 'this looks like an alias bomb', offset);
    }
    if (frame.bytes > maxBytes) {
      throw new SourceBoundError(`the flow file expands to more than ${maxBytes} bytes of values (aliases counted at full size); ` + 'this looks like an alias bomb', offset);
    }
  };

  /** Places a new node under the top frame; returns its pointer, or null for keys and their contents. */
  const place = (offset: number, keyText: string | null, collection = false): string | null => {
    const parent = stack[stack.length - 1];
    if (parent === undefined) throw new Error('flow-schema: YAML node outside a document');
    const index = parent.children++;
    let pointer: string | null;
    let keyOffset: number | undefined;
    if (parent.kind === 'document') {
      pointer = '';
    } else if (parent.kind === 'sequence') {
      pointer = parent.pointer === null ? null : `${parent.pointer}/${index}`;
    } else if (index % 2 === 0) {
      parent.key = keyText;
      parent.keyOffset = offset;
      return null;
    } else {
      pointer = parent.pointer === null || parent.key === null ? null : `${parent.pointer}/${escapePointerToken(parent.key)}`;
      keyOffset = parent.keyOffset;
    }
    if (pointer !== null) {
      nodes.set(pointer, {
        value: offset,
        ...(keyOffset === undefined ? {} : { key: keyOffset }),
        ...(collection ? { collection } : {}),
      });
    }
    return pointer;
  };

  const anchorName = (e: { anchorStart: number; anchorEnd: number }): string | null => (e.anchorStart >= 0 ? source.slice(e.anchorStart, e.anchorEnd) : null);

  for (const e of events) {
    switch (e.type) {
      case yaml.EVENT_ID.DOCUMENT:
        documents++;
        stack.push({ kind: 'document', pointer: null, children: 0, key: null, keyOffset: -1, size: 0, bytes: 0, start: 0, anchor: null });
        break;
      case yaml.EVENT_ID.SEQUENCE:
      case yaml.EVENT_ID.MAPPING: {
        const pointer = place(e.start, null, true);
        const anchor = anchorName(e);
        if (anchor !== null) openAnchors.add(anchor);
        stack.push({
          kind: e.type === yaml.EVENT_ID.SEQUENCE ? 'sequence' : 'mapping',
          pointer,
          children: 0,
          key: null,
          keyOffset: -1,
          size: 1,
          bytes: 0,
          start: e.start,
          anchor,
        });
        break;
      }
      case yaml.EVENT_ID.SCALAR: {
        // Point at the opening quote, which is where the value visibly starts.
        const quoted = e.style === yaml.SCALAR_STYLE.SINGLE_QUOTED || e.style === yaml.SCALAR_STYLE.DOUBLE_QUOTED;
        const offset = e.valueStart >= 0 && quoted ? e.valueStart - 1 : e.valueStart;
        const parent = stack[stack.length - 1];
        const isKey = parent?.kind === 'mapping' && parent.children % 2 === 0;
        place(offset, isKey ? yaml.getScalarValue(source, e) : null);
        const anchor = anchorName(e);
        const bytes = Math.max(0, e.valueEnd - e.valueStart);
        if (anchor !== null) {
          anchorSizes.set(anchor, 1);
          anchorBytes.set(anchor, bytes);
        }
        if (parent !== undefined) grow(parent, 1, bytes, offset);
        break;
      }
      case yaml.EVENT_ID.ALIAS: {
        const name = source.slice(e.anchorStart, e.anchorEnd);
        const offset = e.anchorStart - 1; // the `*`
        if (openAnchors.has(name)) {
          throw new SourceBoundError(`recursive alias *${name}: a flow file must be a tree`, offset);
        }
        place(offset, null);
        const parent = stack[stack.length - 1];
        // An unknown anchor weighs 1 here; constructFromEvents reports it as an error.
        if (parent !== undefined) grow(parent, anchorSizes.get(name) ?? 1, anchorBytes.get(name) ?? 0, offset);
        break;
      }
      case yaml.EVENT_ID.POP: {
        const done = stack.pop();
        if (done === undefined || done.kind === 'document') break;
        if (done.anchor !== null) {
          openAnchors.delete(done.anchor);
          anchorSizes.set(done.anchor, done.size);
          anchorBytes.set(done.anchor, done.bytes);
        }
        const parent = stack[stack.length - 1];
        if (parent !== undefined) grow(parent, done.size, done.bytes, done.start);
        break;
      }
      default:
        assertNever(e, 'YAML event');
    }
  }
  return { documents, nodes };
}

function rootError(message: string): FlowError {
  return { pointer: '', field: '', message };
}

function yamlError(err: unknown): FlowError {
  if (err instanceof yaml.YAMLException) {
    const out: FlowError = { pointer: '', field: '', message: `YAML syntax error: ${err.reason}` };
    if (err.mark) {
      out.line = err.mark.line + 1;
      out.column = err.mark.column + 1;
    }
    return out;
  }
  if (err instanceof RangeError) {
    // Deep nesting that slipped past maxDepth can still exhaust the stack; report it, don't crash.
    return { pointer: '', field: '', message: `the flow file could not be read: ${err.message}` };
  }
  throw err;
}
