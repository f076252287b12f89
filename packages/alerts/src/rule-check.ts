// The checks of an alert rule that its schema cannot say, run by the
// gateway before it writes a rule (the routes answer 422 with the problems).
import { literalTargetProblem } from '@svc/config';
import type { PrismaClient } from '@svc/db';
import { organizationAllows, organizationForAlerts, parseMailbox } from '@svc/identity';
import { parseSecretReference } from '@svc/secrets';
import type { AlertChannel } from './rules.js';

/** A field of the rule (as the request names it) and what is wrong with it. */
export interface RuleProblem {
  field: string;
  message: string;
}

/**
 * What the schema cannot say: secret references parse, addresses are
 * addresses, the organization exists and lists the rule's namespace, `late`
 * has its duration, and (unless
 * SVC_ALERT_ALLOW_PRIVATE_TARGETS) a webhook URL names no literal loopback or
 * private address. Host names are judged by maintenance when it resolves them.
 */
export async function ruleProblems(
  prisma: PrismaClient,
  allowPrivateTargets: boolean,
  r: { namespace: string; events: string[]; late_after_seconds: number | null; schedule_grace_seconds: number | null; channels: AlertChannel[] },
  /** Judge whether each email channel's organization allows the namespace: on create, and on an update that changes channels or namespace. */
  judgeOrganizations = true,
): Promise<RuleProblem[]> {
  const problems: RuleProblem[] = [];
  if (r.events.includes('late') && r.late_after_seconds === null && r.schedule_grace_seconds === null) {
    problems.push({ field: 'late_after_seconds', message: 'the late event needs late_after_seconds, schedule_grace_seconds or both' });
  }
  for (const [i, c] of r.channels.entries()) {
    const at = `channels[${i}]`;
    const ref = (field: string, v: string) => {
      try {
        parseSecretReference(v);
      } catch (err) {
        problems.push({ field: `${at}.${field}`, message: (err as Error).message });
      }
    };
    switch (c.type) {
      case 'email': {
        if (!parseMailbox(c.from)) problems.push({ field: `${at}.from`, message: `${JSON.stringify(c.from)} is not an email address` });
        if (!parseMailbox(c.to)) problems.push({ field: `${at}.to`, message: `${JSON.stringify(c.to)} is not an email address` });
        const org = await organizationForAlerts(prisma, c.organization);
        if (!org) problems.push({ field: `${at}.organization`, message: `no organization ${c.organization}` });
        else if (judgeOrganizations && !organizationAllows(org.namespaces, r.namespace))
          problems.push({
            field: `${at}.organization`,
            message: `organization ${c.organization} does not allow namespace ${r.namespace}: an admin lists the namespaces that may send as it (Settings › Organizations, svc org namespace add)`,
          });
        break;
      }
      case 'webhook':
        try {
          const u = new URL(c.url);
          if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push({ field: `${at}.url`, message: 'a webhook URL is http:// or https://' });
          if (u.username || u.password) problems.push({ field: `${at}.url`, message: 'a webhook URL carries no credentials: sign with signing_secret' });
          const refused = allowPrivateTargets ? null : literalTargetProblem(u);
          if (refused) problems.push({ field: `${at}.url`, message: `${refused}: refused unless SVC_ALERT_ALLOW_PRIVATE_TARGETS is true` });
        } catch {
          problems.push({ field: `${at}.url`, message: 'not a URL' });
        }
        ref('signing_secret', c.signing_secret);
        break;
      case 'slack':
        ref('url_secret', c.url_secret);
        break;
    }
  }
  return problems;
}
