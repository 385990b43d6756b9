// Signing in to the dashboard in a real Chromium with a one-time link: the user lands signed in,
// the token never stays in the address bar, the link does not work twice, and sign-out forgets
// the token (a reload stays signed out).
import { expect } from 'chai';
import { accessibilityViolations, openPage, screenshot, signInLink, useBrowser } from '../support/dashboard.js';
import { onEachDatabase } from '../support/test-server.js';

onEachDatabase('dashboard sign-in', (app) => {
  const browser = useBrowser();

  it('signs in with a one-time link, keeps the session over a reload, and signs out for good', async () => {
    const { page, context, pageErrors, cspViolations } = await openPage(browser());
    try {
      const link = await signInLink(app(), { subject: 'ui-alice', email: 'alice@example.com', name: 'Alice Example' });
      await page.goto(link);
      await page.getByTestId('user-name').filter({ hasText: 'Alice Example' }).waitFor();
      expect(page.url()).to.equal(`${app().url}/ui/`);
      await screenshot(page, `sign-in-signed-in-${app().database}`);
      expect(await accessibilityViolations(page), 'signed-in shell').to.deep.equal([]);
      await page.reload();
      await page.getByTestId('user-name').filter({ hasText: 'Alice Example' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();
      expect(await page.evaluate('sessionStorage.length')).to.equal(0);
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();

      // The same link again: refused, and said so.
      await page.goto(link);
      await page.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
      expect(page.url(), 'the token left the address bar').not.to.include('#link=');
      await screenshot(page, `sign-in-link-used-${app().database}`);
      expect(await accessibilityViolations(page), 'sign-in view').to.deep.equal([]);
      expect(pageErrors).to.deep.equal([]);
      expect(cspViolations).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
