import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { SsoCallbackPage } from './sso-callback-page.tsx';

/**
 * The page the API's OIDC callback sends the browser to. Rendered once, as the browser first paints it: the reason in
 * `?error=` is shown at once (the effect that exchanges a code does not run here, and none is exchanged for an error).
 */
const render = (search: string) =>
  renderToStaticMarkup(
    <MemoryRouter initialEntries={[`/sso/callback${search}`]}>
      <SsoCallbackPage />
    </MemoryRouter>,
  );
/** The alert's words, without the markup around them. */
const alertOf = (html: string) => /<div class="alert alert-danger" role="alert">([^<]*)<\/div>/.exec(html)?.[1];

describe('the single sign-on callback page', () => {
  it('tells a group overage in words, rather than a failure without a reason (issue 43)', () => {
    const html = render('?error=groups_overage');
    expect(alertOf(html)).toBe(
      'Your account at the provider is in more groups than its sign-in can list, so your roles cannot be read. Ask an administrator to have the provider send only the groups given to this application.',
    );
    expect(html).toContain('href="/login"');
  });

  it('says a sign-in failed, and where to look, for a reason it does not know or no code at all', () => {
    const failed = 'Single sign-on failed. Please try again, or ask an administrator to look at the audit log.';
    expect(alertOf(render('?error=something_new'))).toBe(failed);
    expect(alertOf(render(''))).toBe(failed);
  });

  it('shows no error while a code is being exchanged', () => {
    const html = render('?code=one-time-code');
    expect(alertOf(html)).toBeUndefined();
    expect(html).toContain('role="status"');
  });
});
