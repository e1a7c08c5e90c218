// The language server: `jstk lsp` started by vscode-languageclient for the languages the
// jstk.lsp.languages setting lists (JSON, JSONC, YAML and TOML by default), with the binary
// the tools use (findJstk), else `npx json-schema-toolkit lsp` in a trusted workspace. In an
// untrusted workspace the server runs with --no-config (the workspace's jstk.json is not
// read), and never a binary from the workspace. The client itself is made by a factory, so
// that the tests run this module on the fake API without VS Code.

import type { Context, Host } from './host';
import { findJstk, NotFound } from './binary';
import type { Deps } from './extension';

/** The languages jstk lsp serves, by VS Code language id. */
export const lspLanguages = ['json', 'jsonc', 'yaml', 'toml'];

/** What the language client factory is given. */
export interface ServerSpec {
  command: string;
  args: string[];
  /** The document selector: one entry per language served, files and unsaved documents. */
  selector: { language: string; scheme: string }[];
  /** Where the command was found, for the output channel. */
  from: string;
}

/** A started language client, as the factory returns it. */
export interface Client {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type ClientFactory = (spec: ServerSpec) => Client;

/** The languages the settings ask for: jstk.lsp.languages, [] when jstk.lsp.enable is false. */
export function servedLanguages(host: Host): string[] {
  const cfg = host.workspace.getConfiguration('jstk');
  const pick = <T>(key: string): T | undefined => {
    const v = cfg.inspect<T>(key);
    return host.workspace.isTrusted
      ? (v?.workspaceFolderValue ?? v?.workspaceValue ?? v?.globalValue)
      : v?.globalValue;
  };
  if (pick<boolean>('lsp.enable') === false) {
    return [];
  }
  const langs = pick<string[]>('lsp.languages') ?? lspLanguages;
  return lspLanguages.filter((l) => langs.includes(l));
}

/** How to start jstk lsp, or undefined when it cannot be found (untrusted: no npx). */
export function serverSpec(host: Host, deps: Deps, languages: string[]): ServerSpec | undefined {
  const trusted = host.workspace.isTrusted;
  const folders = (host.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const args = trusted ? ['lsp'] : ['lsp', '--no-config'];
  const selector = languages.flatMap((language) => [{ language, scheme: 'file' }, { language, scheme: 'untitled' }]);
  try {
    const found = findJstk({
      setting: host.workspace.getConfiguration('jstk').inspect<string>('path'),
      trusted, folders, pathEnv: deps.env.PATH ?? deps.env.Path,
      platform: deps.platform, arch: deps.arch, isExecutable: deps.isExecutable,
    });
    return { command: found.file, args, selector, from: found.from };
  } catch (e) {
    if (!(e instanceof NotFound) || !trusted) {
      return undefined;
    }
    return { command: 'npx', args: ['--yes', 'json-schema-toolkit', ...args], selector, from: 'npx json-schema-toolkit' };
  }
}

/**
 * Starts the language server when some language is served; restarts it when the workspace
 * is trusted (the binary and --no-config may change). Returns the client started, if any.
 */
export function startLanguageServer(host: Host, context: Context, deps: Deps, factory: ClientFactory): Client | undefined {
  let client: Client | undefined;
  const start = (): Client | undefined => {
    const languages = servedLanguages(host);
    const spec = languages.length > 0 ? serverSpec(host, deps, languages) : undefined;
    if (spec === undefined) {
      return undefined;
    }
    const c = factory(spec);
    void c.start().catch(() => undefined);
    return c;
  };
  client = start();
  context.subscriptions.push(
    { dispose: () => client?.stop() },
    host.workspace.onDidGrantWorkspaceTrust(() => {
      void client?.stop();
      client = start();
    }),
  );
  return client;
}
