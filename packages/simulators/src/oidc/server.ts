import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { readBody } from '../http-body.ts';
import { createMemoryAdapterFactory } from './memory-adapter.ts';

/** An account of the simulated provider; `sub` is its stable subject, `amr` what the ID token says was checked. */
export type OidcSimAccount = {
  sub: string;
  preferred_username: string;
  email: string;
  name: string;
  /** None: as Entra ID in a group overage, which names a source in `_claim_names` instead (see `extra`). */
  groups?: string[];
  /** More claims under the groups scope, as providers send them: Keycloak's `realm_access`, Entra's `_claim_names`. */
  extra?: { realm_access?: { roles: string[] }; _claim_names?: Record<string, string>; _claim_sources?: object };
  /** For the sign-in form; an account without one signs in only as `autoLogin`. */
  password?: string;
  amr?: string[];
  acr?: string;
};

export type OidcSimOptions = {
  client: { id: string; secret: string; redirectUris: string[] };
  accounts?: OidcSimAccount[];
  /** The port on 127.0.0.1 (0: any free one). */
  port?: number;
  /** Shown on the sign-in page, e.g. the demo accounts. */
  hint?: string;
};

export type OidcSim = {
  issuer: string;
  /** Mutable by tests: the accounts, who is signed in without a form, and a JWKS that lies. */
  state: {
    accounts: Map<string, OidcSimAccount>;
    /** The subject signed in at once, without the form (tests play the browser). */
    autoLogin: string | null;
    /** Publish another key under the signing key's kid: ID tokens then fail their signature check. */
    tamperJwks: boolean;
  };
  close(): Promise<void>;
};

const signingKey = (kid: string) => ({
  ...(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as object),
  kid,
  alg: 'RS256',
  use: 'sig',
});

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function loginPage(uid: string, hint: string | undefined, error?: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo identity provider</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;background:#f3f4f6;margin:0}main{max-width:360px;margin:48px auto;background:#fff;padding:24px;border-radius:8px;box-shadow:0 1px 4px #0002}
label{display:block;margin:12px 0 4px}input{width:100%;box-sizing:border-box;padding:8px;font-size:16px}button{margin-top:16px;width:100%;padding:10px;font-size:16px;background:#4338ca;color:#fff;border:0;border-radius:6px}
.error{color:#b91c1c}.hint{color:#555;font-size:14px}</style></head>
<body><main><h1>Demo identity provider</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
${hint ? `<p class="hint">${escapeHtml(hint)}</p>` : ''}
</main></body></html>`;
}

/**
 * An OpenID provider on loopback (the real `oidc-provider`, which implements the specification): one confidential
 * client, accounts with groups, a sign-in form, and consent given without asking (a first-party client).
 */
export async function startOidcSim(opts: OidcSimOptions): Promise<OidcSim> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signing = signingKey('sim-1');
  // Another key under the same kid: published instead of the real one while `tamperJwks` is on.
  const other = signingKey('sim-1') as Record<string, unknown>;
  const state: OidcSim['state'] = {
    accounts: new Map((opts.accounts ?? []).map((a) => [a.sub, a])),
    autoLogin: null,
    tamperJwks: false,
  };
  const provider = new Provider(issuer, {
    adapter: createMemoryAdapterFactory(),
    clients: [
      {
        client_id: opts.client.id,
        client_secret: opts.client.secret,
        redirect_uris: opts.client.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signing] },
    // acr and amr in every ID token, as Keycloak, Entra ID and Okta send them (oidc-provider sends them only
    // when asked for by default).
    claims: {
      openid: ['sub', 'acr', 'amr'],
      email: ['email'],
      profile: ['preferred_username', 'name'],
      groups: ['groups', 'realm_access'],
    },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    // Explicit lifetimes (seconds), so the provider does not print a notice for each default.
    ttl: { Interaction: 600, Session: 8 * 3600, Grant: 8 * 3600, AccessToken: 600, IdToken: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, id) => {
      const account = state.accounts.get(id);
      if (!account) return undefined;
      const { password: _password, amr: _amr, acr: _acr, extra, ...claims } = account;
      return { accountId: id, claims: async () => ({ ...claims, ...extra }) };
    },
    // A first-party client: consent is given without asking.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid profile email groups');
      grant.addOIDCClaims(['preferred_username', 'email', 'name', 'groups', 'realm_access']);
      await grant.save();
      return grant;
    },
  });

  type Ctx = { req: http.IncomingMessage; res: http.ServerResponse; redirect(url: string): void };
  const finish = async (ctx: Ctx, account: OidcSimAccount) => {
    const to = await provider.interactionResult(
      ctx.req,
      ctx.res,
      {
        login: {
          accountId: account.sub,
          ...(account.amr ? { amr: account.amr } : {}),
          ...(account.acr ? { acr: account.acr } : {}),
        },
      },
      { mergeWithLastSubmission: false },
    );
    ctx.redirect(to);
  };

  provider.use(async (ctx, next) => {
    const m = /^\/interaction\/([\w-]{1,100})(\/login)?$/.exec(ctx.path);
    if (m) {
      const uid = m[1]!;
      const auto = state.autoLogin ? state.accounts.get(state.autoLogin) : undefined;
      if (auto) return finish(ctx, auto);
      if (ctx.method === 'POST' && m[2]) {
        const form = new URLSearchParams(await readBody(ctx.req, 8192));
        const username = form.get('username') ?? '';
        const password = form.get('password') ?? '';
        const account = [...state.accounts.values()].find(
          (a) => a.preferred_username === username && a.password !== undefined,
        );
        const ok =
          account?.password !== undefined &&
          password.length === account.password.length &&
          crypto.timingSafeEqual(Buffer.from(password), Buffer.from(account.password));
        if (ok) return finish(ctx, account);
        ctx.type = 'html';
        ctx.body = loginPage(uid, opts.hint, 'Wrong username or password.');
        return;
      }
      ctx.type = 'html';
      ctx.body = loginPage(uid, opts.hint);
      return;
    }
    if (state.tamperJwks && ctx.path === '/jwks') {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = other;
      ctx.type = 'application/jwk-set+json';
      ctx.body = { keys: [pub] };
      return;
    }
    await next();
  });
  server.on('request', provider.callback());
  return {
    issuer,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
