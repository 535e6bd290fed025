// Drives headless Chromium through both views against a running server, as an MCP Apps host would show them, and
// prints what a person would see as one JSON object (tests/resources/test_views_browser.py judges it).
// Usage: node test/browser.mjs <server URL> <screenshot dir>   (after `node build.mjs --host`)
import { join } from "node:path";
import { firstPaint, openHost } from "./session.mjs";

const [url, shots] = process.argv.slice(2);
const QUERY = { database: "sales", max_rows: 10, sql: "SELECT order_date, count(*) AS orders, sum(total_amount) AS total "
  + "FROM orders WHERE order_date BETWEEN '2026-01-01' AND '2026-01-20' GROUP BY order_date ORDER BY order_date" };
const THOUSAND = { database: "sales", max_rows: 1000, sql: "SELECT order_id, total_amount "
  + "FROM orders WHERE order_date = '2026-01-01' ORDER BY order_id LIMIT 1000" };
const CUTOFF = { database: "sales", sql: "SELECT * FROM orders" }; // a full scan: over the workgroup's 10 MB cutoff
const CUT_VALUE = { database: "sales", sql: "SELECT 1 AS n, rpad('x', 2000000, 'y') AS big" };
const STILL_RUNNING = { database: "sales", wait_seconds: 0, sql: "SELECT count(*) AS n FROM orders "
  + "WHERE order_date = '2026-01-02'" };
const EXPLAINED = "permissions://tables/sales/raw_orders"; // the raw bucket's policy denies the demo analyst

const host = await openHost(url, "aws-data-mcp browser test host");
const { page, view } = host;
const seen = {};
const errors = [];
try {
  const network = [];
  page.on("request", (request) => { if (!/^(data|about|blob):/.test(request.url())) network.push(request.url()); });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
  await host.start();
  const texts = (selector) => view().locator(selector).allInnerTexts();

  // The query results view: rows, sorting, the next page through the bridge, the chart.
  await page.evaluate(([args]) => window.openView("athena_query", args, "light"), [QUERY]);
  await view().locator("tbody tr").first().waitFor();
  seen.header = await view().locator("header").innerText();
  seen.columns = await texts("thead th");
  seen.numeric = await view().locator("td.num").count() > 0 && await view().locator("tbody td.num").first().evaluate((td) => getComputedStyle(td).textAlign);
  seen.first_rows = (await texts("tbody tr")).length;
  seen.first_dates = await texts("tbody tr td:first-child");
  seen.lines = await view().locator("svg path.mark").count(); // a time column: a line by default
  await view().locator("thead th", { hasText: "total" }).click();
  await view().locator("thead th", { hasText: "total" }).click();
  seen.sorted_totals = (await texts("tbody tr td:nth-child(3)")).map((text) => Number(text.replace(/,/g, "")));
  await view().locator("#more").click();
  await page.waitForFunction(() => window.bridged.some((call) => call.startsWith("resources/read athena://queries/")));
  await view().locator("tbody tr:nth-child(11)").waitFor();
  seen.after_next_page = (await texts("tbody tr")).length;
  seen.count_line = await view().locator("#count").innerText();
  await view().locator("button[data-chart=bar]").click();
  seen.bars = await view().locator("svg rect.mark").count();
  await view().locator("#csv").click();
  await page.waitForFunction(() => window.bridged.includes("ui/download-file"));
  await page.screenshot({ path: join(shots, "query-results.png") });

  // The other states of an answer: stopped by the cutoff (an error answer, with its cost), a value cut to fit, and
  // a query still running (read again through the host until it has rows).
  await page.evaluate(([args]) => window.openView("athena_query", args, "light"), [CUTOFF]);
  await view().locator("#failure").waitFor();
  seen.cutoff = { header: await view().locator("header").innerText(), failure: await view().locator("#failure").innerText(),
    buttons: await texts("button"), rows: await view().locator("tbody tr").count() };
  await page.evaluate(([args]) => window.openView("athena_query", args, "light"), [CUT_VALUE]);
  await view().locator("td.cut").waitFor();
  seen.cut = { cells: await view().locator("td.cut").count(), title: await view().locator("td.cut").getAttribute("title"),
    note: await view().locator("#cut-note").innerText(), header: await view().locator("header").innerText() };
  await page.evaluate(([args]) => window.openView("athena_query", args, "light"), [STILL_RUNNING]);
  await view().locator("#refresh").waitFor();
  seen.running = { header: await view().locator("header").innerText(), step: await view().locator("p.muted").first().innerText() };
  for (let tries = 0; tries < 40 && !await view().locator("tbody tr").count(); tries++) {
    if (await view().locator("#refresh:not([disabled])").count()) await view().locator("#refresh").click();
    await page.waitForTimeout(250);
  }
  seen.running.after = { header: await view().locator("header").innerText(), rows: await texts("tbody tr"),
    buttons: await texts("button") };

  // 1,000 rows handed over whole paint (how fast is `make bench`'s to say, beside a plain table's).
  const thousand = await host.client.callTool({ name: "athena_query", arguments: THOUSAND });
  await page.evaluate(([answer]) => window.openView("athena_query", {}, "light", answer), [thousand]);
  seen.painted = await firstPaint(await host.frame()) > 0;
  await (await host.frame()).locator("tbody tr").nth(999).waitFor();
  seen.thousand_rows = await (await host.frame()).locator("tbody tr").count();

  // The access view, dark: the matrix, and a denial's evidence and fix.
  await page.evaluate(() => window.openView("show_access", {}, "dark"));
  await view().locator("table.matrix td").first().waitFor();
  seen.matrix_rows = await texts("table.matrix tbody th");
  seen.matrix_actions = await texts("table.matrix thead th");
  seen.verdicts = [...new Set(await texts("table.matrix td .badge"))].sort();
  await view().locator("table.matrix tr", { hasText: "acme-logs-archive" }).locator("td", { hasText: "denied" }).first().click();
  seen.detail = await view().locator("#detail").innerText();
  seen.fix = await view().locator("#fix").innerText();
  seen.dark_background = await view().locator("body").evaluate((body) => getComputedStyle(body).backgroundColor);
  // The bucket's own explainer, read through the host: the exact fix, and back to the matrix.
  await view().locator("#explain").click();
  await view().locator("table.chain").waitFor();
  seen.drilled = { header: await view().locator("header").innerText(), fix: await view().locator("#fix").innerText() };
  await view().locator("#back").click();
  seen.drilled.back = (await texts("table.matrix tbody th")).length;

  // The access view on an explainer: the chain of links, the denied link's evidence and its fix, who applies it.
  await page.evaluate(([uri]) => window.openView("show_access", { uri }, "light"), [EXPLAINED]);
  await view().locator("table.chain").waitFor();
  seen.explainer = { header: await view().locator("header").innerText(),
    read_columns: await view().locator("#read-columns").innerText(),
    groups: await texts("table.chain tr.group"), links: await texts("table.chain tr[data-check] td:first-child"),
    detail: await view().locator("#detail").innerText(), fix: await view().locator("#fix").innerText() };
  await view().locator("table.chain tr[data-check]", { hasText: "organizations:ServiceControlPolicies" }).click();
  seen.explainer.settle = await view().locator("#settle").innerText();
  seen.network = network;
  seen.errors = errors;
  seen.bridged = await page.evaluate(() => window.bridged);
} catch (failure) {
  console.error(`the browser saw: ${JSON.stringify({ seen, errors })}`);
  for (const frame of page.frames()) console.error((await frame.content()).split("<main")[1]?.slice(0, 1500));
  throw failure;
} finally {
  await host.close();
}
console.log(JSON.stringify(seen));
