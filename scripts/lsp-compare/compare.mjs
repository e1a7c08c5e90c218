// compare.mjs: every required case of the JSON-Schema-Test-Suite, opened as an editor document
// with its schema associated, through three language tools: jstk (speaking LSP over stdio to
// `jstk lsp`, the schema mapped by the workspace's jstk.json), vscode-json-languageservice and
// yaml-language-server (by their APIs, the schema registered with configure and served by a
// schemaRequestService). A tool is right on a test when it gives diagnostics exactly when the test
// is invalid. Remote refs (http://localhost:1234/...) are served from the suite's remotes/ for all
// three. Run it with run.sh, which installs the two npm packages into a temporary directory.
//
// usage: node compare.mjs JSTK_BINARY SUITE_DIR NODE_MODULES_DIR
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

const [jstkBin, suiteDir, modulesDir] = process.argv.slice(2);
if (!jstkBin || !suiteDir || !modulesDir) {
  console.error('usage: node compare.mjs JSTK_BINARY SUITE_DIR NODE_MODULES_DIR');
  process.exit(2);
}
const req = createRequire(path.join(path.resolve(modulesDir), 'x.js'));
const jsonls = req('vscode-json-languageservice');
const yamlls = await import(pathToFileURL(req.resolve('yaml-language-server')).href);
const { TextDocument } = req('vscode-languageserver-textdocument');
const remotes = path.resolve(suiteDir, 'remotes');
const version = (name) => JSON.parse(fs.readFileSync(path.join(modulesDir, name, 'package.json'))).version;

const drafts = [
  ['draft4', 'http://json-schema.org/draft-04/schema#'],
  ['draft6', 'http://json-schema.org/draft-06/schema#'],
  ['draft7', 'http://json-schema.org/draft-07/schema#'],
  ['draft2019-09', 'https://json-schema.org/draft/2019-09/schema'],
  ['draft2020-12', 'https://json-schema.org/draft/2020-12/schema'],
];

// Reads a schema for the two npm tools: file:// from disk, the suite's remotes for
// http://localhost:1234/, anything else refused (no network), as an offline editor would.
async function fetchSchema(uri) {
  if (uri.startsWith('file://')) return fs.readFileSync(fileURLToPath(uri), 'utf8');
  if (uri.startsWith('http://localhost:1234/')) {
    return fs.readFileSync(path.join(remotes, uri.slice('http://localhost:1234/'.length).split('#')[0]), 'utf8');
  }
  throw new Error(`not fetched (offline): ${uri}`);
}
const workspaceContext = { resolveRelativePath: (rel, res) => new URL(rel, res).href };

// A minimal LSP client over stdio: Content-Length framing, requests by id.
class Client {
  constructor(bin, cwd) {
    this.proc = spawn(bin, ['lsp'], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
    this.buf = Buffer.alloc(0);
    this.next = 1;
    this.waiting = new Map();
    this.proc.stdout.on('data', (d) => this.read(d));
  }
  read(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /Content-Length: *(\d+)/i.exec(this.buf.slice(0, end).toString());
      const len = Number(m[1]);
      if (this.buf.length < end + 4 + len) return;
      const msg = JSON.parse(this.buf.slice(end + 4, end + 4 + len).toString());
      this.buf = this.buf.slice(end + 4 + len);
      if (msg.id !== undefined && !msg.method && this.waiting.has(msg.id)) {
        const w = this.waiting.get(msg.id);
        this.waiting.delete(msg.id);
        msg.error ? w.reject(new Error(JSON.stringify(msg.error))) : w.resolve(msg.result);
      } else if (msg.id !== undefined && msg.method) {
        // A request from the server (workspace/configuration, registerCapability): answer null.
        this.send({ jsonrpc: '2.0', id: msg.id, result: null });
      }
    }
  }
  send(msg) {
    const body = Buffer.from(JSON.stringify(msg));
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }
  request(method, params) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }
  notify(method, params) { this.send({ jsonrpc: '2.0', method, params }); }
}

function loadCases(draft, meta, ws) {
  const dir = path.join(suiteDir, 'tests', draft);
  const cases = [];
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).forEach((c, ci) => {
      let schema = c.schema;
      // The case's draft, said as a schema file says it (the suite leaves it to the runner).
      if (schema && typeof schema === 'object' && !('$schema' in schema)) schema = { $schema: meta, ...schema };
      const cdir = `c${cases.length}`;
      fs.mkdirSync(path.join(ws, cdir));
      const schemaPath = path.join(ws, cdir, 'schema.json');
      fs.writeFileSync(schemaPath, JSON.stringify(schema, null, 2));
      cases.push({
        dir: cdir, schemaUri: pathToFileURL(schemaPath).href,
        tests: c.tests.map((t, ti) => ({
          id: `${draft}/${f} #${ci} ${c.description} / ${t.description}`,
          uri: pathToFileURL(path.join(ws, cdir, `i${ti}.json`)).href,
          text: JSON.stringify(t.data, null, 2), valid: t.valid,
        })),
      });
    });
  }
  return cases;
}

