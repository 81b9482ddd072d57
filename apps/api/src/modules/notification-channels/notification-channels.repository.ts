import { and, asc, eq, sql } from 'drizzle-orm';
import { PAGE_SIZE, type ListQuery, type ListResult, type NotificationChannel } from '@fleetdesk/contract';
import type { Db, Executor } from '../../db/client.ts';
import { alertRules, notificationChannels } from '../../db/schema/index.ts';
import { maskOf } from '../../lib/secrets.ts';

export type ChannelRow = typeof notificationChannels.$inferSelect;
export type ChannelWrite = Partial<Omit<typeof notificationChannels.$inferInsert, 'id' | 'channelNo'>>;

export const toChannel = (c: ChannelRow): NotificationChannel => ({
  _id: c.id,
  channelNo: c.channelNo,
  name: c.name,
  kind: c.kind,
  enabled: c.enabled,
  smtpHost: c.smtpHost,
  smtpPort: c.smtpPort,
  smtpSecurity: c.smtpSecurity,
  smtpUser: c.smtpUser,
  smtpPassword: maskOf(c.smtpPasswordEnc),
  emailFrom: c.emailFrom,
  emailTo: c.emailTo,
  webhookUrl: c.webhookUrl,
  webhookSecret: maskOf(c.webhookSecretEnc),
  telegramBotToken: maskOf(c.telegramBotTokenEnc),
  telegramChatId: c.telegramChatId,
  telegramApiBase: c.telegramApiBase,
  lastTestAt: c.lastTestAt?.toISOString() ?? null,
  lastTestOk: c.lastTestOk,
  lastTestAnswer: c.lastTestAnswer,
});

export function createNotificationChannelsRepository(db: Db) {
  return {
    async list(q: ListQuery, ex: Executor = db): Promise<ListResult<NotificationChannel>> {
      const where = q.search
        ? sql`${notificationChannels.name} ilike ${`%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`
        : sql`true`;
      const [{ n } = { n: 0 }] = await ex
        .select({ n: sql<number>`count(*)::int` })
        .from(notificationChannels)
        .where(where);
      const rows = await ex
        .select()
        .from(notificationChannels)
        .where(where)
        .orderBy(asc(notificationChannels.channelNo))
        .limit(PAGE_SIZE)
        .offset((q.page - 1) * PAGE_SIZE);
      return { items: rows.map(toChannel), itemsCount: n };
    },
    async findById(id: string, ex: Executor = db) {
      const r = await this.findRow(id, ex);
      return r ? toChannel(r) : undefined;
    },
    /** The enabled email channel made first: its server also sends mail to users (two-factor warnings). */
    async firstEmail(ex: Executor = db): Promise<ChannelRow | undefined> {
      const [r] = await ex
        .select()
        .from(notificationChannels)
        .where(and(eq(notificationChannels.kind, 'email'), eq(notificationChannels.enabled, true)))
        .orderBy(asc(notificationChannels.channelNo))
        .limit(1);
      return r;
    },
    async findRow(id: string, ex: Executor = db): Promise<ChannelRow | undefined> {
      const [r] = await ex.select().from(notificationChannels).where(eq(notificationChannels.id, id));
      return r;
    },
    async insert(values: ChannelWrite, ex: Executor = db) {
      const [r] = await ex
        .insert(notificationChannels)
        .values(values as typeof notificationChannels.$inferInsert)
        .returning({ id: notificationChannels.id });
      return r!.id;
    },
    async update(id: string, values: ChannelWrite, ex: Executor = db) {
      if (!Object.keys(values).length) return;
      await ex.update(notificationChannels).set(values).where(eq(notificationChannels.id, id));
    },
    async delete(id: string, ex: Executor = db) {
      const r = await ex.delete(notificationChannels).where(eq(notificationChannels.id, id)).returning();
      return r.length > 0;
    },
    async recordTest(id: string, v: { at: Date; ok: boolean; answer: string }, ex: Executor = db) {
      await ex
        .update(notificationChannels)
        .set({ lastTestAt: v.at, lastTestOk: v.ok, lastTestAnswer: v.answer })
        .where(eq(notificationChannels.id, id));
    },
    /** The rules that send to a channel (a channel in use is not deleted). */
    async rulesUsing(id: string, ex: Executor = db) {
      const rows = await ex
        .select({ name: alertRules.name })
        .from(alertRules)
        .where(sql`${id}::uuid = any(${alertRules.channelIds})`)
        .orderBy(asc(alertRules.ruleNo));
      return rows.map((r) => r.name);
    },
  };
}
export type NotificationChannelsRepository = ReturnType<typeof createNotificationChannelsRepository>;
