// @ts-check
// Tests of the launcher, with Node's test runner: node --test test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { binaryPath, LauncherError, SUPPORTED } = require('../bin/jstk.js');

const launcher = path.join(__dirname, '..', 'bin', 'jstk.js');
const posix = process.platform !== 'win32';

test('the supported platforms are the six release targets', () => {
  assert.deepEqual(SUPPORTED, ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64']);
});

test('JSTK_BINARY wins over the platform package', () => {
  assert.equal(binaryPath({ JSTK_BINARY: '/opt/jstk' }, 'linux', 'x64', () => { throw new Error('not called'); }), '/opt/jstk');
});

test('the binary comes from the platform package installed beside the launcher', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jstk-launcher-'));
  for (const [platform, arch, file] of [['linux', 'x64', 'jstk'], ['win32', 'arm64', 'jstk.exe']]) {
    const pkg = path.join(dir, 'node_modules', '@json-schema-toolkit', `${platform}-${arch}`);
    fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `@json-schema-toolkit/${platform}-${arch}`, version: '0.0.0' }));
    fs.writeFileSync(path.join(pkg, 'bin', file), '');
    const resolve = (/** @type {string} */ id) => require.resolve(id, { paths: [dir] });
    assert.equal(binaryPath({}, platform, arch, resolve), fs.realpathSync(path.join(pkg, 'bin', file)));
  }
});

test('a platform without a binary, and a missing platform package, are explained', () => {
  assert.throws(() => binaryPath({}, 'freebsd', 'x64', require.resolve),
    (e) => e instanceof LauncherError && /no jstk binary for freebsd-x64/.test(e.message) && /go install/.test(e.message));
  // The missing package is named with its version, with both ways to get it; no cause is
  // blamed that may not be the cause.
  const version = require('../package.json').version;
  assert.throws(() => binaryPath({}, 'linux', 'arm64', () => { throw new Error('MODULE_NOT_FOUND'); }),
    (e) => e instanceof LauncherError &&
      e.message.includes(`is not installed`) &&
      e.message.includes(`npm install @json-schema-toolkit/linux-arm64@${version}`) &&
      e.message.includes(`npm install json-schema-toolkit@${version}`) &&
      e.message.includes('JSTK_BINARY') &&
      !/reinstall without/.test(e.message));
  assert.throws(() => binaryPath({}, 'darwin', 'x64', () => { throw new Error('MODULE_NOT_FOUND'); }, ''),
    (e) => e instanceof LauncherError && e.message.includes('npm install @json-schema-toolkit/darwin-x64;'));
});

test('the launcher installed without its platform package says which and how to get it', { skip: (!posix || !SUPPORTED.includes(`${process.platform}-${process.arch}`)) && 'POSIX paths, a supported platform' }, async () => {
  // A copy of the launcher alone in node_modules, as npm leaves it when the platform
  // package was not installed.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jstk-launcher-'));
  const pkg = path.join(dir, 'node_modules', 'json-schema-toolkit');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  fs.copyFileSync(launcher, path.join(pkg, 'bin', 'jstk.js'));
  fs.copyFileSync(path.join(__dirname, '..', 'package.json'), path.join(pkg, 'package.json'));
  const env = { ...process.env };
  delete env.JSTK_BINARY;
  const r = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(pkg, 'bin', 'jstk.js'), '--version'], { env, cwd: dir });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
  const target = `${process.platform}-${process.arch}`;
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`^json-schema-toolkit: the package @json-schema-toolkit/${target}@\\d+\\.\\d+\\.\\d+\\S*, which holds the jstk binary for ${target}, is not installed`));
});

/**
 * Runs the launcher with a stand-in binary (a shell script) and returns what came out.
 * @param {string} script the stand-in's body
 * @param {string[]} args
 * @param {{input?: string, signal?: NodeJS.Signals, env?: NodeJS.ProcessEnv}} opts
 * @returns {Promise<{code: number|null, signal: string|null, stdout: string, stderr: string}>}
 */
function run(script, args, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jstk-launcher-'));
  const bin = path.join(dir, 'jstk');
  fs.writeFileSync(bin, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, ...args], { env: { ...process.env, JSTK_BINARY: bin, ...opts.env } });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (opts.signal && !signalled && stdout.includes('ready')) {
        signalled = true;
        child.kill(opts.signal);
      }
    });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

test('arguments, standard input and output, and the exit status pass through', { skip: !posix && 'POSIX shell stand-in' }, async () => {
  const r = await run('printf "%s|" "$@"; cat; echo; echo oops >&2; exit 3', ['validate', '--schema', 'a b.json', '-'], { input: '{"x": 1}' });
  assert.deepEqual(r, { code: 3, signal: null, stdout: 'validate|--schema|a b.json|-|{"x": 1}\n', stderr: 'oops\n' });
});

test('SIGTERM reaches jstk, and the launcher exits as jstk did', { skip: !posix && 'POSIX signals', timeout: 20000 }, async () => {
  // The stand-in gives up after 10 s, so that a launcher that does not forward the signal
  // fails this test instead of hanging it.
  const r = await run('trap "echo stopped; exit 0" TERM; echo ready; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; echo "no signal"; exit 9',
    ['mcp'], { signal: 'SIGTERM' });
  assert.deepEqual(r, { code: 0, signal: null, stdout: 'ready\nstopped\n', stderr: '' });
});

test('jstk killed by a signal kills the launcher with the same signal', { skip: !posix && 'POSIX signals' }, async () => {
  const r = await run('echo ready; kill -KILL $$', []);
  assert.equal(r.signal, 'SIGKILL');
});

test('a binary that cannot run is reported on stderr, exit 2, nothing on stdout', { skip: !posix && 'POSIX paths' }, async () => {
  const r = await new Promise((resolve) => {
    const child = spawn(process.execPath, [launcher, '--version'], { env: { ...process.env, JSTK_BINARY: '/nonexistent/jstk' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /cannot run \/nonexistent\/jstk: spawn \/nonexistent\/jstk ENOENT/);
});
