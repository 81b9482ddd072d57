import { randomBytes } from 'node:crypto';
import type { ChannelTestResult, ListQuery, NotificationChannel, NotificationChannelInput } from '@fleetdesk/contract';
import type { Database, Tx } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import { ChannelSendError } from '../../integrations/notify/errors.ts';
import type { SmtpClient } from '../../integrations/notify/smtp.ts';
import type { TelegramClient } from '../../integrations/notify/telegram.ts';
import type { WebhookClient } from '../../integrations/notify/webhook.ts';
import { assertCredentialDestinations } from '../../lib/credential-destinations.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ChannelRow, ChannelWrite, NotificationChannelsRepository } from './notification-channels.repository.ts';

/** One composed message, the same on every attempt of one delivery. */
export type OutgoingMessage = {
  deliveryId: string;
  subject: string;
  text: string;
  html: string;
  /** The webhook's JSON body (WebhookPayloadSchema). */
  payload: Record<string, unknown>;
};

export type DeliveryLogWrite = {
  deliveryId: string | null;
  channel: Pick<ChannelRow, 'id' | 'name' | 'kind'>;
  event: string;
  outcome: 'sent' | 'failed' | 'retrying' | 'held' | 'test';
  answer: string | null;
};

const PROVIDER_OF = { email: 'SMTP', webhook: 'Webhook', telegram: 'Telegram' } as const;

