#!/usr/bin/env node
// @ts-check
// The json-schema-toolkit launcher: runs the jstk binary of the platform package npm
// installed beside it (@json-schema-toolkit/<os>-<cpu>, one optional dependency per platform,
// of which npm installs only the one whose "os" and "cpu" match). It passes the arguments,
// standard streams and exit status through unchanged, so `npx json-schema-toolkit mcp`
// is jstk's MCP server: nothing here reads standard input or writes to standard output.
// No install script, no network.
'use strict';

const { spawn } = require('node:child_process');

const SCOPE = '@json-schema-toolkit';
/** The platforms a binary is published for, as `${process.platform}-${process.arch}`. */
const SUPPORTED = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64'];

class LauncherError extends Error {}

/**
 * The path of the jstk binary to run: $JSTK_BINARY when set, else the binary of the platform
 * package for this platform.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} platform process.platform
 * @param {string} arch process.arch
 * @param {(id: string) => string} resolve require.resolve, or a stand-in
 * @param {string} [version] the version of the platform package to name when it is missing
 * @returns {string}
 */
function binaryPath(env, platform, arch, resolve, version = ownVersion()) {
  if (env.JSTK_BINARY) {
    return env.JSTK_BINARY;
  }
  const target = `${platform}-${arch}`;
  if (!SUPPORTED.includes(target)) {
    throw new LauncherError(
      `there is no jstk binary for ${target} (there are for ${SUPPORTED.join(', ')}); ` +
        'build one with Go: go install github.com/jstk-dev/jstk/cmd/jstk@latest, ' +
        'and run it directly or set JSTK_BINARY to its path');
  }
  const pkg = `${SCOPE}/${target}`;
  const file = `${pkg}/bin/jstk${platform === 'win32' ? '.exe' : ''}`;
  try {
    return resolve(file);
  } catch {
    const at = version ? `${pkg}@${version}` : pkg;
    const launcher = version ? `json-schema-toolkit@${version}` : 'json-schema-toolkit';
    throw new LauncherError(
      `the package ${at}, which holds the jstk binary for ${target}, is not installed ` +
        'beside json-schema-toolkit (npm installs it as an optional dependency, and leaves it out ' +
        'when optional dependencies are omitted or a lockfile made on another platform lacks it). ' +
        `Either install it: npm install ${at}; or install the launcher again on this machine so ` +
        `that npm adds it: npm install ${launcher}. ` +
        'A jstk binary from elsewhere also works: set JSTK_BINARY to its path ' +
        '(go install github.com/jstk-dev/jstk/cmd/jstk@latest builds one)');
  }
}

/**
 * The launcher's own version (its package.json's), which its platform packages share; ''
 * when it cannot be read.
 * @returns {string}
 */
function ownVersion() {
  try {
    return String(require('../package.json').version || '');
  } catch {
    return '';
  }
}

/** The signals passed on to jstk (an MCP client stops its server with SIGTERM). */
const FORWARDED = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);

/**
 * Runs the binary with the arguments and ends this process as the binary ended: with its
 * exit status, or killed by the same signal.
 * @param {string[]} args
 */
function main(args) {
  let bin;
  try {
    bin = binaryPath(process.env, process.platform, process.arch, require.resolve);
  } catch (e) {
    process.stderr.write(`json-schema-toolkit: ${e instanceof Error ? e.message : e}\n`);
    process.exitCode = 2;
    return;
  }
  // The handlers are in place before jstk starts: a client may stop its server at once, and
  // the signal must reach jstk rather than end this process and leave jstk running. A
  // handler only runs from the event loop, after spawn has returned.
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;
  /** @type {Map<string, () => void>} */
  const handlers = new Map();
  for (const sig of FORWARDED) {
    const h = () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill(sig);
      }
    };
    handlers.set(sig, h);
    process.on(sig, h);
  }
  child = spawn(bin, args, { stdio: 'inherit', windowsHide: true });
  child.on('error', (err) => {
    process.stderr.write(`json-schema-toolkit: cannot run ${bin}: ${err.message}\n`);
    process.exitCode = 2;
  });
  child.on('exit', (code, signal) => {
    for (const [sig, h] of handlers) {
      process.off(sig, h);
    }
    if (signal) {
      process.kill(process.pid, signal);
      return;
    }
    process.exitCode = code === null ? 2 : code;
  });
}

module.exports = { binaryPath, LauncherError, SUPPORTED, main };

if (require.main === module) {
  main(process.argv.slice(2));
}
