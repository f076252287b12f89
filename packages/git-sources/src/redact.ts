// Credentials must not reach a log line, an error, a response or a sync run
// record. The git commands never see them on their command line (see
// git/auth.ts), but a remote may echo what it was sent, so every text that
// leaves a git command passes through a Redactor holding the credential
// values of that command.

const MASK = '***';

/** Parts of a secret shorter than this are not masked alone (they would mask ordinary words). */
const MIN_PART = 6;

export class Redactor {
  private readonly values: string[];

  /** `secrets`: whole credential values; each is masked, and so is each long line of a multi-line one (an SSH key). */
  constructor(secrets: readonly string[] = []) {
    const out = new Set<string>();
    for (const s of secrets) {
      if (!s) continue;
      out.add(s);
      out.add(encodeURIComponent(s));
      for (const line of s.split(/\r?\n/)) {
        const t = line.trim();
        if (t.length >= MIN_PART) out.add(t);
      }
      // `user:password` credentials: the password alone too.
      const colon = s.indexOf(':');
      if (!s.includes('\n') && colon >= 0 && s.length - colon - 1 >= MIN_PART) out.add(s.slice(colon + 1));
    }
    // Longest first, so a value is masked before a part of it.
    this.values = [...out].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(MASK);
    // Userinfo of any URL (`https://user:pass@host`): never printed.
    return out.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]*:[^/@\s]*@/gi, `$1${MASK}@`);
  }
}