export function createNotificationChannelsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: NotificationChannelsRepository;
  smtp: SmtpClient;
  webhook: WebhookClient;
  telegram: TelegramClient;
  logDelivery: (e: DeliveryLogWrite) => Promise<void>;
}) {
  const { database, audit, usage, secrets, repo } = deps;

  usage.register('notification-channels', async (id, ex) => {
    const names = await repo.rulesUsing(id, ex);
    return { what: 'alert rules', count: names.length, examples: names.slice(0, 3) };
  });

  const toWrite = (
    input: Partial<NotificationChannelInput>,
    current: NotificationChannel | undefined,
  ): ChannelWrite => {
    const w: ChannelWrite = {};
    for (const k of [
      'name',
      'kind',
      'enabled',
      'smtpHost',
      'smtpPort',
      'smtpSecurity',
      'smtpUser',
      'emailFrom',
      'emailTo',
      'webhookUrl',
      'telegramChatId',
      'telegramApiBase',
    ] as const) {
      if (input[k] !== undefined) (w as Record<string, unknown>)[k] = input[k];
    }
    const pass = sealInput(secrets, input.smtpPassword);
    if (pass !== undefined) w.smtpPasswordEnc = pass;
    const token = sealInput(secrets, input.telegramBotToken);
    if (token !== undefined) w.telegramBotTokenEnc = token;
    // Only the kind's own settings are kept (a form sends every field; another kind's would linger unseen).
    const others = {
      email: ['smtpHost', 'smtpPort', 'smtpSecurity', 'smtpUser', 'smtpPasswordEnc', 'emailFrom', 'emailTo'],
      webhook: ['webhookUrl', 'webhookSecretEnc'],
      telegram: ['telegramBotTokenEnc', 'telegramChatId', 'telegramApiBase'],
    } as const;
    if (input.kind) {
      for (const [k, cols] of Object.entries(others)) {
        if (k !== input.kind) for (const col of cols) (w as Record<string, unknown>)[col] = null;
      }
    }
    // A webhook gets its signing secret at creation (revealed through the audited reveal), never typed in:
    // Standard Webhooks' form, `whsec_` and the standard base64 of 32 random bytes (decision 059). A new URL gets a
    // new one, so nothing the old receiver trusts is signed for the new address (decision 058).
    const kind = input.kind ?? current?.kind;
    const newUrl = input.webhookUrl !== undefined && input.webhookUrl !== current?.webhookUrl;
    if (kind === 'webhook' && (!current || current.webhookSecret === null || newUrl)) {
      w.webhookSecretEnc = secrets.encrypt(`whsec_${randomBytes(32).toString('base64')}`);
    }
    return w;
  };

  /** Where each stored credential is sent: changing one needs the credential again (decision 058). */
  const destinations = (input: Partial<NotificationChannelInput>, c: NotificationChannel) => {
    const smtp = (field: 'smtpHost' | 'smtpPort' | 'smtpSecurity', label: string) => ({
      field,
      label,
      credentialField: 'smtpPassword',
      credentialLabel: 'password',
      next: input[field],
      current: c[field],
      credentialGiven: input.smtpPassword !== undefined,
      credentialStored: c.smtpPassword !== null,
    });
    const list = [
      smtp('smtpHost', 'host'),
      smtp('smtpPort', 'port'),
      smtp('smtpSecurity', 'security'),
      {
        field: 'telegramApiBase',
        label: 'Bot API address',
        credentialField: 'telegramBotToken',
        credentialLabel: 'bot token',
        next: input.telegramApiBase,
        current: c.telegramApiBase,
        credentialGiven: input.telegramBotToken !== undefined,
        credentialStored: c.telegramBotToken !== null,
      },
      // The signing secret is never typed in: a new URL gets a new secret (toWrite); tokens may not move it.
      {
        field: 'webhookUrl',
        label: 'URL',
        credentialField: 'webhookSecret',
        credentialLabel: 'signing secret',
        next: input.webhookUrl,
        current: c.webhookUrl,
        credentialGiven: false,
        credentialStored: c.webhookSecret !== null,
        rotates: true,
      },
    ];
    // A new kind drops the old kind's settings and credentials (toWrite): nothing stored goes anywhere new.
    const own = {
      email: ['smtpHost', 'smtpPort', 'smtpSecurity'],
      telegram: ['telegramApiBase'],
      webhook: ['webhookUrl'],
    };
    const kind = input.kind ?? c.kind;
    return kind === c.kind ? list : list.filter((d) => !own[c.kind].includes(d.field));
  };

  /** The kind's required fields, on the channel as it will be after the write. */
  const validate = async (
    input: Partial<NotificationChannelInput>,
    current: NotificationChannel | undefined,
    tx: Tx,
    actor: Actor,
  ) => {
    if (current) assertCredentialDestinations(actor, destinations(input, current));
    const row = current ? await repo.findRow(current._id, tx) : undefined;
    const v = <K extends keyof NotificationChannelInput>(k: K, now: unknown) =>
      input[k] !== undefined ? input[k] : now;
    const kind = v('kind', row?.kind);
    const fields: Record<string, string> = {};
    const need = (k: keyof NotificationChannelInput, now: unknown, label: string) => {
      const x = v(k, now);
      if (x === null || x === undefined || x === '') fields[k] = `${label} is required for this kind of channel`;
    };
    if (kind === 'email') {
      need('smtpHost', row?.smtpHost, 'Host');
      need('smtpPort', row?.smtpPort, 'Port');
      need('smtpSecurity', row?.smtpSecurity, 'Security');
      need('emailFrom', row?.emailFrom, 'From');
      need('emailTo', row?.emailTo, 'To');
      if (v('smtpUser', row?.smtpUser) && !input.smtpPassword && !row?.smtpPasswordEnc)
        fields.smtpPassword = 'Password is required with a user';
    } else if (kind === 'webhook') {
      need('webhookUrl', row?.webhookUrl, 'URL');
    } else if (kind === 'telegram') {
      need('telegramChatId', row?.telegramChatId, 'Chat id');
      if (!input.telegramBotToken && !row?.telegramBotTokenEnc)
        fields.telegramBotToken = 'Bot token is required for this kind of channel';
    }
    if (Object.keys(fields).length) throw new ValidationError('Some fields need attention', fields);
  };

  const crud = createCrudService<NotificationChannel, NotificationChannelInput, ListQuery, ChannelWrite>({
    database,
    audit,
    usage,
    repo,
    entity: 'notification-channels',
    label: 'notification channel',
    unique: { notification_channels_name_uq: { field: 'name', message: 'A channel with this name already exists' } },
    toWrite,
    validate,
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      if (!r) return undefined;
      const { lastTestAt: _a, lastTestOk: _b, lastTestAnswer: _c, channelNo: _d, ...rest } = r;
      return rest;
    },
  });

  const open = (sealed: string | null) => (sealed ? secrets.decrypt(sealed) : null);

  /** Sends one message through the channel's provider; the provider's answer, or a ChannelSendError. */
  async function send(c: ChannelRow, m: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    if (c.kind === 'email') {
      return deps.smtp.send(
        {
          host: c.smtpHost ?? '',
          port: c.smtpPort ?? 25,
          security: c.smtpSecurity ?? 'starttls',
          user: c.smtpUser,
          password: open(c.smtpPasswordEnc),
          from: c.emailFrom ?? '',
          to: c.emailTo ?? '',
        },
        { subject: m.subject, text: m.text, html: m.html, messageId: `<${m.deliveryId}@fleetdesk.alerts>` },
      );
    }
    if (c.kind === 'webhook') {
      const secret = open(c.webhookSecretEnc);
      if (!c.webhookUrl || !secret) throw new ChannelSendError('Webhook', 'the channel has no URL or secret', false);
      return deps.webhook.post({ url: c.webhookUrl, secret }, JSON.stringify(m.payload), m.deliveryId, signal);
    }
    const token = open(c.telegramBotTokenEnc);
    if (!token || !c.telegramChatId)
      throw new ChannelSendError('Telegram', 'the channel has no bot token or chat id', false);
    return deps.telegram.sendMessage({ base: c.telegramApiBase, token, chatId: c.telegramChatId }, m.text, signal);
  }

  return {
    ...crud,
    reveal: createRevealer<ChannelRow>({
      database,
      audit,
      secrets,
      entity: 'notification-channels',
      label: 'notification channel',
      load: (id, ex) => repo.findRow(id, ex),
      columns: {
        smtpPassword: (r) => r.smtpPasswordEnc,
        webhookSecret: (r) => r.webhookSecretEnc,
        telegramBotToken: (r) => r.telegramBotTokenEnc,
      },
    }),
    send,
    findRow: (id: string) => repo.findRow(id),
    providerOf: (c: Pick<ChannelRow, 'kind'>) => PROVIDER_OF[c.kind],

    /** Sends a sample message now and answers with what the provider said (also on the channel and in the log). */
    async test(id: string, actor: Actor): Promise<ChannelTestResult> {
      const c = await repo.findRow(id);
      if (!c) throw new NotFoundError('Notification channel not found');
      const at = new Date();
      const deliveryId = crypto.randomUUID();
      const text = `Fleetdesk test message from ${actor.username ?? 'the console'} for channel "${c.name}". Alerts will arrive here.`;
      const message: OutgoingMessage = {
        deliveryId,
        subject: `[Fleetdesk] Test message for ${c.name}`,
        text,
        html: `<p>${escapeHtml(text)}</p>`,
        payload: {
          deliveryId,
          type: 'test',
          sentAt: at.toISOString(),
          rule: null,
          summary: text,
          alerts: [],
          total: 0,
        },
      };
      let ok = true;
      let answer: string;
      try {
        answer = await send(c, message);
      } catch (err) {
        if (!(err instanceof ChannelSendError)) throw err;
        ok = false;
        answer = err.message;
      }
      await database.db.transaction(async (tx) => {
        await repo.recordTest(id, { at, ok, answer }, tx);
        await audit.record(
          actor,
          { action: 'test', entity: 'notification-channels', entityId: id, details: { ok, answer } },
          tx,
        );
      });
      await deps.logDelivery({
        deliveryId: null,
        channel: c,
        event: 'Test message',
        outcome: ok ? 'test' : 'failed',
        answer,
      });
      return { ok, answer, at: at.toISOString() };
    },
  };
}
export type NotificationChannelsService = ReturnType<typeof createNotificationChannelsService>;

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
