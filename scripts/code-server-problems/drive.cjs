// drive.cjs: headless Chromium on code-server: open orders/order.json from the Explorer, open the
// Problems panel, wait for jstk's diagnostics, print the panel's text, write a screenshot.
// usage: node drive.cjs URL SCREENSHOT USER_DATA_DIR   (NODE_PATH must hold playwright-core)
const { chromium } = require('playwright-core');

const [url, shot, profile] = process.argv.slice(2);
(async () => {
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  let ok = false;
  try {
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.waitForSelector('.explorer-folders-view', { timeout: 60000 }).catch(() => {});
    await page.waitForTimeout(3000);
    // Open the file from the Explorer: the folder, then the file.
    const explorer = page.locator('.explorer-folders-view');
    await explorer.getByText('orders', { exact: true }).click();
    await explorer.getByText('order.json', { exact: true }).click({ timeout: 20000 });
    await page.waitForSelector('.monaco-editor .view-lines', { timeout: 30000 });
    await page.keyboard.press('Control+Shift+M');
    const panel = page.locator('.markers-panel');
    await panel.waitFor({ timeout: 30000 });
    // jstk's diagnostics arrive once the extension has started jstk lsp.
    for (let i = 0; i < 60 && !ok; i++) {
      const text = await panel.innerText().catch(() => '');
      ok = /jstk/.test(text) || /not allowed|minimum|less than/i.test(text);
      if (!ok) await page.waitForTimeout(1000);
    }
    await page.waitForTimeout(1000);
    console.log('--- Problems panel ---');
    console.log((await panel.innerText().catch(() => '')).trim());
    console.log('--- status bar problems ---');
    console.log(await page.locator('#status\\.problems').innerText().catch(() => '?'));
    console.log('--- tab ---');
    console.log((await page.locator('.tabs-container .tab.active').innerText().catch(() => '?')).replace(/\s+/g, ' '));
    const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    console.log('--- rows ---');
    for (const r of rows) console.log(r.replace(/\s+/g, ' ').trim());
  } finally {
    await page.screenshot({ path: shot });
    await ctx.close();
  }
  if (!ok) {
    console.error('drive.cjs: no jstk diagnostic in the Problems panel within 60 s (see the screenshot)');
    process.exit(1);
  }
})().catch((e) => { console.error(e); process.exit(1); });