async function runJstk(ws, cases) {
  const schemas = Object.fromEntries(cases.map((c) => [`${c.dir}/schema.json`, `${c.dir}/i*.json`]));
  fs.writeFileSync(path.join(ws, 'jstk.json'), JSON.stringify({ resolve: { 'http://localhost:1234/': remotes }, schemas }));
  const cl = new Client(path.resolve(jstkBin), ws);
  const wsUri = pathToFileURL(ws).href;
  await cl.request('initialize', {
    processId: process.pid, rootUri: wsUri, workspaceFolders: [{ uri: wsUri, name: 'suite' }],
    capabilities: { textDocument: { diagnostic: {}, publishDiagnostics: {} } },
  });
  cl.notify('initialized', {});
  const out = [];
  for (const c of cases) {
    for (const t of c.tests) {
      cl.notify('textDocument/didOpen', { textDocument: { uri: t.uri, languageId: 'json', version: 1, text: t.text } });
      const r = await cl.request('textDocument/diagnostic', { textDocument: { uri: t.uri } });
      cl.notify('textDocument/didClose', { textDocument: { uri: t.uri } });
      out.push(r.items || []);
    }
  }
  await cl.request('shutdown', null);
  cl.notify('exit', null);
  return out;
}

async function runJsonLS(cases) {
  const ls = jsonls.getLanguageService({ schemaRequestService: fetchSchema, workspaceContext });
  const out = [];
  for (const c of cases) {
    ls.configure({ validate: true, allowComments: false, schemas: [{ uri: c.schemaUri, fileMatch: [`/${c.dir}/*.json`] }] });
    for (const t of c.tests) {
      const doc = TextDocument.create(t.uri, 'json', 1, t.text);
      out.push(await ls.doValidation(doc, ls.parseJSONDocument(doc), { schemaValidation: 'error', schemaRequest: 'error' }));
    }
  }
  return out;
}

async function runYamlLS(cases) {
  const ls = yamlls.getLanguageService({ schemaRequestService: fetchSchema, workspaceContext });
  const out = [];
  for (const c of cases) {
    ls.configure({ validate: true, schemas: [{ uri: c.schemaUri, fileMatch: [`/${c.dir}/*.json`] }] });
    for (const t of c.tests) {
      out.push(await ls.doValidation(TextDocument.create(t.uri, 'yaml', 1, t.text), false));
    }
  }
  return out;
}

const tools = [
  ['jstk lsp', runJstk],
  [`vscode-json-languageservice ${version('vscode-json-languageservice')}`, (ws, cases) => runJsonLS(cases)],
  [`yaml-language-server ${version('yaml-language-server')}`, (ws, cases) => runYamlLS(cases)],
];
const verbose = process.env.LSP_COMPARE_VERBOSE === '1';
const totals = tools.map(() => ({ n: 0, right: 0, wrong: 0, silent: 0 }));
for (const [draft, meta] of drafts) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), `lsp-compare-${draft}-`));
  const cases = loadCases(draft, meta, ws);
  const tests = cases.flatMap((c) => c.tests);
  console.log(`\n${draft}: ${cases.length} schemas, ${tests.length} instances`);
  console.log('| tool | cases | right | wrong | wrong, no diagnostic | rate |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [ti, [name, run]] of tools.entries()) {
    const diags = await run(ws, cases);
    let right = 0, wrong = 0, silent = 0;
    tests.forEach((t, i) => {
      const has = diags[i].length > 0;
      if (has !== t.valid) { right++; return; }
      wrong++;
      if (!has) silent++;
      if (verbose) console.log(`  ${name} wrong: ${t.id}: valid=${t.valid}${has ? ': ' + diags[i][0].message : ', no diagnostic'}`);
    });
    Object.assign(totals[ti], { n: totals[ti].n + tests.length, right: totals[ti].right + right, wrong: totals[ti].wrong + wrong, silent: totals[ti].silent + silent });
    console.log(`| ${name} | ${tests.length} | ${right} | ${wrong} | ${silent} | ${(100 * right / tests.length).toFixed(1)}% |`);
  }
  fs.rmSync(ws, { recursive: true, force: true });
}
console.log('\nall drafts');
console.log('| tool | cases | right | wrong | wrong, no diagnostic | rate |');
console.log('|---|---:|---:|---:|---:|---:|');
tools.forEach(([name], i) => {
  const t = totals[i];
  console.log(`| ${name} | ${t.n} | ${t.right} | ${t.wrong} | ${t.silent} | ${(100 * t.right / t.n).toFixed(1)}% |`);
});
