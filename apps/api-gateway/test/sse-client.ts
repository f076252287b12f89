// A minimal `text/event-stream` client for tests (node:http only, so the
// end-to-end tests use it too): events and comments as they arrive, the last
// id, and a client that vanishes abruptly or stops reading.
import http from 'node:http';

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * A minimal `text/event-stream` reader over node:http: events and comments as
 * they arrive, the last id, and a way to vanish abruptly (`destroy`) or to
 * stop reading (`pause`) as a slow client does.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: { text: string; at: number }[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  body = '';
  lastId: string | undefined;
  closed = false;
  readonly done: Promise<void>;
  private buf = '';
  private req!: http.ClientRequest;
  private res: http.IncomingMessage | undefined;
  private listeners = new Set<() => void>();

  private constructor(url: string, headers: Record<string, string>, agent?: http.Agent) {
    this.done = new Promise((resolve, reject) => {
      this.req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: agent ?? false }, (res) => {
        this.res = res;
        this.status = res.statusCode ?? 0;
        this.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (d: string) => this.feed(d));
        const finish = () => {
          this.closed = true;
          this.changed();
          resolve();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        this.changed();
      });
      this.req.on('error', (err) => {
        this.closed = true;
        this.changed();
        if (this.status === 0) reject(err);
        else resolve();
      });
    });
    this.done.catch(() => undefined);
  }

  /** Opens a stream and resolves once the response headers arrived. */
  static async open(url: string, headers: Record<string, string> = {}, agent?: http.Agent): Promise<SseClient> {
    const c = new SseClient(url, headers, agent);
    await c.until(() => c.status !== 0 || c.closed, 10_000);
    return c;
  }

  get lines(): SseEvent[] {
    return this.events.filter((e) => e.event === 'line');
  }

  /** Resolves once `pred` holds (checked on every arrival). */
  until(pred: () => boolean, ms = 20_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!pred()) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`SSE condition not met within ${ms} ms (${this.events.length} events, closed=${this.closed})`));
      }, ms);
      this.listeners.add(check);
    });
  }

  pause(): void {
    this.res?.pause();
  }

  resume(): void {
    this.res?.resume();
  }

  /** Drops the connection without a word, mid-stream. */
  destroy(): void {
    this.req.destroy();
    this.res?.destroy();
  }

  private changed(): void {
    for (const l of [...this.listeners]) l();
  }

  private feed(chunk: string): void {
    if (this.status !== 200) {
      this.body += chunk;
      return;
    }
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const ev: SseEvent = { event: 'message', data: '' };
      const data: string[] = [];
      let isEvent = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments.push({ text: line, at: Date.now() });
          continue;
        }
        const c = line.indexOf(':');
        const field = c < 0 ? line : line.slice(0, c);
        const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
        isEvent = true;
        if (field === 'event') ev.event = value;
        else if (field === 'id') ev.id = value;
        else if (field === 'data') data.push(value);
      }
      if (!isEvent) continue;
      ev.data = data.join('\n');
      if (ev.id !== undefined) this.lastId = ev.id;
      this.events.push(ev);
    }
    this.changed();
  }
}
