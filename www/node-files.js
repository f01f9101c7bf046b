// Node only: snapshot files read from their paths for Engine.loadRdb / loadRdbs, refused as the
// CLI and Python refuse them, with the same codes (EngineError, engine-error.js). Browsers have
// no paths: they pass File objects, which need none of this.

import { EngineError } from './engine-error.js';

/** The code of a Node fs error (`ENOENT`...), as the CLI names it. */
function codeOf(e) {
  switch (e && e.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'not-found';
    case 'EISDIR':
      return 'is-a-directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission-denied';
    default:
      return 'io';
  }
}

/**
 * The files at `paths` (strings), each `{ name, bytes }` (`name`: the path as given, for
 * loadRdbs' `names`; `bytes`: a Uint8Array of the whole file). Only regular files are read: a
 * directory is refused (code `is-a-directory`), and a FIFO, socket or device at once, judged
 * from the path's metadata without opening it (`not-a-regular-file`: reading a FIFO would
 * wait for a writer). Throws an EngineError with `code` (`not-found`, `is-a-directory`,
 * `not-a-regular-file`, `permission-denied`, `io`) and `path` for the first path that fails.
 * @param {string[]} paths
 * @returns {Promise<{name: string, bytes: Uint8Array}[]>}
 */
export async function readSnapshotFiles(paths) {
  // A computed specifier, ignored by bundlers, so browser builds never see node:fs.
  const fsModule = 'node:fs/promises';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsModule);
  const files = [];
  for (const path of paths) {
    const fail = (message, code) => new EngineError(`cannot read ${path}: ${message}`, { code, path });
    let stat;
    try {
      stat = await fs.stat(path);
    } catch (e) {
      throw fail(e.message, codeOf(e));
    }
    if (stat.isDirectory()) throw fail('a directory, not a file', 'is-a-directory');
    if (!stat.isFile()) throw fail('not a regular file (a pipe, FIFO, socket or device): save it to a file first', 'not-a-regular-file');
    try {
      files.push({ name: path, bytes: new Uint8Array(await fs.readFile(path)) });
    } catch (e) {
      throw fail(e.message, codeOf(e));
    }
  }
  return files;
}
