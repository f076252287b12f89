// Where a queue's jobs live: a table of the package that owns the data (the
// email queue's `emails`, the alert outbox's `alert_deliveries`), named with
// its columns. The queue keeps no rows of its own, so each owner's rows stay
// where they are, with the columns only it knows (an email's addresses, a
// delivery's attempts log), and the statements below work on any table that
// has a key, a status, an attempt count, a due time and a claim.

/** A table and its columns, as the owner declares it. */
export interface JobTableSpec {
  /** The table, e.g. `emails`. */
  table: string;
  /** Key column. Default `id`. */
  key?: string;
  /**
   * The columns of a unique index that make two jobs the same job:
   * enqueueing is idempotent per these (an alert per rule, subject, event and
   * channel). Default: the key alone.
   */
  unique?: readonly string[];
  /** Status column. Default `status`. */
  status?: string;
  /**
   * The status values: waiting (`queued`), claimed (`running`), done
   * (`succeeded`), failed for good (`failed`), and any other statuses a job
   * may succeed with (`alsoSucceeded`: a git sync that found nothing new ends
   * `no_change`). Default `alsoSucceeded`: none.
   */
  states: { queued: string; running: string; succeeded: string; failed: string; alsoSucceeded?: readonly string[] };
  /** Attempts so far, counting the one claimed (integer). Default `attempts`. */
  attempts?: string;
  /** When a waiting job is due (timestamptz). Default `next_attempt_at`. */
  runAt?: string;
  /** Who holds the claim (text). Default `locked_by`. */
  lockedBy?: string;
  /** Until when the claim holds (timestamptz); a job whose claim lapsed is claimed again. Default `locked_until`. */
  lockedUntil?: string;
  /** The last failure's text (text, '' when none). Default `error`. */
  error?: string;
  /** Columns a claim returns besides the key and the attempts. */
  returning: readonly string[];
  /** NOTIFY channel that announces a new job (payload: its key): a wake-up hint, workers also poll. */
  channel: string;
}

/** A JobTableSpec with every column named and checked. */
export interface JobTable {
  table: string;
  key: string;
  unique: readonly string[];
  status: string;
  states: JobTableSpec['states'];
  attempts: string;
  runAt: string;
  lockedBy: string;
  lockedUntil: string;
  error: string;
  returning: readonly string[];
  channel: string;
}

/** Names go into SQL text (never values): only plain lower-case identifiers. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** `name` when it is a plain identifier; throws TypeError otherwise. */
export function checked(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new TypeError(`job table: ${what} must be a plain identifier, not ${JSON.stringify(name)}`);
  return name;
}

/** The table of `spec` with its defaults; throws TypeError on a name that is not a plain identifier. */
export function jobTable(spec: JobTableSpec): JobTable {
  return {
    table: checked(spec.table, 'table'),
    key: checked(spec.key ?? 'id', 'key'),
    unique: (spec.unique ?? [spec.key ?? 'id']).map((c) => checked(c, 'unique')),
    status: checked(spec.status ?? 'status', 'status'),
    states: spec.states,
    attempts: checked(spec.attempts ?? 'attempts', 'attempts'),
    runAt: checked(spec.runAt ?? 'next_attempt_at', 'runAt'),
    lockedBy: checked(spec.lockedBy ?? 'locked_by', 'lockedBy'),
    lockedUntil: checked(spec.lockedUntil ?? 'locked_until', 'lockedUntil'),
    error: checked(spec.error ?? 'error', 'error'),
    returning: spec.returning.map((c) => checked(c, 'returning')),
    channel: checked(spec.channel, 'channel'),
  };
}
