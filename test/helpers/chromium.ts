// Debian's Chromium, driven through playwright-core (no browser download), for the tests that use a real browser.

// An empty DEVDATA_E2E_CHROMIUM (a CI step that found no browser) means the default too.
export const CHROMIUM = process.env.DEVDATA_E2E_CHROMIUM || '/usr/bin/chromium';

// Without the background-networking flags Chromium keeps trying to reach Google's services; the resolver rule
// fails every host but localhost and 127.0.0.1, so nothing a page loads can reach beyond loopback.
export const CHROMIUM_ARGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
