// A unified diff shown side by side: context on both sides, removals left,
// additions right, paired row by row within each change. The diff is read
// with `diff`'s parsePatch (the library the server writes it with), which
// counts each hunk's lines: a removed YAML `---` line is a removal, not a header.
import { parsePatch } from 'diff';

export interface DiffRow {
  left?: { n: number; text: string; kind: 'ctx' | 'del' };
  right?: { n: number; text: string; kind: 'ctx' | 'add' };
}

/** Rows of every hunk of every file in `unified`, each hunk opened by an empty row (drawn as ⋯). */
export function sideBySide(unified: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let dels: DiffRow['left'][] = [];
  let adds: DiffRow['right'][] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ left: dels[i], right: adds[i] });
    dels = [];
    adds = [];
  };
  for (const file of parsePatch(unified)) {
    for (const hunk of file.hunks) {
      flush();
      rows.push({});
      let ln = hunk.oldStart;
      let rn = hunk.newStart;
      for (const line of hunk.lines) {
        const text = line.slice(1);
        if (line.startsWith('-')) dels.push({ n: ln++, text, kind: 'del' });
        else if (line.startsWith('+')) adds.push({ n: rn++, text, kind: 'add' });
        else if (line.startsWith(' ')) {
          flush();
          rows.push({ left: { n: ln++, text, kind: 'ctx' }, right: { n: rn++, text, kind: 'ctx' } });
        }
        // `\ No newline at end of file` marks the line before it: nothing to draw.
      }
    }
  }
  flush();
  return rows;
}

export function DiffView({ diff, leftTitle, rightTitle }: { diff: string; leftTitle: string; rightTitle: string }) {
  const rows = sideBySide(diff);
  if (!rows.some((r) => r.left?.kind === 'del' || r.right?.kind === 'add')) return <p className="muted">No differences.</p>;
  return (
    <table className="diff" aria-label={`Differences between ${leftTitle} and ${rightTitle}`}>
      <thead>
        <tr>
          <th colSpan={2}>{leftTitle}</th>
          <th colSpan={2}>{rightTitle}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) =>
          !r.left && !r.right ? (
            <tr key={i} className="hunk">
              <td colSpan={4}>⋯</td>
            </tr>
          ) : (
            <tr key={i}>
              <td className="ln">{r.left?.n}</td>
              <td className={r.left ? `code ${r.left.kind}` : 'code empty'}>{r.left?.text}</td>
              <td className="ln">{r.right?.n}</td>
              <td className={r.right ? `code ${r.right.kind}` : 'code empty'}>{r.right?.text}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
