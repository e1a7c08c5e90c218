// Unit tests of the pure parts: which binary, which paths, which command line.

import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findJstk, Lookup } from '../src/binary';
import { confine } from '../src/paths';
import { argv, parse } from '../src/run';

const docSchema = { type: 'object', properties: { path: {}, value: {}, text: {} } };
const validateSchema = { type: 'object', properties: { schema: docSchema, instances: { type: 'array', items: docSchema }, limit: { type: 'integer' } } };
// The shape jstk writes when a document argument appears twice: once under $defs, then $ref.
const refSchema = { type: 'object', $defs: { doc: docSchema }, properties: { schema: { $ref: '#/$defs/doc' }, instances: { type: 'array', items: { $ref: '#/$defs/doc' } } } };
const listSchema = { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } }, query: { type: 'string' } } };

test('confine: paths become relative to the folder that holds them', () => {
  const cases: { name: string; input: unknown; folders: string[]; schema?: object; want: { root: string; input: unknown } }[] = [
    { name: 'relative paths stay', folders: ['/ws'],
      input: { schema: { path: 's.json' }, instances: [{ path: 'data/*.json' }, { value: 3 }], limit: 5 },
      want: { root: '/ws', input: { schema: { path: 's.json' }, instances: [{ path: 'data/*.json' }, { value: 3 }], limit: 5 } } },
    { name: 'absolute paths inside become relative', folders: ['/ws'],
      input: { schema: { path: '/ws/s.json' }, instances: [{ path: '/ws/data/a.json' }, { path: '/ws' }] },
      want: { root: '/ws', input: { schema: { path: 's.json' }, instances: [{ path: 'data/a.json' }, { path: '.' }] } } },
    { name: 'an absolute path picks its folder in a multi-root workspace', folders: ['/a', '/b'],
      input: { schema: { path: '/b/s.json' }, instances: [{ path: 'x.json' }] },
      want: { root: '/b', input: { schema: { path: 's.json' }, instances: [{ path: 'x.json' }] } } },
    { name: 'dot-dot that stays inside is fine', folders: ['/ws'],
      input: { schema: { path: 'sub/../s.json' }, instances: [] },
      want: { root: '/ws', input: { schema: { path: 's.json' }, instances: [] } } },
    { name: 'list_schemas paths', folders: ['/ws'], schema: listSchema,
      input: { paths: ['/ws/schemas/**/*.json', 'other'], query: '/etc' },
      want: { root: '/ws', input: { paths: ['schemas/**/*.json', 'other'], query: '/etc' } } },
    { name: 'no folder, documents given as values', folders: [],
      input: { schema: { value: {} }, instances: [{ text: '1' }] },
      want: { root: '/empty', input: { schema: { value: {} }, instances: [{ text: '1' }] } } },
    { name: 'document shapes behind a local $ref', folders: ['/ws'], schema: refSchema,
      input: { schema: { path: '/ws/s.json' }, instances: [{ path: '/ws/a.json' }] },
      want: { root: '/ws', input: { schema: { path: 's.json' }, instances: [{ path: 'a.json' }] } } },
    { name: 'not an object: jstk explains', folders: ['/ws'], input: 'nonsense', want: { root: '/ws', input: {} } },
  ];
  for (const c of cases) {
    const input = JSON.parse(JSON.stringify(c.input));
    assert.deepEqual(confine(input, c.schema ?? validateSchema, c.folders, () => '/empty'), c.want, c.name);
    assert.deepEqual(input, c.input, `${c.name}: the caller's input is not changed`);
  }
});

test('confine: paths outside the workspace are refused', () => {
  const cases: { input: unknown; folders: string[]; want: RegExp; schema?: object }[] = [
    { input: { schema: { path: '/etc/passwd' }, instances: [] }, folders: ['/ws'], want: /\/etc\/passwd is outside the workspace folders \(\/ws\)/ },
    { input: { schema: { path: '../s.json' }, instances: [] }, folders: ['/ws'], want: /\.\.\/s\.json is outside the workspace folder \/ws/ },
    { input: { schema: { path: 's.json' }, instances: [{ path: '/ws/a.json' }, { path: '/other/b.json' }] }, folders: ['/ws', '/other'], want: /\/other\/b\.json is outside the workspace folder \/ws/ },
    { input: { schema: { path: '/wsx/s.json' }, instances: [] }, folders: ['/ws'], want: /outside/ },
    { input: { paths: ['../../etc'] }, folders: ['/ws'], want: /outside/, schema: listSchema },
    { input: { schema: { path: 's.json' }, instances: [] }, folders: [], want: /no folder is open/ },
    { input: { schema: { path: 's.json' }, instances: [{ path: '/etc/passwd' }] }, folders: ['/ws'], want: /outside/, schema: refSchema },
  ];
  for (const c of cases) {
    assert.throws(() => confine(c.input, c.schema ?? validateSchema, c.folders, () => { throw new Error('no empty directory needed'); }), c.want);
  }
});

