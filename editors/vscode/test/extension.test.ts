// The extension on a fake VS Code: with and without the MCP API, trusted and not, with a
// stand-in jstk (a shell script that records how it was called) and, when JSTK_BIN names a
// real jstk, with jstk itself.

import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { activateWith, contributedTools, Deps, nodeDeps, registerMcpServer } from '../src/extension';
import { cancellable, fakeHost, neverCancelled, StdioDefinition, TextPart, ToolResult } from './fake';

const packageJSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
const contributed: string[] = packageJSON.contributes.languageModelTools.map((t: { name: string }) => t.name);
const posix = process.platform !== 'win32';

function tmpdir(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'jstk-ext-')));
}

/** A stand-in jstk: records its arguments, working directory and input, prints `result`. */
function standIn(dir: string, result: string, extra = ''): string {
  const bin = path.join(dir, 'jstk');
  fs.writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/argv"\npwd > "${dir}/cwd"\ncat > "${dir}/stdin"\n${extra}\nprintf '%s' '${result}'\n`, { mode: 0o755 });
  return bin;
}

function deps(over: Partial<Deps>): Deps {
  return { ...nodeDeps, env: {}, ...over };
}

test('every tool the manifest contributes gets a handler, on a host with and without MCP', () => {
  assert.ok(contributed.length >= 8, `only ${contributed.length} tools contributed`);
  assert.deepEqual(contributedTools(packageJSON).map((t) => t.name), contributed);
  for (const mcp of [false, true]) {
    const f = fakeHost({ mcp, folders: ['/ws'] }, packageJSON);
    activateWith(f.host, f.context, deps({}));
    assert.deepEqual([...f.tools.keys()], contributed, `mcp: ${mcp}`);
    assert.equal(f.providers.size, mcp ? 1 : 0);
    assert.equal(f.context.subscriptions.length, contributed.length + (mcp ? 4 : 0));
  }
});

test('without the MCP API nothing is registered for it and nothing fails', () => {
  const f = fakeHost({ mcp: false, folders: ['/ws'] }, packageJSON);
  assert.equal(registerMcpServer(f.host, f.context, '1.0.0'), false);
  assert.equal(f.context.subscriptions.length, 0);
  // An editor that has the function but not the definition class is treated as without.
  const g = fakeHost({ mcp: true, folders: ['/ws'] }, packageJSON);
  delete g.host.McpStdioServerDefinition;
  assert.equal(registerMcpServer(g.host, g.context, '1.0.0'), false);
});

test('the MCP server definition: npx json-schema-toolkit mcp --root <workspace>, once trusted', () => {
  const f = fakeHost({ mcp: true, folders: [], trusted: false }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  const ids = packageJSON.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id);
  assert.deepEqual([...f.providers.keys()], ids);
  const provider = f.providers.get('jstk')!;
  let changes = 0;
  provider.onDidChangeMcpServerDefinitions!(() => { changes++; });
  assert.deepEqual(provider.provideMcpServerDefinitions(), [], 'no folder');
  f.setFolders(['/ws', '/other']);
  assert.deepEqual(provider.provideMcpServerDefinitions(), [], 'untrusted');
  f.trust();
  assert.equal(changes, 2);
  assert.deepEqual(provider.provideMcpServerDefinitions(),
    [new StdioDefinition('jstk', 'npx', ['--yes', 'json-schema-toolkit', 'mcp', '--root', '/ws'], {}, packageJSON.version)]);
  const def = provider.provideMcpServerDefinitions()[0];
  assert.equal(provider.resolveMcpServerDefinition!(def), def);
});

test('a tool runs jstk tools call with the MCP arguments and returns its text', { skip: !posix && 'POSIX stand-in' }, async () => {
  const ws = tmpdir();
  const bin = standIn(ws, '{"content":[{"type":"text","text":"1 instance: 1 valid\\n"}],"structuredContent":{},"isError":false}');
  for (const mcp of [false, true]) {
    const f = fakeHost({ mcp, folders: [ws], setting: { globalValue: bin } }, packageJSON);
    activateWith(f.host, f.context, deps({}));
    const tool = f.tools.get('jstk_validate')!;
    assert.deepEqual(tool.prepareInvocation!({ input: {} }, neverCancelled), { invocationMessage: 'Running jstk validate' });
    const input = { schema: { path: path.join(ws, 's.json') }, instances: [{ value: 3 }] };
    const result = await tool.invoke({ input }, neverCancelled);
    assert.deepEqual(result, new ToolResult([new TextPart('1 instance: 1 valid\n')]));
    assert.equal(fs.readFileSync(path.join(ws, 'argv'), 'utf8'), ['tools', 'call', 'validate', '--root', ws, ''].join('\n'));
    assert.equal(fs.readFileSync(path.join(ws, 'cwd'), 'utf8').trim(), ws);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(ws, 'stdin'), 'utf8')), { schema: { path: 's.json' }, instances: [{ value: 3 }] });
  }
});

