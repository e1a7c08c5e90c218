// File arguments stay inside the workspace folder. A tool's document arguments are objects
// {path | value | text}; list_schemas takes "paths". Each path is resolved against the
// workspace folder (an absolute path is kept only when it lies inside a folder) and refused
// when it leads outside, before jstk runs; jstk, started with --root on that folder, refuses
// again what this lexical check cannot see (a symbolic link that leads out).

import * as path from 'node:path';

export class OutsideWorkspace extends Error {}

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; $ref?: unknown; $defs?: Record<string, Schema> };

/**
 * Follows a local $ref ("#/$defs/doc": jstk writes a shape that repeats once, under $defs)
 * to the schema it names in root. A $ref it cannot follow, or a loop of them, gives undefined.
 */
function deref(s: Schema | undefined, root: Schema): Schema | undefined {
  for (let hops = 0; s !== undefined && typeof s.$ref === 'string'; hops++) {
    if (hops === 16 || !s.$ref.startsWith('#/')) {
      return undefined;
    }
    let t: unknown = root;
    for (const raw of s.$ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      t = isObject(t) ? t[key] : undefined;
    }
    s = isObject(t) ? (t as Schema) : undefined;
  }
  return s;
}

/** Reports whether a schema is that of a document argument {path | value | text}. */
function isDocument(s: Schema | undefined): boolean {
  const p = s?.properties;
  return p !== undefined && 'path' in p && 'value' in p && 'text' in p;
}

function inside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface Confined {
  /** The workspace folder jstk runs in (its --root). */
  root: string;
  /** The arguments, with every path relative to root. */
  input: Record<string, unknown>;
}

/**
 * Finds the folder the call's paths belong to and rewrites them relative to it, or refuses a
 * path outside every folder, or paths in two folders. With no folder, a call whose documents
 * are all given as value or text runs in the directory `fallback` returns (an empty one).
 */
export function confine(input: unknown, schema: Schema, folders: readonly string[], fallback: () => string): Confined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    // jstk checks the arguments against the input schema and explains what is wrong.
    return { root: folders[0] ?? fallback(), input: {} };
  }
  const args = { ...(input as Record<string, unknown>) };
  // Every path, with a setter that rewrites it.
  const paths: { value: string; set(v: string): void }[] = [];
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const v = args[name];
    const s = deref(prop, schema) ?? {};
    if (isDocument(s) && isObject(v) && typeof v.path === 'string') {
      const doc = { ...v };
      args[name] = doc;
      paths.push({ value: v.path, set: (p) => { doc.path = p; } });
    } else if (isDocument(deref(s.items, schema)) && Array.isArray(v)) {
      const docs = v.map((d) => (isObject(d) ? { ...d } : d));
      args[name] = docs;
      for (const d of docs) {
        if (isObject(d) && typeof d.path === 'string') {
          const doc = d;
          paths.push({ value: d.path, set: (p) => { doc.path = p; } });
        }
      }
    } else if (name === 'paths' && Array.isArray(v)) {
      const list = [...v];
      args[name] = list;
      list.forEach((p, i) => {
        if (typeof p === 'string') {
          paths.push({ value: p, set: (q) => { list[i] = q; } });
        }
      });
    }
  }
  const absolute = paths.filter((p) => path.isAbsolute(p.value) && p.value !== '-');
  let root = folders[0];
  if (absolute.length > 0) {
    const first = absolute[0].value;
    root = folders.find((f) => inside(f, first)) ?? '';
    if (root === '') {
      throw new OutsideWorkspace(`${first} is outside the workspace folders (${folders.join(', ') || 'none is open'}): jstk reads only files of the workspace`);
    }
  }
  if (root === undefined) {
    if (paths.length > 0) {
      throw new OutsideWorkspace('no folder is open: open the folder that holds the files, or give the documents as value or text');
    }
    return { root: fallback(), input: args };
  }
  for (const p of paths) {
    const abs = path.resolve(root, p.value);
    if (!inside(root, abs)) {
      throw new OutsideWorkspace(`${p.value} is outside the workspace folder ${root}: jstk reads only files of the workspace`);
    }
    const rel = path.relative(root, abs).split(path.sep).join('/');
    p.set(rel === '' ? '.' : rel);
  }
  return { root, input: args };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