test('findJstk: the setting, then the PATH, then the npm package of the workspace', () => {
  const bins = new Set(['/usr/local/bin/jstk', '/home/me/jstk', '/evil/jstk', '/ws/node_modules/@json-schema-toolkit/linux-x64/bin/jstk']);
  const base: Lookup = { setting: undefined, trusted: true, folders: ['/ws'], pathEnv: ['/usr/bin', '', '/usr/local/bin'].join(path.delimiter),
    platform: 'linux', arch: 'x64', isExecutable: (f) => bins.has(f) };
  const cases: { name: string; l: Partial<Lookup>; want: string }[] = [
    { name: 'PATH', l: {}, want: '/usr/local/bin/jstk' },
    { name: 'user setting', l: { setting: { globalValue: '/home/me/jstk' } }, want: '/home/me/jstk' },
    { name: 'workspace setting in a trusted workspace', l: { setting: { globalValue: '/home/me/jstk', workspaceValue: '/evil/jstk' } }, want: '/evil/jstk' },
    { name: 'workspace setting ignored when untrusted', l: { trusted: false, setting: { globalValue: '/home/me/jstk', workspaceValue: '/evil/jstk' } }, want: '/home/me/jstk' },
    { name: 'untrusted, no user setting: PATH', l: { trusted: false, setting: { workspaceFolderValue: '/evil/jstk' } }, want: '/usr/local/bin/jstk' },
    { name: 'npm package in the workspace', l: { pathEnv: '/usr/bin' }, want: '/ws/node_modules/@json-schema-toolkit/linux-x64/bin/jstk' },
  ];
  for (const c of cases) {
    assert.equal(findJstk({ ...base, ...c.l }).file, c.want, c.name);
  }
  assert.throws(() => findJstk({ ...base, pathEnv: undefined, trusted: false }), /jstk was not found: install it/);
  assert.throws(() => findJstk({ ...base, setting: { globalValue: '/nope/jstk' } }), /jstk\.path setting names \/nope\/jstk, which is not an executable file/);
  assert.equal(findJstk({ ...base, platform: 'win32', pathEnv: 'C:\\bin', isExecutable: (f) => f.endsWith('jstk.exe') }).file.endsWith('jstk.exe'), true);
});

test('argv: tools call, the root, --no-config when untrusted', () => {
  assert.deepEqual(argv({ jstk: 'jstk', tool: 'diff', root: '/ws', input: {}, noConfig: false }), ['tools', 'call', 'diff', '--root', '/ws']);
  assert.deepEqual(argv({ jstk: 'jstk', tool: 'diff', root: '/ws', input: {}, noConfig: true }), ['tools', 'call', 'diff', '--root', '/ws', '--no-config']);
});

test('parse: the text blocks of an MCP result', () => {
  assert.deepEqual(parse('{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}],"isError":true}'), { text: 'a\nb', isError: true });
  assert.deepEqual(parse('{"content":[],"structuredContent":{}}'), { text: '', isError: false });
  assert.throws(() => parse('{}'), /no content/);
  assert.throws(() => parse('jstk: unknown command'));
});

test('confine: every document argument of every tool the manifest contributes is confined', () => {
  const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
  let seen = 0;
  for (const tool of manifest.contributes.languageModelTools) {
    const schema = tool.inputSchema;
    for (const [name, prop] of Object.entries<{ type?: string }>(schema.properties ?? {})) {
      const text = JSON.stringify(prop);
      if (!text.includes('$defs/doc') && !text.includes('"path"')) {
        continue;
      }
      const input = { [name]: prop.type === 'array' ? [{ path: '/etc/passwd' }] : { path: '/etc/passwd' } };
      assert.throws(() => confine(input, schema, ['/ws'], () => '/empty'), /outside/, `${tool.name}.${name}`);
      seen++;
    }
  }
  assert.ok(seen >= 10, `only ${seen} document arguments found in the manifest`);
});
