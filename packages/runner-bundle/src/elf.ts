// The two facts the bundle needs from node's ELF header: its program
// interpreter (the dynamic loader to carry, none for a static binary) and its
// machine. Only 64-bit little-endian ELF: the platforms Node ships for Linux.
import fs from 'node:fs/promises';

export interface ElfInfo {
  /** PT_INTERP: absolute path of the dynamic loader, or null for a static executable. */
  interpreter: string | null;
  /** Docker's name of the architecture: amd64, arm64, or the raw e_machine number. */
  arch: string;
}

/** Thrown when a file is not an ELF executable this code understands. */
export class NotElfError extends Error {
  override readonly name = 'NotElfError';
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file} is not a 64-bit little-endian ELF executable: ${why}`);
  }
}

const PT_INTERP = 3;
const MACHINES: Record<number, string> = { 0x3e: 'amd64', 0xb7: 'arm64' };

export async function readElfInfo(file: string): Promise<ElfInfo> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(64);
    await fh.read(head, 0, 64, 0);
    if (head.readUInt32BE(0) !== 0x7f454c46) throw new NotElfError(file, 'no ELF magic');
    if (head[4] !== 2 || head[5] !== 1) throw new NotElfError(file, `class ${head[4]}, data ${head[5]}`);
    const machine = head.readUInt16LE(0x12);
    const phoff = Number(head.readBigUInt64LE(0x20));
    const phentsize = head.readUInt16LE(0x36);
    const phnum = head.readUInt16LE(0x38);
    const table = Buffer.alloc(phentsize * phnum);
    await fh.read(table, 0, table.length, phoff);
    let interpreter: string | null = null;
    for (let i = 0; i < phnum; i++) {
      const ph = table.subarray(i * phentsize);
      if (ph.readUInt32LE(0) !== PT_INTERP) continue;
      const offset = Number(ph.readBigUInt64LE(0x08));
      const size = Number(ph.readBigUInt64LE(0x20));
      const buf = Buffer.alloc(size);
      await fh.read(buf, 0, size, offset);
      interpreter = buf.toString('utf8').replace(/\0+$/, '');
    }
    return { interpreter, arch: MACHINES[machine] ?? String(machine) };
  } finally {
    await fh.close();
  }
}
