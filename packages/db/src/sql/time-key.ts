// The sort key of a keyset page over a timestamptz(6) column (newest first by
// (created_at, id), and the like). The next page's condition compares the
// column with the last row's value, so the cursor must carry that value
// exactly: a JS Date keeps milliseconds only, and a cursor cut to the
// millisecond skips every row after the cut within that millisecond, among
// them rows that share the last row's time exactly (one transaction's now()).
// So the page statement selects the time as text, to the microsecond, the
// cursor carries that text, and the condition casts it back
// (`(col, id) < ($n::timestamptz, $m)`), which leaves the column bare for its
// index. A cursor of milliseconds made before keeps working: it is a
// timestamptz too.

/**
 * SQL for `column` (a timestamptz) as RFC 3339 text in UTC with six fraction
 * digits (`2026-12-07T14:39:12.018345Z`): what a cursor keeps of a row's time.
 * Only in a select list: the WHERE and ORDER BY of a page take the column itself.
 */
export function exactTimeText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
