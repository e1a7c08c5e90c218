// Running one tool: `jstk tools call NAME --root FOLDER` with the MCP arguments on standard
// input, which prints the MCP result as JSON. The text of the result is what the model reads.

import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { CancellationToken } from './host';

export type Spawn = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface Call {
  jstk: string;
  tool: string;
  root: string;
  input: unknown;
  /** Leave out the workspace's jstk.json (an untrusted workspace). */
  noConfig: boolean;
}

export interface Outcome {
  text: string;
  isError: boolean;
}

/** The most jstk may print for one call (its results are bounded far below this). */
const maxOutput = 64 << 20;

export class ToolFailed extends Error {}

/** The arguments of `jstk tools call` for a call. */
export function argv(c: Call): string[] {
  const a = ['tools', 'call', c.tool, '--root', c.root];
  if (c.noConfig) {
    a.push('--no-config');
  }
  return a;
}

export function run(spawn: Spawn, c: Call, token: CancellationToken): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(c.jstk, argv(c), { cwd: c.root, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    } catch (e) {
      reject(new ToolFailed(`cannot run ${c.jstk}: ${e instanceof Error ? e.message : e}`));
      return;
    }
    const out: Buffer[] = [];
    let outLen = 0;
    let err = '';
    let settled = false;
    const finish = (f: () => void) => {
      if (!settled) {
        settled = true;
        cancel.dispose();
        f();
      }
    };
    const cancel = token.onCancellationRequested(() => {
      child.kill();
      finish(() => reject(new ToolFailed('cancelled')));
    });
    child.stdout?.on('data', (d: Buffer) => {
      outLen += d.length;
      if (outLen > maxOutput) {
        child.kill();
        finish(() => reject(new ToolFailed(`jstk printed more than ${maxOutput} bytes`)));
        return;
      }
      out.push(d);
    });
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < 8192) {
        err += d.toString('utf8');
      }
    });
    child.on('error', (e) => finish(() => reject(new ToolFailed(`cannot run ${c.jstk}: ${e.message}`))));
    child.on('close', (code) => finish(() => {
      try {
        resolve(parse(Buffer.concat(out).toString('utf8')));
      } catch {
        const why = err.trim() || `exit status ${code}`;
        reject(new ToolFailed(`${c.jstk} ${argv(c).join(' ')} gave no result: ${why}` +
          (/unknown command "tools"/.test(why) ? ' (this jstk is older than the extension: install a newer one)' : '')));
      }
    }));
    child.stdin?.on('error', () => { /* jstk exited before reading everything; its answer says why */ });
    child.stdin?.end(JSON.stringify(c.input));
  });
}

/** Reads the MCP result jstk printed: its text blocks, and whether the tool could not run. */
export function parse(stdout: string): Outcome {
  const r = JSON.parse(stdout) as { content?: { type?: string; text?: string }[]; isError?: boolean };
  if (!Array.isArray(r.content)) {
    throw new Error('no content');
  }
  const text = r.content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n');
  return { text, isError: r.isError === true };
}
