// Builds each view in src/ into one self-contained HTML document: functions/aws_data_mcp/views/<view>.html.
// `node build.mjs` writes them (`make views`); `node build.mjs --out DIR` writes them to DIR (the test that the
// shipped files are what the build makes); `--host` also builds the browser tests' two host pages into test/.build/.
//
// The script is minified and inline, as is: no compression to undo, no loader, nothing fetched, so the host's
// default CSP ('unsafe-inline', no network) holds. It stays small because the views speak MCP Apps through
// src/bridge.ts rather than ext-apps' App (which brings the MCP client's Protocol and zod: 330 KB whose set-up
// dominated first paint). Each view must stay within MAX_KB.
import * as esbuild from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const VIEWS = ["query-results", "access"];
const MAX_KB = 150;
const args = process.argv.slice(2);
const out = args.includes("--out") ? args[args.indexOf("--out") + 1] : join(HERE, "..", "functions", "aws_data_mcp", "views");

// zod's namespace re-exports every locale (120 KB); the views speak English only.
const englishOnly = {
  name: "english-only",
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (found) => ({ path: found.path, namespace: "english-only" }));
    build.onLoad({ filter: /.*/, namespace: "english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";', resolveDir: HERE,
    }));
  },
};

async function bundle(entry) {
  const built = await esbuild.build({
    entryPoints: [join(HERE, entry)], bundle: true, minify: true, format: "iife", target: "es2022", write: false,
    legalComments: "none", charset: "utf8", plugins: [englishOnly], absWorkingDir: HERE,
  });
  return built.outputFiles[0].text;
}

function documentOf(title, css, script) {
  if (/<\/script/i.test(script)) throw new Error(`${title}: the script holds "</script", which would end it early`);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<title>${title}</title><style>${css}</style></head><body><main id="root"></main>`
    + `<script>${script}</script></body></html>\n`;
}

mkdirSync(out, { recursive: true });
const css = readFileSync(join(HERE, "src", "style.css"), "utf8").replace(/\s*\n\s*/g, "");
const titles = { "query-results": "Query results", access: "Access" };
for (const view of VIEWS) {
  const html = documentOf(titles[view], css, await bundle(`src/${view}.ts`));
  if (Buffer.byteLength(html) > MAX_KB * 1024) throw new Error(`${view}.html weighs more than ${MAX_KB} KB`);
  writeFileSync(join(out, `${view}.html`), html);
  console.log(`${view}.html ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB`);
}
if (args.includes("--host")) {
  mkdirSync(join(HERE, "test", ".build"), { recursive: true });
  writeFileSync(join(HERE, "test", ".build", "host.js"), await bundle("test/host.ts"));
  writeFileSync(join(HERE, "test", ".build", "docs-host.js"), await bundle("test/docs-host.ts"));
}
