import { eq } from 'drizzle-orm';
import type { Container } from '../container.ts';
import { notificationChannels } from '../db/schema/index.ts';
import { systemActor } from '../http/context.ts';
import { DEMO_TELEGRAM, type DemoProviders } from './providers.ts';

const EMAIL = 'Demo inbox (email)';
const TELEGRAM = 'Demo Telegram chat';
const RULE = 'Demo: problems to the demo inbox';

/**
 * Alerts in the demo (issue 29): an email channel to the local SMTP catcher and a Telegram channel to the
 * simulator, and a rule sending every problem to both; made once, then pointed at this run's ports. The Alerts
 * screen's "Demo inbox" shows what the catcher received.
 */
export async function attachDemoAlerts(c: Container, p: DemoProviders) {
  const actor = systemActor('demo-seed');
  const db = c.database.db;
  const byName = async (name: string) =>
    (await db.select().from(notificationChannels).where(eq(notificationChannels.name, name)))[0];
  let email = await byName(EMAIL);
  if (!email) {
    await c.services.notificationChannels.create(
      {
        name: EMAIL,
        kind: 'email',
        smtpHost: '127.0.0.1',
        smtpPort: p.smtp.port,
        smtpSecurity: 'none',
        emailFrom: 'alerts@fleetdesk.local',
        emailTo: 'ops@fleetdesk.local',
      },
      actor,
    );
    email = await byName(EMAIL);
  }
  let tg = await byName(TELEGRAM);
  if (!tg) {
    await c.services.notificationChannels.create(
      {
        name: TELEGRAM,
        kind: 'telegram',
        telegramBotToken: DEMO_TELEGRAM.token,
        telegramChatId: DEMO_TELEGRAM.chatId,
        telegramApiBase: p.telegram.url,
      },
      actor,
    );
    tg = await byName(TELEGRAM);
  }
  // The simulators' ports change with every start.
  await db.update(notificationChannels).set({ smtpPort: p.smtp.port }).where(eq(notificationChannels.id, email!.id));
  await db
    .update(notificationChannels)
    .set({ telegramApiBase: p.telegram.url })
    .where(eq(notificationChannels.id, tg!.id));
  const rules = await c.services.alertRules.list({ page: 1, search: RULE });
  if (!rules.items.length) {
    await c.services.alertRules.create(
      {
        name: RULE,
        events: ['health_failing', 'drift', 'server_offline', 'proxy_failing', 'job_failed', 'launch_finished'],
        healthMinutes: 0,
        channelIds: [email!.id, tg!.id],
        minSeverity: 'warning',
        reminderMinutes: 240,
      },
      actor,
    );
  }
  c.services.alerts.setDemoInbox(() =>
    p.smtp.mails
      .slice()
      .reverse()
      .map((m) => ({
        id: m.id,
        at: m.at.toISOString(),
        from: m.from,
        to: m.to.join(', '),
        subject: m.subject,
        text: m.text,
      })),
  );
}
