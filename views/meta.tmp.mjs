import * as esbuild from "esbuild";
import { join } from "node:path";
const HERE = process.cwd();
const englishOnly = { name: "english-only", setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (found) => ({ path: found.path, namespace: "english-only" }));
    build.onLoad({ filter: /.*/, namespace: "english-only" }, () => ({ contents: 'export { default as en } from "zod/v4/locales/en.js";', resolveDir: HERE }));
}};
const protocolOnly = { name: "protocol-only", setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/client$/ }, (found) => found.importer.includes("ext-apps") ? ({ path: "p", namespace: "protocol-only" }) : undefined);
    build.onLoad({ filter: /.*/, namespace: "protocol-only" }, () => ({ contents: 'export { v as Protocol } from "./node_modules/@modelcontextprotocol/client/dist/src-CeKsbNLO.mjs";', resolveDir: HERE }));
}};
const plugins = process.argv[2] === "shim" ? [englishOnly, protocolOnly] : [englishOnly];
const r = await esbuild.build({ entryPoints: ["src/query-results.ts"], bundle: true, minify: true, format: "iife", target: "es2022", write: false, metafile: true, absWorkingDir: HERE, plugins, legalComments: "none" });
console.log(await esbuild.analyzeMetafile(r.metafile));
