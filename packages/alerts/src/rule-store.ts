// The writes of alert rules and the page of a rule's deliveries (the
// gateway's routes call them), and the cap on rules per namespace
// (SVC_ALERT_RULES_PER_NAMESPACE, docs/using/alerts.md): the gateway counts
// a namespace's rules and writes the new one in one transaction under an
// advisory lock on the namespace, so two gateways saving rules at once
// cannot both take the last place. Prisma Client has no
// advisory locks, so that statement is written by hand and runs on the Prisma
// interactive transaction the rule is written in.
import { exactTimeText, type Prisma, type PrismaClient, type PrismaDb, type Queryable } from '@svc/db';

/** Runs in the transaction that writes a rule, before the write: throws to refuse it (the cap). */
export type RuleGuard = (tx: PrismaDb) => Promise<void>;

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

/** Writes a new rule, after `guard` passed in the same transaction. */
export async function createAlertRule(prisma: PrismaClient, data: Prisma.AlertRuleUncheckedCreateInput, guard: RuleGuard) {
  return prisma.$transaction(async (tx) => {
    await guard(tx);
    return tx.alertRule.create({ data });
  });
}

/** Changes a rule, after `guard` (when given) passed in the same transaction. */
export async function updateAlertRule(prisma: PrismaClient, id: string, data: Prisma.AlertRuleUncheckedUpdateInput, guard?: RuleGuard) {
  return prisma.$transaction(async (tx) => {
    if (guard) await guard(tx);
    return tx.alertRule.update({ where: { id }, data });
  });
}

/** Deletes a rule (its deliveries go by their foreign key's cascade); false when there was none. */
export async function deleteAlertRule(prisma: PrismaClient, id: string): Promise<boolean> {
  const { count } = await prisma.alertRule.deleteMany({ where: { id } });
  return count > 0;
}

/** The namespace of a rule, or undefined when there is none with this id (the role check's record lookup). */
export async function alertRuleNamespace(db: Queryable, id: string): Promise<string | undefined> {
  const r = await db.query<{ namespace: string }>(`SELECT namespace FROM alert_rules WHERE id = $1`, [id]);
  return r.rows[0]?.namespace;
}

/**
 * A page of a rule's deliveries, newest first: the ids and creation times (to
 * the microsecond, for the cursor) of up to `limit` after `before`, the last
 * (created_at, id) of the previous page. A delivery's created_at is the
 * database's now() of the scanner's transaction, which writes one per channel:
 * a Date cursor would skip the rest of them.
 */
export async function alertDeliveryPage(db: Queryable, ruleId: string, limit: number, before?: { created_at: string; id: string }): Promise<{ id: string; created_key: string }[]> {
  const r = await db.query<{ id: string; created_key: string }>(
    `SELECT id, ${exactTimeText('created_at')} AS created_key FROM alert_deliveries
      WHERE rule_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [ruleId, before?.created_at ?? null, before?.id ?? '', limit],
  );
  return r.rows;
}

/** Alert deliveries (with their attempts, by cascade) made before `cutoff` and no longer being tried (at most `limit`): retention. */
export async function deleteAlertDeliveriesBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM alert_deliveries WHERE id IN (SELECT id FROM alert_deliveries WHERE created_at < $1 AND status NOT IN ('pending', 'sending') ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return r.rowCount ?? 0;
}
