// The benchmark of first paint (benchmarks/views.py): 1,000 rows of a real athena_query result, fetched once, shown
// in alternating rounds by the query results view and, as the baseline, as a plain HTML table of the same rows with
// no view code, in the same host and the same sandboxed frame. Paint is the frame's own first contentful paint.
// Usage: node test/bench.mjs <server URL> <rounds>   (after `node build.mjs --host`); prints one JSON object.
import { firstPaint, openHost } from "./session.mjs";

const [url, rounds] = [process.argv[2], Number(process.argv[3] ?? 10)];
const THOUSAND = { database: "sales", max_rows: 1000, sql: "SELECT order_id, total_amount "
  + "FROM orders WHERE order_date = '2026-01-01' ORDER BY order_id LIMIT 1000" };

const host = await openHost(url, "aws-data-mcp views benchmark");
const { page, frame } = host;
const figures = { result_ms: [], open_ms: [], plain_ms: [], marks: [] };
try {
  await host.start();
  const result = await host.client.callTool({ name: "athena_query", arguments: THOUSAND });
  const rows = result.structuredContent?.results?.rows?.length;
  if (result.isError || rows !== 1000) throw new Error(`athena_query answered ${rows} rows: ${result.content?.[0]?.text?.slice(0, 300)}`);
  for (let round = 0; round < rounds; round++) {
    const sent = await page.evaluate(([answer]) => window.openView("athena_query", {}, "light", answer), [result]);
    const painted = await firstPaint(await frame());
    await (await frame()).locator("tbody tr").nth(999).waitFor(); // the rest of the rows follow the first paint
    figures.result_ms.push(painted - sent);
    const opened = await page.evaluate(() => window.opened);
    figures.open_ms.push(painted - opened);
    // Where the time went: the view's own marks (script running, connected, result, rendered), from frame creation.
    figures.marks.push(Object.fromEntries(await (await frame()).evaluate((since) => performance.getEntriesByType("mark")
      .map((mark) => [mark.name, Math.round(performance.timeOrigin + mark.startTime - since)]), opened)));
    const began = await page.evaluate(([answer]) => window.openPlain(answer), [result]);
    figures.plain_ms.push(await firstPaint(await frame()) - began);
  }
  figures.html_bytes = Buffer.byteLength((await host.client.readResource({ uri: "ui://aws-data-mcp/query-results.html" })).contents[0].text);
  figures.chromium = host.browser.browser()?.version() ?? null;
} finally {
  await host.close();
}
console.log(JSON.stringify(figures));
