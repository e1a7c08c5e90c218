// The language server's start on the fake VS Code: which binary, which arguments, which
// languages, trusted and not; and the MCP server definition's binary, found as the tools
// find theirs.

import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { activateWith, Deps, nodeDeps } from '../src/extension';
import type { Client, ServerSpec } from '../src/lsp';
import { fakeHost, StdioDefinition } from './fake';

const packageJSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const posix = process.platform !== 'win32';

function tmpdir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'jstk-lsp-')));
}

function binIn(dir: string): string {
  const bin = path.join(dir, 'jstk');
  fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
  return bin;
}

function deps(over: Partial<Deps>): Deps {
  return { ...nodeDeps, env: {}, ...over };
}

/** A factory that records the specs and the starts and stops of its clients. */
function recorder() {
  const log: string[] = [];
  const specs: ServerSpec[] = [];
  const factory = (spec: ServerSpec): Client => {
    specs.push(spec);
    return {
      start: async () => { log.push(`start ${spec.command} ${spec.args.join(' ')}`); },
      stop: async () => { log.push(`stop ${spec.command}`); },
    };
  };
  return { log, specs, factory };
}

const all = ['json', 'jsonc', 'yaml', 'toml'];
const selector = (langs: string[]) => langs.flatMap((language) => [{ language, scheme: 'file' }, { language, scheme: 'untitled' }]);

test('jstk lsp: the binary the tools run, for JSON, JSONC, YAML and TOML', { skip: !posix && 'POSIX stand-in' }, () => {
  const ws = tmpdir();
  const bin = binIn(tmpdir());
  const r = recorder();
  const f = fakeHost({ mcp: false, folders: [ws], setting: { globalValue: bin } }, packageJSON);
  activateWith(f.host, f.context, deps({}), r.factory);
  assert.deepEqual(r.specs, [{ command: bin, args: ['lsp'], selector: selector(all), from: 'the jstk.path setting' }]);
  assert.deepEqual(r.log, [`start ${bin} lsp`]);
  for (const s of f.context.subscriptions) {
    s.dispose();
  }
  assert.deepEqual(r.log, [`start ${bin} lsp`, `stop ${bin}`]);
});

test('jstk lsp: the PATH, then npx; turned off per language or as a whole', { skip: !posix && 'POSIX stand-in' }, () => {
  const dir = tmpdir();
  const bin = binIn(dir);
  let r = recorder();
  activateWith(fakeHost({ mcp: false, folders: ['/ws'] }, packageJSON).host, fakeHost({ mcp: false }, packageJSON).context, deps({ env: { PATH: dir } }), r.factory);
  assert.equal(r.specs[0].command, bin);
  r = recorder();
  const none = fakeHost({ mcp: false, folders: ['/ws'], settings: { 'lsp.languages': { globalValue: ['yaml', 'json', 'markdown'] } } }, packageJSON);
  activateWith(none.host, none.context, deps({}), r.factory);
  assert.deepEqual(r.specs, [{ command: 'npx', args: ['--yes', 'json-schema-toolkit', 'lsp'], selector: selector(['json', 'yaml']), from: 'npx json-schema-toolkit' }]);
  r = recorder();
  const off = fakeHost({ mcp: false, folders: ['/ws'], settings: { 'lsp.enable': { workspaceValue: false } } }, packageJSON);
  activateWith(off.host, off.context, deps({}), r.factory);
  assert.deepEqual(r.specs, []);
});

test('jstk lsp in an untrusted workspace: --no-config, no binary or setting of the workspace, no npx; restarted once trusted', { skip: !posix && 'POSIX stand-in' }, () => {
  const ws = tmpdir();
  const good = binIn(tmpdir());
  const evil = binIn(ws);
  let r = recorder();
  const f = fakeHost({ mcp: false, folders: [ws], trusted: false, setting: { globalValue: good, workspaceValue: evil },
    settings: { 'lsp.enable': { workspaceValue: false } } }, packageJSON);
  activateWith(f.host, f.context, deps({}), r.factory);
  assert.deepEqual(r.specs.map((s) => [s.command, ...s.args]), [[good, 'lsp', '--no-config']]);
  f.trust();
  assert.deepEqual(r.log, [`start ${good} lsp --no-config`, `stop ${good}`], 'trusted: the workspace turns it off');
  r = recorder();
  const nothing = fakeHost({ mcp: false, folders: [ws], trusted: false }, packageJSON);
  fs.mkdirSync(path.join(ws, 'node_modules', '.bin'), { recursive: true });
  activateWith(nothing.host, nothing.context, deps({}), r.factory);
  assert.deepEqual(r.specs, [], 'no jstk outside the workspace: no server (npx could run the workspace\'s)');
  nothing.trust();
  assert.deepEqual((r.specs as ServerSpec[]).map((s) => s.command), ['npx']);
});

test('the MCP server definition runs the jstk the tools run (jstk.path, the PATH), npx only without one', { skip: !posix && 'POSIX stand-in' }, () => {
  const dir = tmpdir();
  const bin = binIn(dir);
  const f = fakeHost({ mcp: true, folders: ['/ws'], setting: { globalValue: bin } }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  assert.deepEqual(f.providers.get('jstk')!.provideMcpServerDefinitions(),
    [new StdioDefinition('jstk', bin, ['mcp', '--root', '/ws'], {}, packageJSON.version)]);
  const g = fakeHost({ mcp: true, folders: ['/ws'] }, packageJSON);
  activateWith(g.host, g.context, deps({ env: { PATH: dir } }));
  assert.deepEqual(g.providers.get('jstk')!.provideMcpServerDefinitions(),
    [new StdioDefinition('jstk', bin, ['mcp', '--root', '/ws'], {}, packageJSON.version)]);
});
