// Prompts on the terminal (@inquirer/prompts), written to standard error so
// standard output stays clean for data; and reading a value from standard input.
import { input, password } from '@inquirer/prompts';
import type { CommandIo } from '../io.js';

function context(io: CommandIo) {
  const output = io.stderr as NodeJS.WritableStream;
  const stdin = io.stdin ?? process.stdin;
  return { input: stdin, output: typeof output.on === 'function' ? output : process.stderr, clearPromptOnDone: false };
}

export async function askText(io: CommandIo, message: string, def?: string): Promise<string> {
  const answer = await input({ message, ...(def !== undefined ? { default: def } : {}), required: def === undefined }, context(io));
  return answer.trim();
}

/** A value typed without echo (a mask shows that keys were received). */
export async function askHidden(io: CommandIo, message: string): Promise<string> {
  return password({ message, mask: '*' }, context(io));
}

/** All of standard input as text. */
export async function readAllStdin(io: CommandIo): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin ?? process.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}
