// The built package carries its migrations (dist/migrations), so a deployed
// service applies exactly the migrations it was built with.
import fs from 'node:fs';
import path from 'node:path';
const here = path.dirname(new URL(import.meta.url).pathname);
const src = path.resolve(here, '../../../prisma/migrations');
const dst = path.resolve(here, '../dist/migrations');
fs.rmSync(dst, { recursive: true, force: true });
fs.cpSync(src, dst, { recursive: true });
