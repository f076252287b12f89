// The cap on alert rules per namespace (SVC_ALERT_RULES_PER_NAMESPACE,
// docs/using/alerts.md): the gateway counts a namespace's rules and writes
// the new one in one transaction under an advisory lock on the namespace, so
// two gateways saving rules at once cannot both take the last place. Prisma
// Client has no advisory locks, so these statements are written by hand and
// run on the Prisma interactive transaction the rule is written in.
import type { PrismaDb } from '../client.js';

/**
 * Takes the namespace's alert-rule lock until the transaction ends, then
 * counts its rules (exactly that namespace, not its children), leaving out
 * rule `exceptId` (the one being moved there).
 */
export async function lockAndCountAlertRules(tx: PrismaDb, namespace: string, exceptId = ''): Promise<number> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('svc-alert-rules:' || ${namespace}, 0))`;
  const r = await tx.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM alert_rules WHERE namespace = ${namespace} AND id <> ${exceptId}`;
  return Number(r[0]?.n ?? 0);
}
