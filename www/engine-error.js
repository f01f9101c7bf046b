// The one error class the bitlens engine throws, in the page and in its worker alike.
// The wasm glue (crates/wasm, which imports this very file) creates it; a worker's error
// crosses postMessage as plain data ({name, message, code, offset, key, path}) and the client
// (engine-client.js) makes it an EngineError again with EngineError.from.

/**
 * An engine error: `message` is the text shown to people; `code` is what a program acts on,
 * one of the stable codes the CLI prints as `error[CODE]` and Python raises one class for:
 * - opening: `not-found`, `is-a-directory`, `not-a-regular-file` (a FIFO, socket or device),
 *   `permission-denied`, `io` (paths, Node only), `empty` (a 0-byte input), `duplicate-key`
 *   (two files hold `key`);
 * - decoding (an RDB file or DUMP payload): `truncated`, `unsupported-version`, `checksum`,
 *   `unknown-type`, `unsupported`, `corrupt`, `incompatible`, `read`, `write`, `cancelled`,
 *   `too-large`;
 * - `reply` (a Redis error reply: the message is the server's text), `argument` (a bad
 *   argument or option, and every other error of the engine).
 *
 * `offset` is the byte offset of the input where a decoding error was found, `key` the key
 * concerned (UTF-8; the message quotes non-UTF-8 bytes exactly), `path` the file's path or
 * name; each is `undefined` when unknown. `kind` is `code`'s earlier name, kept equal to it.
 *
 * `instanceof EngineError` holds for any error made by any copy of this class (the wasm
 * module's, the page's, another realm's): it tests the name and the code, not the prototype.
 */
export class EngineError extends Error {
  /**
   * @param {string} message
   * @param {{code: string, offset?: number, key?: string, path?: string}} fields
   */
  constructor(message, fields = {}) {
    super(message);
    setFields(this, fields);
  }

  static [Symbol.hasInstance](x) {
    return x instanceof Error && x.name === 'EngineError' && typeof x.code === 'string';
  }

  /** The fields that cross postMessage: `{name, message, code, offset?, key?, path?}`. */
  toJSON() {
    const data = { name: this.name, message: this.message, code: this.code };
    for (const k of ['offset', 'key', 'path']) if (this[k] !== undefined) data[k] = this[k];
    return data;
  }

  /** An EngineError again from `toJSON`'s data (or any object with `message` and `code`). */
  static from(data) {
    return new EngineError(String(data.message), data);
  }
}

/** The name and the fields (`undefined` and `null` skipped) of an EngineError on `err`. */
function setFields(err, { code, offset, key, path }) {
  err.name = 'EngineError';
  err.code = String(code || 'argument');
  err.kind = err.code;
  if (offset !== undefined && offset !== null) err.offset = Number(offset);
  if (key !== undefined && key !== null) err.key = String(key);
  if (path !== undefined && path !== null) err.path = String(path);
}

/**
 * For the wasm glue: the `Error` it made (wasm-bindgen makes the thrown object itself) made an
 * EngineError, its prototype and fields set. Returns `err`.
 */
export function adoptEngineError(err, code, offset, key, path) {
  Object.setPrototypeOf(err, EngineError.prototype);
  setFields(err, { code, offset, key, path });
  return err;
}
