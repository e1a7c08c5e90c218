// The entry point VS Code loads: the real API, handed to the extension, and the real
// language client for jstk lsp.

import * as vscode from 'vscode';
import { LanguageClient, TransportKind } from 'vscode-languageclient/node';
import type { Host } from './host';
import { activateWith, nodeDeps } from './extension';
import type { ServerSpec } from './lsp';

function languageClient(spec: ServerSpec): LanguageClient {
  return new LanguageClient('jstk', 'jstk', { command: spec.command, args: spec.args, transport: TransportKind.stdio }, {
    documentSelector: spec.selector,
    synchronize: {
      // jstk.json and the schemas: the server re-reads them when they change on disk.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{json,jsonc,yaml,yml,toml}'),
    },
  });
}

export function activate(context: vscode.ExtensionContext): void {
  activateWith(vscode as unknown as Host, context, nodeDeps, languageClient);
}

export function deactivate(): void {
  // Every registration is in context.subscriptions, which VS Code disposes.
}
