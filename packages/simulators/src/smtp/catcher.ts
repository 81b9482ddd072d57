import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/**
 * A local SMTP server that keeps what it receives (tests and the demo's inbox): the raw message, the envelope
 * and the parts read from it (subject, text and HTML of a multipart/alternative message, decoded). It can
 * refuse the next messages with an SMTP reply (a 4xx or 5xx) to test failures, and require a login. Given a
 * key and certificate it speaks TLS: STARTTLS on a plain port (and, as real servers do, no login before it), or
 * TLS from the first byte with `secure`.
 */
export interface CaughtMail {
  id: number;
  at: Date;
  from: string;
  to: string[];
  subject: string;
  messageId: string | null;
  text: string;
  html: string;
  raw: string;
  /** Received over TLS (STARTTLS or from the first byte). */
  secure: boolean;
}

export interface SmtpCatcherOptions {
  port?: number;
  /** user → password; when set, a login is required. */
  users?: Record<string, string>;
  /** Kept at most (the oldest go first). */
  keep?: number;
  /** PEM key and certificate: STARTTLS is offered (a login needs it first). */
  tls?: { key: string; cert: string };
  /** With `tls`: TLS from the first byte (port 465 style) instead of STARTTLS. */
  secure?: boolean;
}

export interface SmtpCatcher {
  port: number;
  host: string;
  mails: CaughtMail[];
  /** The next `count` messages are refused with this reply (e.g. 451 or 550). */
  refuse(code: number, message: string, count?: number): void;
  close(): Promise<void>;
}

const MAX_MESSAGE = 1024 * 1024;

export async function startSmtpCatcher(o: SmtpCatcherOptions = {}): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  let nextId = 1;
  let refusal: { code: number; message: string; count: number } | null = null;
  const tls = o.tls;
  const options: SMTPServerOptions = {
    secure: !!(tls && o.secure),
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    // Without a certificate there is no STARTTLS to offer; with one, a login waits for it (or for `secure`).
    disabledCommands: [...(tls ? [] : ['STARTTLS']), ...(o.users ? [] : ['AUTH'])],
    authOptional: !o.users,
    allowInsecureAuth: !tls,
    size: MAX_MESSAGE,
    logger: false,
    onAuth(auth, _session, cb) {
      if (o.users && auth.username && o.users[auth.username] === auth.password)
        return cb(null, { user: auth.username });
      return cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_MESSAGE) chunks.push(c);
      });
      stream.on('end', () => {
        if (refusal && refusal.count > 0) {
          const r = refusal;
          refusal.count--;
          if (!refusal.count) refusal = null;
          return cb(Object.assign(new Error(r.message), { responseCode: r.code }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          id: nextId++,
          at: new Date(),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          ...parseMessage(raw),
          raw,
          secure: session.secure,
        });
        if (mails.length > (o.keep ?? 500)) mails.splice(0, mails.length - (o.keep ?? 500));
        cb(null, `Message queued as fd${nextId - 1}`);
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    host: '127.0.0.1',
    mails,
    refuse(code, message, count = 1) {
      refusal = { code, message, count };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers and the text/HTML parts of a (possibly multipart) message; enough for what nodemailer writes. */
function parseMessage(raw: string): { subject: string; messageId: string | null; text: string; html: string } {
  const { headers, body } = split(raw);
  const subject = decodeWords(headers.get('subject') ?? '');
  const messageId = headers.get('message-id') ?? null;
  const parts: { type: string; body: string }[] = [];
  const walk = (h: Map<string, string>, b: string) => {
    const type = h.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (/^multipart\//i.test(type) && boundary) {
      for (const chunk of b.split(`--${boundary}`).slice(1)) {
        if (chunk.startsWith('--')) break;
        const p = split(chunk.replace(/^\r?\n/, ''));
        walk(p.headers, p.body);
      }
      return;
    }
    parts.push({
      type: (type.split(';')[0] ?? '').trim().toLowerCase(),
      body: decodeBody(b, h.get('content-transfer-encoding')),
    });
  };
  walk(headers, body);
  return {
    subject,
    messageId,
    text: parts.find((p) => p.type === 'text/plain')?.body ?? '',
    html: parts.find((p) => p.type === 'text/html')?.body ?? '',
  };
}

function split(raw: string) {
  const at = raw.search(/\r?\n\r?\n/);
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body };
}

function decodeBody(b: string, enc: string | undefined) {
  const e = (enc ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(b.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const bytes = b
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return b;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=) in a header. */
function decodeWords(v: string) {
  return v
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _cs: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}