test('in an untrusted workspace: no jstk.json, no binary chosen by the workspace', { skip: !posix && 'POSIX stand-in' }, async () => {
  const ws = tmpdir();
  const user = tmpdir();
  const good = standIn(user, '{"content":[{"type":"text","text":"ok"}],"isError":false}');
  const evil = standIn(ws, '{"content":[{"type":"text","text":"evil"}],"isError":false}');
  const f = fakeHost({ mcp: true, folders: [ws], trusted: false, setting: { globalValue: good, workspaceValue: evil } }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  const result = await f.tools.get('jstk_lint')!.invoke({ input: { schemas: [{ path: 'a.json' }] } }, neverCancelled);
  assert.deepEqual(result, new ToolResult([new TextPart('ok')]));
  assert.equal(fs.readFileSync(path.join(user, 'argv'), 'utf8'), ['tools', 'call', 'lint', '--root', ws, '--no-config', ''].join('\n'));
  assert.equal(fs.existsSync(path.join(ws, 'argv')), false);
});

test('what jstk could not do, and paths outside the workspace, are errors for the model', { skip: !posix && 'POSIX stand-in' }, async () => {
  const ws = tmpdir();
  const bin = standIn(ws, '{"content":[{"type":"text","text":"validate could not run: s.json: no such file"}],"isError":true}');
  const f = fakeHost({ mcp: false, folders: [ws], setting: { globalValue: bin } }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  const tool = f.tools.get('jstk_validate')!;
  await assert.rejects(tool.invoke({ input: { schema: { path: 's.json' }, instances: [{ value: 1 }] } }, neverCancelled),
    { message: 'validate could not run: s.json: no such file' });
  fs.rmSync(path.join(ws, 'argv'));
  await assert.rejects(tool.invoke({ input: { schema: { path: '/etc/passwd' }, instances: [{ value: 1 }] } }, neverCancelled),
    /jstk validate: \/etc\/passwd is outside the workspace folders/);
  assert.equal(fs.existsSync(path.join(ws, 'argv')), false, 'jstk ran for a path outside the workspace');
  const none = fakeHost({ mcp: false, folders: [ws] }, packageJSON);
  activateWith(none.host, none.context, deps({ env: { PATH: '/nonexistent' } }));
  await assert.rejects(none.tools.get('jstk_validate')!.invoke({ input: {} }, neverCancelled), /jstk validate: jstk was not found: install it/);
});

test('a jstk without `tools call`, output that is not a result, and cancellation', { skip: !posix && 'POSIX stand-in' }, async () => {
  const ws = tmpdir();
  const old = path.join(ws, 'old-jstk');
  fs.writeFileSync(old, '#!/bin/sh\necho \'jstk: unknown command "tools"\' >&2\nexit 2\n', { mode: 0o755 });
  const f = fakeHost({ mcp: false, folders: [ws], setting: { globalValue: old } }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  await assert.rejects(f.tools.get('jstk_lint')!.invoke({ input: {} }, neverCancelled), /older than the extension/);

  const slow = standIn(ws, '{}', 'echo started > "' + ws + '/started"; sleep 30');
  const g = fakeHost({ mcp: false, folders: [ws], setting: { globalValue: slow } }, packageJSON);
  activateWith(g.host, g.context, deps({}));
  const c = cancellable();
  const started = Date.now();
  const call = g.tools.get('jstk_lint')!.invoke({ input: {} }, c.token);
  while (!fs.existsSync(path.join(ws, 'started'))) {
    await new Promise((r) => setTimeout(r, 20));
  }
  c.cancel();
  await assert.rejects(call, /jstk lint: cancelled/);
  assert.ok(Date.now() - started < 20000, 'the cancelled call waited for jstk to finish');
});

test('with the real jstk (JSTK_BIN): validate the shipped examples', { skip: !process.env.JSTK_BIN && 'JSTK_BIN is not set (.ci/run sets it to a built jstk)' }, async () => {
  const examples = path.resolve(__dirname, '..', '..', '..', '..', 'examples');
  const f = fakeHost({ mcp: true, folders: [examples], setting: { globalValue: path.resolve(process.env.JSTK_BIN!) } }, packageJSON);
  activateWith(f.host, f.context, deps({}));
  const valid = await f.tools.get('jstk_validate')!.invoke({ input: { schema: { path: 'order.schema.json' }, instances: [{ path: path.join(examples, 'orders.ndjson') }] } }, neverCancelled);
  assert.deepEqual(valid, new ToolResult([new TextPart('3 instances: 3 valid\n')]));
  const diff = await f.tools.get('jstk_diff')!.invoke({ input: { old: { value: { type: 'object' } }, new: { value: { type: 'object', required: ['name'] } } } }, neverCancelled) as ToolResult;
  assert.match((diff.content[0] as TextPart).value, /backward: incompatible/);
  await assert.rejects(f.tools.get('jstk_validate')!.invoke({ input: { schema: { path: 'order.schema.json' } } }, neverCancelled), /validate could not run: argument instances: give at least one instance/);
});
