import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument, DEFAULT_SERVER_URL } from '@svc/api-spec';
import { UsageError, type Command } from '../io.js';
import { cliVersion } from '../version.js';

const usage = `Usage: svc openapi [--output FILE] [--server-url URL]

Prints the OpenAPI 3.1.0 document of the svc API as JSON. Needs no database
and no server: the document is built from the operation catalog.

Options:
  -o, --output FILE     Write the document to FILE instead of standard output
      --server-url URL  URL listed in "servers" (default ${DEFAULT_SERVER_URL})
  -h, --help            Show this help
`;

export const openapiCommand: Command = {
  summary: 'Print the OpenAPI document (no database or server needed)',
  usage,
  async run(args, io) {
    let values: { output?: string; 'server-url'?: string; help?: boolean };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          output: { type: 'string', short: 'o' },
          'server-url': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        allowPositionals: false,
        strict: true,
      }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (values.help) {
      io.stdout.write(usage);
      return 0;
    }
    const doc = buildOpenApiDocument({
      version: cliVersion(),
      ...(values['server-url'] !== undefined ? { serverUrl: values['server-url'] } : {}),
    });
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (values.output === undefined) {
      io.stdout.write(text);
      return 0;
    }
    const file = path.resolve(io.cwd, values.output);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    io.stderr.write(`wrote ${file}\n`);
    return 0;
  },
};
