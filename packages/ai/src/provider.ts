// The AI provider's one settings row (ai_provider, id 'default'; absent = AI
// disabled). The gateway's AIProviderStore (ai/provider.ts) seals and opens
// the API key; this reads and writes the row as it is stored.
import type pg from 'pg';
import { prismaOf, type Prisma } from '@svc/db';

export type ProviderSettingsRow = Prisma.AiProviderGetPayload<object>;

/** The stored API key, sealed (all null: none). */
export interface SealedProviderKey {
  apiKeyCiphertext: Uint8Array<ArrayBuffer> | null;
  apiKeyNonce: Uint8Array<ArrayBuffer> | null;
  apiKeyKeyId: string | null;
}

/** The enabled provider row, if any. */
export async function enabledProvider(pool: pg.Pool): Promise<ProviderSettingsRow | undefined> {
  return (await prismaOf(pool).aiProvider.findFirst({ where: { id: 'default', enabled: true } })) ?? undefined;
}

/**
 * Writes the settings (and enables the row). `key` undefined keeps the stored
 * key (a new row has none); `autoTriage` undefined keeps it (a new row: off).
 */
export async function putProvider(
  pool: pg.Pool,
  p: { type: string; model: string; baseUrl: string; settings: Prisma.InputJsonValue; updatedBy: string; key?: SealedProviderKey; autoTriage?: boolean },
): Promise<void> {
  const fields = { type: p.type, baseUrl: p.baseUrl, model: p.model, settings: p.settings, updatedBy: p.updatedBy, enabled: true };
  const key = p.key ?? { apiKeyCiphertext: null, apiKeyNonce: null, apiKeyKeyId: null };
  await prismaOf(pool).aiProvider.upsert({
    where: { id: 'default' },
    create: { id: 'default', ...fields, ...key, autoTriage: p.autoTriage ?? false },
    // The stored key stays unless a key (or its removal) is given; auto_triage unless given.
    update: { ...fields, ...(p.key ? p.key : {}), ...(p.autoTriage !== undefined ? { autoTriage: p.autoTriage } : {}) },
  });
}

/** Removes the row (AI disabled); false when there was none. */
export async function deleteProvider(pool: pg.Pool): Promise<boolean> {
  return (await prismaOf(pool).aiProvider.deleteMany({ where: { id: 'default' } })).count > 0;
}
