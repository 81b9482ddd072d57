import net from 'node:net';
import nodemailer from 'nodemailer';
import type { SmtpSecurity } from '@fleetdesk/contract';
import { type DestinationPolicy, DestinationRefusedError, checkedAddress } from './destination.ts';
import { ChannelSendError } from './errors.ts';

const PROVIDER = 'SMTP';

export type SmtpSettings = {
  host: string;
  port: number;
  security: SmtpSecurity;
  user: string | null;
  password: string | null;
  from: string;
  to: string;
};

/**
 * Email over SMTP with nodemailer: one connection per message, every wait bounded. STARTTLS is required when
 * chosen (never a fall back to clear text) and certificates are checked against the system's authorities, plus
 * `ca` (tests; a deployment with a private authority sets NODE_EXTRA_CA_CERTS).
 */
export function createSmtpClient(
  o: { timeoutMs?: number; ca?: string | string[]; destinations?: DestinationPolicy } = {},
) {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const policy = o.destinations ?? { allowPrivate: false };
  return {
    /** Sends a text and an HTML part; answers with the server's final response line. */
    async send(
      c: SmtpSettings,
      m: { subject: string; text: string; html: string; messageId: string },
    ): Promise<string> {
      // Connect to the address that was checked (decision 058); TLS still verifies the name.
      let address: string;
      try {
        address = (await checkedAddress(c.host, policy)).address;
      } catch (err) {
        throw smtpError(c, err);
      }
      const transport = nodemailer.createTransport({
        host: address,
        servername: net.isIP(c.host) ? undefined : c.host,
        port: c.port,
        secure: c.security === 'tls',
        requireTLS: c.security === 'starttls',
        ignoreTLS: c.security === 'none',
        ...(o.ca ? { tls: { ca: o.ca } } : {}),
        auth: c.user ? { user: c.user, pass: c.password ?? '' } : undefined,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      try {
        const info = await transport.sendMail({
          from: c.from,
          to: c.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          // The same Message-ID on every retry of one delivery, so a mailbox can drop a repeat.
          messageId: m.messageId,
        });
        return String(info.response ?? 'accepted')
          .replace(/\s+/g, ' ')
          .slice(0, 120);
      } catch (err) {
        throw smtpError(c, err);
      } finally {
        transport.close();
      }
    },
  };
}
export type SmtpClient = ReturnType<typeof createSmtpClient>;

/** Node's codes for a certificate that does not verify (self-signed, unknown authority, expired, wrong name). */
const CERT_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function smtpError(c: SmtpSettings, err: unknown): ChannelSendError {
  const e = err as {
    code?: string;
    originalCode?: string;
    command?: string;
    responseCode?: number;
    response?: string;
    message?: string;
  };
  const where = `${c.host}:${c.port}`;
  if (err instanceof DestinationRefusedError) return new ChannelSendError(PROVIDER, `refused: ${err.message}`, false);
  // A setting to fix, not an outage: retrying cannot help.
  if (e.originalCode && CERT_CODE.test(e.originalCode))
    return new ChannelSendError(
      PROVIDER,
      `${where} has a TLS certificate that is not trusted (${(e.message ?? e.originalCode).slice(0, 200)})`,
      false,
    );
  if (e.code === 'ETLS' && e.command === 'STARTTLS')
    return new ChannelSendError(
      PROVIDER,
      `${where} does not offer STARTTLS; choose TLS or None for this server`,
      false,
      {
        upstreamStatus: e.responseCode,
      },
    );
  if (e.responseCode) {
    const line = (e.response ?? e.message ?? '').replace(/\s+/g, ' ').slice(0, 120);
    // 4xx is a temporary refusal by SMTP's own rule; 5xx (a refused login or recipient) is final.
    return new ChannelSendError(PROVIDER, `${where} refused: ${line}`, e.responseCode < 500, {
      upstreamStatus: e.responseCode,
    });
  }
  if (e.code === 'EAUTH') return new ChannelSendError(PROVIDER, `${where} refused the login`, false);
  if (e.code === 'ETIMEDOUT')
    return new ChannelSendError(PROVIDER, `${where} did not answer in time`, true, { timeout: true });
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN')
    return new ChannelSendError(PROVIDER, `cannot resolve ${c.host}`, true);
  if (e.code === 'ESOCKET' || e.code === 'ECONNECTION' || e.code === 'EDNS')
    return new ChannelSendError(PROVIDER, `cannot reach ${where} (${(e.message ?? '').slice(0, 200)})`, true);
  return new ChannelSendError(PROVIDER, `${where}: ${(e.message ?? 'failed').slice(0, 200)}`, true);
}
