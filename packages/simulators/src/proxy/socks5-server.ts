import net from 'node:net';
import { loopbackTarget } from './loopback.ts';

const REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  refused: 0x05,
  commandNotSupported: 0x07,
  addressNotSupported: 0x08,
} as const;

/** Reads exact byte counts from a socket whose data may arrive in any fragmentation. */
class ByteReader {
  private buffered = Buffer.alloc(0);
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;

  constructor(private readonly socket: net.Socket) {
    socket.on('data', this.onData);
    socket.on('close', () => this.waiting?.reject(new Error('closed')));
  }

  private onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.settle();
  };

  private settle() {
    if (this.waiting && this.buffered.length >= this.waiting.n) {
      const { n, resolve } = this.waiting;
      this.waiting = null;
      const out = this.buffered.subarray(0, n);
      this.buffered = this.buffered.subarray(n);
      resolve(out);
    }
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.settle();
    });
  }

  /** Stops reading and returns whatever arrived beyond the handshake, so it can be forwarded. */
  detach(): Buffer {
    this.socket.off('data', this.onData);
    this.socket.pause();
    return this.buffered;
  }
}

function reply(socket: net.Socket, code: number) {
  // BND.ADDR 0.0.0.0:0: clients of CONNECT do not use it.
  socket.write(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
}

function formatIPv6(b: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return groups.join(':');
}

export type Socks5Options = {
  username?: string;
  password?: string;
  onTunnel: (client: net.Socket, upstream: net.Socket) => void;
  /** The loopback address for a requested host, or null (default: loopback addresses only). */
  targetOf?: (host: string) => string | null;
};

/** One SOCKS5 session (RFC 1928, with RFC 1929 username/password when credentials are set): CONNECT only. */
export async function handleSocks5(socket: net.Socket, opts: Socks5Options): Promise<void> {
  const reader = new ByteReader(socket);
  const needAuth = opts.username !== undefined;

  const [version, nMethods] = await reader.read(2);
  if (version !== 0x05) return void socket.destroy();
  const methods = await reader.read(nMethods ?? 0);
  const wanted = needAuth ? 0x02 : 0x00;
  if (!methods.includes(wanted)) {
    socket.end(Buffer.from([0x05, 0xff]));
    return;
  }
  socket.write(Buffer.from([0x05, wanted]));

  if (needAuth) {
    const [authVersion, uLen] = await reader.read(2);
    const user = (await reader.read(uLen ?? 0)).toString('utf8');
    const [pLen] = await reader.read(1);
    const pass = (await reader.read(pLen ?? 0)).toString('utf8');
    if (authVersion !== 0x01 || user !== opts.username || pass !== (opts.password ?? '')) {
      socket.end(Buffer.from([0x01, 0x01]));
      return;
    }
    socket.write(Buffer.from([0x01, 0x00]));
  }

  const [, command, , addressType] = await reader.read(4);
  let host: string;
  if (addressType === 0x01) host = [...(await reader.read(4))].join('.');
  else if (addressType === 0x04) host = formatIPv6(await reader.read(16));
  else if (addressType === 0x03) {
    const [len] = await reader.read(1);
    host = (await reader.read(len ?? 0)).toString('utf8');
  } else {
    reply(socket, REPLY.addressNotSupported);
    return void socket.end();
  }
  const port = (await reader.read(2)).readUInt16BE(0);
  if (command !== 0x01) {
    reply(socket, REPLY.commandNotSupported);
    return void socket.end();
  }
  const target = (opts.targetOf ?? loopbackTarget)(host);
  if (!target) {
    reply(socket, REPLY.notAllowed);
    return void socket.end();
  }

  const upstream = net.connect({ host: target, port, noDelay: true });
  upstream.once('error', (err: NodeJS.ErrnoException) => {
    const code =
      err.code === 'ECONNREFUSED'
        ? REPLY.refused
        : err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH'
          ? REPLY.hostUnreachable
          : REPLY.generalFailure;
    if (socket.writable) {
      reply(socket, code);
      socket.end();
    }
  });
  upstream.once('connect', () => {
    reply(socket, REPLY.succeeded);
    const early = reader.detach();
    if (early.length) upstream.write(early);
    opts.onTunnel(socket, upstream);
  });
}
