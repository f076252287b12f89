// Credentials must not reach a log line, an error, a response or a sync run
// record. The git commands never see them on their command line (see
// git/auth.ts), but a remote may echo what it was sent, so every text that
// leaves a git command passes through a Redactor holding the credential
// values of that command. What masking a value means (its forms, its lines,
// longest first) is @svc/masking's; git adds two rules of its own: the
// password of a `user:password` credential alone, and the userinfo of any URL.
import { MASK, Masker, MIN_PART_LENGTH } from '@svc/masking';

export class Redactor {
  private readonly masker: Masker;

  /** `secrets`: whole credential values; each is masked in all its forms, and so is each line of a multi-line one (an SSH key). */
  constructor(secrets: readonly string[] = []) {
    const values: string[] = [];
    for (const s of secrets) {
      if (!s) continue;
      values.push(s);
      // `user:password` credentials: the password alone too.
      const colon = s.indexOf(':');
      if (!/[\r\n]/.test(s) && colon >= 0 && s.length - colon - 1 >= MIN_PART_LENGTH) values.push(s.slice(colon + 1));
    }
    this.masker = new Masker(values);
  }

  redact(text: string): string {
    // Userinfo of any URL (`https://user:pass@host`): never printed.
    return this.masker.text(text).replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]*:[^/@\s]*@/gi, `$1${MASK}@`);
  }
}
