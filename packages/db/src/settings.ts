// Service-wide settings (table `settings`): one text value per key.
import type pg from 'pg';
import { prismaOf, type PrismaDb } from './client.js';

/** The value of a setting; undefined when it was never written. */
export async function readSetting(db: pg.Pool | PrismaDb, key: string): Promise<string | undefined> {
  return (await prismaOf(db).setting.findUnique({ where: { key }, select: { value: true } }))?.value;
}
