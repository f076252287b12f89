import fs from 'node:fs';

/** Version of this CLI build, from apps/cli/package.json (src/ and dist/ both sit one level below it). */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
