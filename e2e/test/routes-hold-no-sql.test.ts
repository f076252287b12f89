// Route handlers parse, call the package that owns the data and map the
// result (docs/architecture/overview.md): no file under the gateway's routes/
// runs hand-written SQL. Ordinary Prisma reads and writes of a route's own
// resource are allowed; a SQL statement belongs in its owner's src/sql/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const routes = path.join(root, 'apps/api-gateway/src/routes');

/** A query call, or a string that reads as a SQL statement. */
const SQL = [/\.query\s*[<(]/, /\$queryRaw|\$executeRaw/, /[`'"]\s*(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\s/i];

test('no gateway route file runs hand-written SQL', () => {
  const files = fs.readdirSync(routes).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  assert.ok(files.length > 20, `only ${files.length} route files found`);
  const found: string[] = [];
  for (const f of files) {
    const lines = fs.readFileSync(path.join(routes, f), 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (SQL.some((re) => re.test(l))) found.push(`routes/${f}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

test('the scan sees a query call and a statement in a string', () => {
  for (const l of ['await db.pool.query(`SELECT 1`)', 'const r = await pool.query<{ n: number }>(sql)', "const s = 'DELETE FROM flows WHERE id = $1'", 'await prisma.$queryRaw`x`'])
    assert.ok(
      SQL.some((re) => re.test(l)),
      l,
    );
  for (const l of ['const q = ctx.query as { limit: number }', '// select the rows from the engine', 'return engine.listExecutions(q)'])
    assert.ok(!SQL.some((re) => re.test(l)), l);
});
