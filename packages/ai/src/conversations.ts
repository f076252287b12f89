// The assistant's data: conversations, their messages and the actions the
// assistant proposed (ai_conversations, ai_messages, ai_pending_actions). The
// gateway's routes (routes/ai.ts) and its turn (ai/assistant.ts) read and
// write them only through this store. Prisma Client for the ordinary reads
// and writes; a message's insert is one hand-written statement, so its `seq`
// and its row are taken together.
import type pg from 'pg';
import { newId, Prisma, type PrismaClient } from '@svc/db';

/** The conversation fields its API object shows. */
const CONVERSATION = { id: true, title: true, createdAt: true, updatedAt: true } as const;
export type ConversationRow = Prisma.AiConversationGetPayload<{ select: typeof CONVERSATION }>;
export type ActionRow = Prisma.AiPendingActionGetPayload<object>;
const MESSAGE = { id: true, seq: true, role: true, content: true, parts: true, model: true, createdAt: true } as const;
export type MessageRow = Prisma.AiMessageGetPayload<{ select: typeof MESSAGE }>;

/** A page of conversations after the cursor (the last `updated_at`, `id` shown), newest first. */
export interface ConversationCursor {
  updated_at: string;
  id: string;
}

export class ConversationStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly prisma: PrismaClient,
  ) {}

  /** The user's own conversation (another user's does not exist for them). */
  own(userId: string, id: string): Promise<ConversationRow | null> {
    return this.prisma.aiConversation.findFirst({ where: { id, userId }, select: CONVERSATION });
  }

  /** `limit + 1` rows, so the caller knows whether there is a next page. */
  page(userId: string, limit: number, after?: ConversationCursor): Promise<ConversationRow[]> {
    const at = after ? new Date(after.updated_at) : undefined;
    return this.prisma.aiConversation.findMany({
      where: { userId, ...(at ? { OR: [{ updatedAt: { lt: at } }, { updatedAt: at, id: { lt: String(after!.id) } }] } : {}) },
      orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
      select: CONVERSATION,
    });
  }

  create(userId: string, title: string): Promise<ConversationRow> {
    return this.prisma.aiConversation.create({ data: { id: newId(), userId, title }, select: CONVERSATION });
  }

  async delete(id: string): Promise<void> {
    await this.prisma.aiConversation.delete({ where: { id } });
  }

  async setTitle(id: string, title: string): Promise<void> {
    await this.prisma.aiConversation.update({ where: { id }, data: { title } });
  }

  /** The messages in order. */
  messages(conversationId: string): Promise<MessageRow[]> {
    return this.prisma.aiMessage.findMany({ where: { conversationId }, orderBy: { seq: 'asc' }, select: MESSAGE });
  }

  /**
   * Appends a message as the conversation's next `seq`, in one statement (the
   * number and the row together, so two writers cannot take the same number),
   * and marks the conversation updated.
   */
  async appendMessage(
    conversationId: string,
    m: { role: string; content: string; parts?: unknown[]; model?: string; inputTokens?: number; outputTokens?: number },
  ): Promise<string> {
    const id = newId();
    await this.pool.query(
      `INSERT INTO ai_messages (id, conversation_id, seq, role, content, parts, model, input_tokens, output_tokens)
       VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ai_messages WHERE conversation_id = $2), $3, $4, $5, $6, $7, $8)`,
      [id, conversationId, m.role, m.content, JSON.stringify(m.parts ?? []), m.model ?? '', m.inputTokens ?? null, m.outputTokens ?? null],
    );
    await this.prisma.aiConversation.update({ where: { id: conversationId }, data: { updatedAt: new Date() } });
    return id;
  }

  /** The actions proposed in a conversation, oldest first. */
  actions(conversationId: string): Promise<ActionRow[]> {
    return this.prisma.aiPendingAction.findMany({ where: { conversationId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  action(conversationId: string, id: string): Promise<ActionRow | null> {
    return this.prisma.aiPendingAction.findFirst({ where: { id, conversationId } });
  }

  /** A new pending action; its id. */
  async propose(a: { conversationId: string; messageId: string; tool: string; arguments: Record<string, unknown>; summary: string }): Promise<string> {
    const id = newId();
    await this.prisma.aiPendingAction.create({
      data: { id, conversationId: a.conversationId, messageId: a.messageId, tool: a.tool, arguments: a.arguments as Prisma.InputJsonValue, summary: a.summary, status: 'pending' },
    });
    return id;
  }

  /** Decides a pending action (confirmed or rejected); false when it was decided already (only one decision wins). */
  async decide(id: string, status: 'confirmed' | 'rejected', by: string, at: Date): Promise<boolean> {
    const r = await this.prisma.aiPendingAction.updateMany({ where: { id, status: 'pending' }, data: { status, decidedAt: at, decidedBy: by } });
    return r.count > 0;
  }

  /** How a confirmed action ended: its (masked) result, or its error. */
  async finish(id: string, outcome: { result: unknown } | { error: string }): Promise<void> {
    const data = 'error' in outcome ? { status: 'failed', error: outcome.error } : { status: 'succeeded', result: (outcome.result ?? Prisma.JsonNull) as Prisma.InputJsonValue };
    await this.prisma.aiPendingAction.update({ where: { id }, data });
  }
}
