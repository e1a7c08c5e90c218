// Which jstk binary the tools run: the jstk.path setting, then jstk on the PATH, then the
// binary of the npm package json-schema-toolkit in the workspace's node_modules. In an
// untrusted workspace neither the workspace's settings nor its node_modules are used: a
// repository must not choose the program the editor runs.

import * as path from 'node:path';

export interface Lookup {
  /** The jstk.path setting's values by scope. */
  setting: { globalValue?: string; workspaceValue?: string; workspaceFolderValue?: string } | undefined;
  trusted: boolean;
  /** The workspace folders' paths. */
  folders: readonly string[];
  /** The PATH environment variable. */
  pathEnv: string | undefined;
  platform: string;
  arch: string;
  /** Reports whether a file exists and is executable. */
  isExecutable(file: string): boolean;
}

export interface Found {
  file: string;
  /** Where it was found, for messages. */
  from: string;
}

export class NotFound extends Error {}

export function findJstk(l: Lookup): Found {
  const exe = l.platform === 'win32' ? '.exe' : '';
  const configured = l.trusted
    ? (l.setting?.workspaceFolderValue || l.setting?.workspaceValue || l.setting?.globalValue)
    : l.setting?.globalValue;
  if (configured) {
    if (!l.isExecutable(configured)) {
      throw new NotFound(`the jstk.path setting names ${configured}, which is not an executable file`);
    }
    return { file: configured, from: 'the jstk.path setting' };
  }
  for (const dir of (l.pathEnv ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const file = path.join(dir, 'jstk' + exe);
    if (l.isExecutable(file)) {
      return { file, from: 'the PATH' };
    }
  }
  if (l.trusted) {
    for (const folder of l.folders) {
      const file = path.join(folder, 'node_modules', '@json-schema-toolkit', `${l.platform}-${l.arch}`, 'bin', 'jstk' + exe);
      if (l.isExecutable(file)) {
        return { file, from: `the npm package json-schema-toolkit in ${folder}` };
      }
    }
  }
  throw new NotFound(
    'jstk was not found: install it (npm install -g json-schema-toolkit, or go install ' +
      'github.com/jstk-dev/jstk/cmd/jstk@latest, or a release archive from ' +
      'https://github.com/jstk-dev/jstk/releases) so that jstk is on the PATH, or set jstk.path' +
      (l.trusted ? ', or add json-schema-toolkit to the workspace\'s devDependencies' : ''));
}
