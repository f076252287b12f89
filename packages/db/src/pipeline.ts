// Several statements in one round trip: the extended protocol's messages of
// each (Parse once per connection for a named statement, Bind, Describe,
// Execute) written together, then one Sync, so PostgreSQL runs them in order
// and answers them all at once. node-postgres sends one statement per round
// trip; this is a Submittable (the interface pg-cursor and pg-query-stream
// use) that reads the answers of several.
//
// The statements run in one implicit transaction unless one of them is BEGIN
// (then the transaction goes on after the Sync, as after any statement). The
// first error ends the pipeline: PostgreSQL skips what follows up to the
// Sync, and the call rejects with that error.
import { createRequire } from 'node:module';
import pg from 'pg';

/** The parts of pg's protocol connection a Submittable drives (pg/lib/connection.js). */
interface Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
  parse(q: { text: string; name?: string; types?: number[] }): void;
  bind(q: { statement?: string; values?: unknown[]; valueMapper?: (v: unknown) => unknown }): void;
  describe(q: { type: 'P' | 'S'; name?: string }): void;
  execute(q: { portal?: string; rows?: number }): void;
  sync(): void;
}

/** pg's row parser for one result (pg/lib/result.js). */
interface PgResult {
  command: string | null;
  rowCount: number | null;
  rows: Record<string, unknown>[];
  fields: unknown[];
  addFields(fields: unknown[]): void;
  parseRow(values: unknown[]): Record<string, unknown>;
  addRow(row: Record<string, unknown>): void;
  addCommandComplete(msg: unknown): void;
}
type ResultCtor = new (rowMode: undefined, types: unknown) => PgResult;
const Result = (pg as unknown as { Result: ResultCtor }).Result;
// pg's own mapping of JavaScript values to parameters (dates, arrays, JSON, buffers).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };

class Pipeline {
  private readonly results: PgResult[];
  /** Answers read so far: the statement being answered is this one. */
  private done = 0;
  private error: Error | null = null;

  constructor(
    /** The statements, in order (public: a test's fault seam reads their texts). */
    readonly statements: readonly pg.QueryConfig[],
    types: unknown,
    private readonly resolve: (r: pg.QueryResult[]) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.results = statements.map(() => new Result(undefined, types));
  }

  // pg's client reads `name` and `text` on ParseComplete to record a parsed statement: the one being answered.
  get name(): string | undefined {
    return this.statements[this.done]?.name;
  }
  get text(): string | undefined {
    return this.statements[this.done]?.text;
  }

  submit(connection: Connection): Error | null {
    connection.stream.cork?.();
    try {
      for (const s of this.statements) {
        if (!s.name || (connection.parsedStatements[s.name] === undefined && connection.submittedNamedStatements[s.name] === undefined)) {
          connection.parse({ text: s.text, name: s.name, types: s.types as number[] | undefined });
          if (s.name) connection.submittedNamedStatements[s.name] = s.text;
        }
        connection.bind({ statement: s.name, values: s.values, valueMapper: prepareValue });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.results[this.done]?.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const r = this.results[this.done];
    if (!r || this.error) return;
    try {
      r.addRow(r.parseRow(msg.fields));
    } catch (err) {
      this.error = err as Error;
    }
  }

  handleCommandComplete(msg: unknown): void {
    this.results[this.done]?.addCommandComplete(msg);
    this.done++;
  }

  handleEmptyQuery(): void {
    this.done++;
  }

  handleError(err: Error, connection: Connection): void {
    // The statements after the failed one were skipped: those parsed here are not prepared.
    for (const s of this.statements.slice(this.done + 1)) {
      if (s.name && connection.parsedStatements[s.name] === undefined) delete connection.submittedNamedStatements[s.name];
    }
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (this.error) return this.reject(this.error);
    this.resolve(this.results as unknown as pg.QueryResult[]);
  }

  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/**
 * Runs `statements` in order in one round trip on `client`, and returns
 * their results (rows parsed with the client's type parsers).
 */
export function pipeline(client: pg.ClientBase, statements: readonly pg.QueryConfig[]): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    // pg answers a Submittable through its handlers and returns it; a wrapper of the client's query may return a promise instead.
    const ret: unknown = client.query(new Pipeline(statements, client, resolve, reject) as unknown as pg.QueryConfig);
    if (ret && typeof (ret as PromiseLike<unknown>).then === 'function') (ret as PromiseLike<unknown>).then(undefined, reject);
  });
}
