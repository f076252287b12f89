// Verified senders of an organization, pure: parsing the `from` of POST
// /api/v1/emails (`a@b.c`, `Name <a@b.c>`, `"Name, Inc." <a@b.c>`), reading
// a sender rule as `svc org sender add` takes it, and matching one against
// the other. No I/O here; organizations.ts stores the rules.
//
// Matching, as SES and Kestra-like services do it:
// - an address rule matches that address exactly: the local part as written
//   (it is case-sensitive by RFC 5321), the domain in any case;
// - a domain rule matches addresses at that domain, in any case, and not at
//   its subdomains (`acme.test` does not cover `mail.acme.test`: verify that
//   one too).
import { assertNever } from '@svc/assert';

export interface Mailbox {
  /** The display name, unquoted; '' when there is none. */
  name: string;
  /** `local@domain` as written. */
  address: string;
  local: string;
  /** The domain in lower case. */
  domain: string;
}

export interface SenderRule {
  kind: 'domain' | 'address';
  /** A domain in lower case, or `local@domain` with the domain in lower case. */
  value: string;
}

/** RFC 5322 atext, plus the dots of a dot-atom. */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** What an unquoted display name may hold: no RFC 5322 specials, so nothing a mail client reads as a second address. */
const PHRASE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\- \u0080-\uFFFF]*$/;

/** A domain as written in lower case, or null when it is not a host name with at least two labels. */
export function parseDomain(text: string): string | null {
  const d = text.toLowerCase();
  if (d.length > 253) return null;
  const labels = d.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  return d;
}

function parseAddress(text: string): { local: string; domain: string } | null {
  const at = text.lastIndexOf('@');
  if (at <= 0) return null;
  const local = text.slice(0, at);
  const domain = parseDomain(text.slice(at + 1));
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..') || !domain) return null;
  return { local, domain };
}

/**
 * The mailbox of a `from`: a bare address, or a display name and an address
 * in angle brackets. The name is a phrase without specials, or a quoted
 * string. Null when it is neither (or holds a line break).
 */
export function parseMailbox(text: string): Mailbox | null {
  if (/[\r\n]/.test(text)) return null;
  const t = text.trim();
  const bracket = /^(.*?)\s*<([^<>]*)>$/s.exec(t);
  let name = '';
  let addr = t;
  if (bracket) {
    const raw = bracket[1].trim();
    addr = bracket[2].trim();
    if (raw.startsWith('"')) {
      const q = /^"((?:[^"\\]|\\.)*)"$/.exec(raw);
      if (!q) return null;
      name = q[1].replace(/\\(.)/g, '$1');
    } else {
      if (!PHRASE.test(raw)) return null;
      name = raw;
    }
  }
  const a = parseAddress(addr);
  if (!a) return null;
  return { name, address: `${a.local}@${addr.slice(addr.lastIndexOf('@') + 1)}`, local: a.local, domain: a.domain };
}

/** A rule as given to `svc org sender add`: an address (with `@`) or a domain. Null when it is neither. */
export function parseSenderRule(text: string): SenderRule | null {
  const t = text.trim();
  if (t.includes('@')) {
    const a = parseAddress(t);
    return a ? { kind: 'address', value: `${a.local}@${a.domain}` } : null;
  }
  const d = parseDomain(t);
  return d ? { kind: 'domain', value: d } : null;
}

/** Whether `from` is covered by one of `rules`. */
export function senderAllowed(from: Mailbox, rules: readonly SenderRule[]): boolean {
  return rules.some((r) => {
    switch (r.kind) {
      case 'address':
        return r.value === `${from.local}@${from.domain}`;
      case 'domain':
        return r.value === from.domain;
      default:
        return assertNever(r.kind);
    }
  });
}

/** The message of the 422 for a `from` outside the rules: names the rule, never lists other organizations' data. */
export function senderRefusal(from: Mailbox): string {
  return `from ${from.local}@${from.domain} is not a verified sender of this organization: it must be a verified address, or an address at a verified domain (a domain covers only itself, not its subdomains); an admin adds one with svc org sender add`;
}
