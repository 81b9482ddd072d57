import { startSmtpCatcher, type SmtpCatcher } from '@fleetdesk/simulators/smtp/index.ts';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelSendError } from './errors.ts';
import { createSmtpClient, type SmtpSettings } from './smtp.ts';

/** The catchers listen on loopback: let the client reach them (decision 058 refuses it by default). */
const LOOPBACK = { allowPrivate: true };

// Email over STARTTLS and over TLS, against the catcher with a certificate made now (no key is kept in the repo).
let cert: string;
let starttls: SmtpCatcher;
let implicit: SmtpCatcher;
let plain: SmtpCatcher;
const users = { alerts: 'smtp-pa55' };

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  cert = pems.cert;
  const tls = { key: pems.private, cert: pems.cert };
  [starttls, implicit, plain] = await Promise.all([
    startSmtpCatcher({ users, tls }),
    startSmtpCatcher({ users, tls, secure: true }),
    startSmtpCatcher({ users }),
  ]);
});
afterAll(async () => Promise.all([starttls?.close(), implicit?.close(), plain?.close()]));

const settings = (server: SmtpCatcher, security: SmtpSettings['security']): SmtpSettings => ({
  host: '127.0.0.1',
  port: server.port,
  security,
  user: 'alerts',
  password: 'smtp-pa55',
  from: 'fleetdesk@example.com',
  to: 'ops@example.com',
});
const message = (subject: string) => ({ subject, text: 'text', html: '<p>html</p>', messageId: `<${subject}@t>` });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as ChannelSendError;
  }
  throw new Error('the send did not fail');
};

describe('SMTP over TLS', () => {
  it('upgrades with STARTTLS, trusting the certificate, and logs in over it', async () => {
    const answer = await createSmtpClient({ ca: cert, destinations: LOOPBACK }).send(
      settings(starttls, 'starttls'),
      message('over STARTTLS'),
    );
    expect(answer).toMatch(/^250 .*Message queued/);
    expect(starttls.mails.at(-1)).toMatchObject({ subject: 'over STARTTLS', secure: true, to: ['ops@example.com'] });
  });

  it('speaks TLS from the first byte', async () => {
    const answer = await createSmtpClient({ ca: cert, destinations: LOOPBACK }).send(
      settings(implicit, 'tls'),
      message('over TLS'),
    );
    expect(answer).toMatch(/^250 /);
    expect(implicit.mails.at(-1)).toMatchObject({ subject: 'over TLS', secure: true });
  });

  it('refuses a certificate it does not trust, for good, naming the reason', async () => {
    const err = await failure(
      createSmtpClient({ destinations: LOOPBACK }).send(settings(starttls, 'starttls'), message('untrusted')),
    );
    expect(err).toBeInstanceOf(ChannelSendError);
    expect(err.message).toMatch(/^SMTP: 127\.0\.0\.1:\d+ has a TLS certificate that is not trusted \(.*self-signed/);
    expect(err.temporary).toBe(false);
    const tls = await failure(
      createSmtpClient({ destinations: LOOPBACK }).send(settings(implicit, 'tls'), message('untrusted')),
    );
    expect(tls.message).toMatch(/has a TLS certificate that is not trusted/);
  });

  it('does not send in clear when STARTTLS is asked for and the server has none', async () => {
    const err = await failure(
      createSmtpClient({ ca: cert, destinations: LOOPBACK }).send(settings(plain, 'starttls'), message('clear')),
    );
    expect(err.message).toMatch(/^SMTP: 127\.0\.0\.1:\d+ does not offer STARTTLS; choose TLS or None/);
    expect(err.temporary).toBe(false);
    expect(plain.mails).toHaveLength(0);
  });

  it('is refused a login in clear by a server that offers STARTTLS', async () => {
    const err = await failure(
      createSmtpClient({ ca: cert, destinations: LOOPBACK }).send(settings(starttls, 'none'), message('no tls')),
    );
    expect(err.message).toMatch(/^SMTP: 127\.0\.0\.1:\d+ refused: 538 /);
  });
});
