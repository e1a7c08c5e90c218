// A small fake of the VS Code API slice in src/host.ts: a host with the MCP API (VS Code
// 1.101 and later) or without it (older editors), workspace folders, trust and settings.

import type { CancellationToken, Context, Disposable, Event, Host, LanguageModelTool, McpServerDefinitionProvider, SettingValues, WorkspaceFolder } from '../src/host';

export class Emitter<T = void> {
  private listeners: ((e: T) => unknown)[] = [];
  event: Event<T> = (l) => {
    this.listeners.push(l);
    return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== l); } };
  };
  fire(e?: T): void {
    for (const l of [...this.listeners]) {
      l(e as T);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class TextPart {
  constructor(readonly value: string) {}
}

export class ToolResult {
  constructor(readonly content: unknown[]) {}
}

export class StdioDefinition {
  constructor(readonly label: string, readonly command: string, readonly args: string[] = [], readonly env: Record<string, string> = {}, readonly version?: string) {}
}

export interface FakeOptions {
  mcp: boolean;
  folders?: string[];
  trusted?: boolean;
  setting?: SettingValues<string>;
  /** Other settings of the jstk section, by key ("lsp.languages"). */
  settings?: Record<string, SettingValues<unknown>>;
}

export interface Fake {
  host: Host;
  context: Context;
  tools: Map<string, LanguageModelTool>;
  providers: Map<string, McpServerDefinitionProvider>;
  folders: WorkspaceFolder[];
  trust(): void;
  setFolders(paths: string[]): void;
}

export function fakeHost(o: FakeOptions, packageJSON: unknown): Fake {
  const tools = new Map<string, LanguageModelTool>();
  const providers = new Map<string, McpServerDefinitionProvider>();
  const foldersChanged = new Emitter<unknown>();
  const trustGranted = new Emitter<void>();
  const state = { trusted: o.trusted ?? true, folders: (o.folders ?? []).map(folder) };
  const lm: Host['lm'] = {
    registerTool(name, tool) {
      if (tools.has(name)) {
        throw new Error(`tool ${name} is already registered`);
      }
      tools.set(name, tool);
      return { dispose: () => tools.delete(name) };
    },
  };
  if (o.mcp) {
    lm.registerMcpServerDefinitionProvider = (id, provider) => {
      providers.set(id, provider);
      return { dispose: () => providers.delete(id) };
    };
  }
  const host: Host = {
    lm,
    workspace: {
      get workspaceFolders() { return state.folders.length ? state.folders : undefined; },
      get isTrusted() { return state.trusted; },
      getConfiguration: () => ({
        inspect: <T>(key: string) => (key === 'path' ? o.setting : o.settings?.[key]) as SettingValues<T> | undefined,
      }),
      onDidChangeWorkspaceFolders: foldersChanged.event,
      onDidGrantWorkspaceTrust: trustGranted.event,
    },
    LanguageModelToolResult: ToolResult,
    LanguageModelTextPart: TextPart,
    EventEmitter: Emitter,
  };
  if (o.mcp) {
    host.McpStdioServerDefinition = StdioDefinition;
  }
  return {
    host,
    context: { subscriptions: [] as Disposable[], extension: { packageJSON } },
    tools,
    providers,
    get folders() { return state.folders; },
    trust() { state.trusted = true; trustGranted.fire(); },
    setFolders(paths) { state.folders = paths.map(folder); foldersChanged.fire(undefined); },
  };
}

function folder(p: string): WorkspaceFolder {
  return { uri: { fsPath: p }, name: p.split('/').pop() ?? p };
}

export const neverCancelled: CancellationToken = {
  isCancellationRequested: false,
  onCancellationRequested: () => ({ dispose() { /* nothing */ } }),
};

export function cancellable(): { token: CancellationToken; cancel(): void } {
  const e = new Emitter<unknown>();
  let cancelled = false;
  return {
    token: { get isCancellationRequested() { return cancelled; }, onCancellationRequested: e.event },
    cancel() { cancelled = true; e.fire(undefined); },
  };
}
