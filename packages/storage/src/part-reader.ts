/**
 * Cuts a stream of chunks into parts of exactly `partSize` bytes (the last one
 * shorter), holding at most one part plus one chunk in memory.
 */
export class PartReader {
  private readonly source: AsyncIterator<Buffer>;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(
    source: AsyncIterable<Buffer>,
    readonly partSize: number,
  ) {
    this.source = source[Symbol.asyncIterator]();
  }

  /** True once the source is exhausted and every byte was handed out. */
  get done(): boolean {
    return this.ended && this.pendingBytes === 0;
  }

  /** The next part, or null when nothing is left. */
  async next(): Promise<Buffer | null> {
    while (!this.ended && this.pendingBytes < this.partSize) {
      const result = await this.source.next();
      if (result.done === true) this.ended = true;
      else {
        this.pending.push(result.value);
        this.pendingBytes += result.value.length;
      }
    }
    if (this.pendingBytes === 0) return null;
    const all = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const part = all.subarray(0, this.partSize);
    // Copy the remainder so the whole concatenated buffer is not kept alive by it.
    const rest = all.length > this.partSize ? Buffer.from(all.subarray(this.partSize)) : null;
    this.pending = rest === null ? [] : [rest];
    this.pendingBytes = rest === null ? 0 : rest.length;
    return part;
  }

  /** Stops reading the source early (destroys a stream body). */
  async cancel(): Promise<void> {
    await this.source.return?.().catch(() => undefined);
  }
}
