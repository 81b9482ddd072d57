import ssh2 from 'ssh2';

type Pair = { private: string; public: string };

/**
 * ssh2's generateKeyPairSync now and then writes an ed25519 key whose public half lost a leading zero byte
 * (about 1 in 300), which ssh2 itself then cannot parse. Draw again until the key parses.
 */
export function generateSshKeyPair(
  type: 'ed25519' | 'rsa' = 'ed25519',
  opts: { comment?: string; bits?: number } = {},
): Pair {
  for (let attempt = 1; ; attempt++) {
    const pair =
      type === 'rsa'
        ? ssh2.utils.generateKeyPairSync('rsa', { bits: opts.bits ?? 2048, comment: opts.comment })
        : ssh2.utils.generateKeyPairSync('ed25519', { comment: opts.comment });
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) || attempt >= 10) return pair;
  }
}
