// The list table and the one-line form of the Settings and Alerts screens,
// written once: a table named for screen readers, with its column headers, a
// row per item (the opened one marked), an optional actions column (its
// header read as "Actions"), an empty-state row, and "Loading…" until the
// rows come; and a form that runs an action on submit, its submit button
// disabled while the action runs.
import type { ReactNode } from 'react';
import { Button, Loading } from '../ui';

export interface Column<T> {
  /** The column header as shown and read. */
  header: ReactNode;
  /** The cell of one row. */
  cell: (row: T) => ReactNode;
  /** A class for the header and every cell of the column (e.g. `num`). */
  className?: string;
  /** A class for the cells only, not the header (e.g. `git-error`). */
  cellClassName?: string;
  /** A cell's tooltip (e.g. the setting its value comes from). */
  cellTitle?: (row: T) => string;
  /** The cells are row headers (`<th scope="row">`), naming their row. */
  rowHeader?: boolean;
}

export interface DataTableProps<T> {
  /** The table's accessible name (aria-label); tests and screen readers find it by that. */
  label?: string;
  columns: Column<T>[];
  /** The rows; undefined while they load. */
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  /** Said in a row of its own when there are no rows; no such row when not given. */
  empty?: ReactNode;
  /** The buttons of a row, in a last column whose header screen readers read as "Actions". */
  actions?: (row: T) => ReactNode;
  /** Marks a row as the one opened (class `selected`). */
  selected?: (row: T) => boolean;
  /** What is loading, for the "Loading …" line shown until `rows` come. */
  loading?: string;
  /** The load's error: when set, no "Loading" line (the screen shows the error in its ErrorBox). */
  error?: unknown;
  /** A row's tooltip (e.g. its ID). */
  rowTitle?: (row: T) => string;
  /** Rows after the items (e.g. a total), as `<tr>` elements. */
  after?: ReactNode;
}

export function DataTable<T>({ label, columns, rows, rowKey, empty, actions, selected, loading, error, rowTitle, after }: DataTableProps<T>) {
  if (!rows) return error ? null : <Loading what={loading} />;
  const width = columns.length + (actions ? 1 : 0);
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} className={c.className}>
              {c.header}
            </th>
          ))}
          {actions && (
            <th>
              <span className="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)} className={selected?.(r) ? 'selected' : undefined} title={rowTitle?.(r)}>
            {columns.map((c, i) => {
              const className = [c.className, c.cellClassName].filter(Boolean).join(' ') || undefined;
              return c.rowHeader ? (
                <th key={i} scope="row" className={className} title={c.cellTitle?.(r)}>
                  {c.cell(r)}
                </th>
              ) : (
                <td key={i} className={className} title={c.cellTitle?.(r)}>
                  {c.cell(r)}
                </td>
              );
            })}
            {actions && <td className="row">{actions(r)}</td>}
          </tr>
        ))}
        {after}
        {!rows.length && empty !== undefined && (
          <tr>
            <td colSpan={width} className="muted">
              {empty}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/**
 * A form whose submit runs `action` (a `useAction`), its submit button saying
 * `submit` and disabled while the action runs; `children` are its fields.
 */
export function ActionForm({
  label,
  action,
  submit,
  children,
  className = 'row wrap',
}: {
  label?: string;
  action: { run: () => Promise<unknown>; busy: boolean };
  submit: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <form
      className={className}
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      {children}
      <Button type="submit" disabled={action.busy}>
        {submit}
      </Button>
    </form>
  );
}
