// The entry point VS Code loads: the real API, handed to the extension.

import * as vscode from 'vscode';
import type { Host } from './host';
import { activateWith } from './extension';

export function activate(context: vscode.ExtensionContext): void {
  activateWith(vscode as unknown as Host, context);
}

export function deactivate(): void {
  // Every registration is in context.subscriptions, which VS Code disposes.
}
