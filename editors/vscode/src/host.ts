// The slice of the VS Code API the extension uses. The extension is written against this
// interface, so that its tests can run it on a small fake of the API (a host with the MCP
// API and one without it) under Node's test runner, without VS Code.

export interface Disposable {
  dispose(): unknown;
}

export type Event<T> = (listener: (e: T) => unknown) => Disposable;

export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested: Event<unknown>;
}

export interface ToolInvocationOptions {
  readonly input: unknown;
}

export interface LanguageModelTool {
  invoke(options: ToolInvocationOptions, token: CancellationToken): Promise<unknown>;
  prepareInvocation?(options: ToolInvocationOptions, token: CancellationToken): { invocationMessage: string } | undefined;
}

export interface WorkspaceFolder {
  readonly uri: { readonly fsPath: string };
  readonly name: string;
}

export interface SettingValues<T> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface Configuration {
  inspect<T>(key: string): SettingValues<T> | undefined;
}

/** McpServerDefinitionProvider, finalised in VS Code 1.101. */
export interface McpServerDefinitionProvider {
  onDidChangeMcpServerDefinitions?: Event<void>;
  provideMcpServerDefinitions(token?: CancellationToken): unknown[];
  resolveMcpServerDefinition?(server: unknown, token?: CancellationToken): unknown;
}

export interface Host {
  lm: {
    registerTool(name: string, tool: LanguageModelTool): Disposable;
    /** Absent before VS Code 1.101 and in editors without MCP support. */
    registerMcpServerDefinitionProvider?(id: string, provider: McpServerDefinitionProvider): Disposable;
  };
  workspace: {
    readonly workspaceFolders: readonly WorkspaceFolder[] | undefined;
    readonly isTrusted: boolean;
    getConfiguration(section: string): Configuration;
    onDidChangeWorkspaceFolders: Event<unknown>;
    onDidGrantWorkspaceTrust: Event<void>;
  };
  LanguageModelToolResult: new (content: unknown[]) => unknown;
  LanguageModelTextPart: new (value: string) => unknown;
  /** Absent where registerMcpServerDefinitionProvider is. */
  McpStdioServerDefinition?: new (label: string, command: string, args?: string[], env?: Record<string, string>, version?: string) => unknown;
  EventEmitter: new () => { event: Event<void>; fire(): void; dispose(): void };
}

/** What the extension needs of its ExtensionContext. */
export interface Context {
  readonly subscriptions: Disposable[];
  readonly extension: { readonly packageJSON: unknown };
}
