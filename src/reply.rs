//! Redis replies: the RESP2 wire form and the two texts `redis-cli` prints for them.
//!
//! - Piped form ([`Reply::to_redis_cli`], what `redis-cli` prints when its stdout is not a
//!   terminal, or with `--raw`): integers as digits, nil as an empty line, arrays one element per
//!   line, flattened, errors as their text followed by an empty line.
//! - Terminal form ([`Reply::to_redis_cli_tty`], what `redis-cli` prints on a terminal, or with
//!   `--no-raw`): `(integer) N`, bulk strings double-quoted with escapes, `(nil)`,
//!   `(error) TEXT`, status text as is, `(empty array)`, and arrays numbered `N) ` with the
//!   numbers right-aligned to the width of the element count; an element that is itself an
//!   array starts on the same line as its number and its later lines are indented by the width
//!   of all enclosing numbers.

/// One RESP2 reply, as Redis 7 sends it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `:N`
    Integer(i64),
    /// `$len` bulk string (binary safe).
    Bulk(Vec<u8>),
    /// `$-1`, the null bulk string (GET of a missing key).
    NullBulk,
    /// `*-1`, the null array (GEOPOS of a missing member).
    NullArray,
    /// `*N` array.
    Array(Vec<Reply>),
    /// `+text` status reply (`OK`).
    Status(String),
    /// `-text` error reply; the text includes the code (`ERR ...`, `WRONGTYPE ...`).
    Error(String),
}

impl Reply {
    /// `+OK`.
    pub fn ok() -> Reply {
        Reply::Status("OK".into())
    }

    /// An error reply with the given full text (code included).
    pub fn err(text: impl Into<String>) -> Reply {
        Reply::Error(text.into())
    }

    /// Redis' generic `syntax error`.
    pub fn syntax_error() -> Reply {
        Reply::err("ERR syntax error")
    }

    /// Redis' WRONGTYPE error.
    pub fn wrong_type() -> Reply {
        Reply::err("WRONGTYPE Operation against a key holding the wrong kind of value")
    }

    /// A bulk reply from a string slice.
    pub fn bulk(s: impl AsRef<[u8]>) -> Reply {
        Reply::Bulk(s.as_ref().to_vec())
    }

    /// True for an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// The exact RESP2 bytes Redis sends for this reply.
    pub fn to_resp(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_resp(&mut out);
        out
    }

    /// Appends the reply's RESP2 bytes to `out` (as [`Reply::to_resp`], without a buffer of
    /// its own).
    pub fn write_resp(&self, out: &mut Vec<u8>) {
        match self {
            Reply::Integer(n) => out.extend_from_slice(format!(":{n}\r\n").as_bytes()),
            Reply::Bulk(b) => {
                out.extend_from_slice(format!("${}\r\n", b.len()).as_bytes());
                out.extend_from_slice(b);
                out.extend_from_slice(b"\r\n");
            }
            Reply::NullBulk => out.extend_from_slice(b"$-1\r\n"),
            Reply::NullArray => out.extend_from_slice(b"*-1\r\n"),
            Reply::Array(items) => {
                out.extend_from_slice(format!("*{}\r\n", items.len()).as_bytes());
                for item in items {
                    item.write_resp(out);
                }
            }
            Reply::Status(s) => {
                out.push(b'+');
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
            Reply::Error(s) => {
                out.push(b'-');
                out.extend_from_slice(s.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
        }
    }

    /// Exactly what `redis-cli CMD ...` prints to a non-terminal stdout for this reply,
    /// including the final newline.
    pub fn to_redis_cli(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_cli_raw(&mut out);
        out.push(b'\n');
        out
    }

    fn write_cli_raw(&self, out: &mut Vec<u8>) {
        match self {
            Reply::Integer(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Reply::Bulk(b) => out.extend_from_slice(b),
            Reply::NullBulk | Reply::NullArray => {}
            Reply::Status(s) => out.extend_from_slice(s.as_bytes()),
            Reply::Error(s) => {
                out.extend_from_slice(s.as_bytes());
                out.push(b'\n');
            }
            Reply::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b'\n');
                    }
                    item.write_cli_raw(out);
                }
            }
        }
    }
}

impl Reply {
    /// Exactly what `redis-cli CMD ...` prints to a terminal (or with `--no-raw`) for this
    /// reply, as Redis 7.0 `redis-cli`, including the final newline. See the module header for
    /// the layout; bulk strings are escaped as [`quote_bulk`] does.
    pub fn to_redis_cli_tty(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_cli_tty(0, &mut out);
        out
    }

    /// Appends the terminal form; `indent` is the column (in bytes) where lines after the first
    /// of an array element start.
    fn write_cli_tty(&self, indent: usize, out: &mut Vec<u8>) {
        match self {
            Reply::Integer(n) => out.extend_from_slice(format!("(integer) {n}\n").as_bytes()),
            Reply::Bulk(b) => {
                quote_bulk(b, out);
                out.push(b'\n');
            }
            Reply::NullBulk | Reply::NullArray => out.extend_from_slice(b"(nil)\n"),
            Reply::Status(s) => {
                out.extend_from_slice(s.as_bytes());
                out.push(b'\n');
            }
            Reply::Error(s) => {
                out.extend_from_slice(b"(error) ");
                out.extend_from_slice(s.as_bytes());
                out.push(b'\n');
            }
            Reply::Array(items) if items.is_empty() => out.extend_from_slice(b"(empty array)\n"),
            Reply::Array(items) => {
                let width = items.len().to_string().len();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.resize(out.len() + indent, b' ');
                    }
                    out.extend_from_slice(format!("{:>width$}) ", i + 1).as_bytes());
                    item.write_cli_tty(indent + width + 2, out);
                }
            }
        }
    }
}

/// Appends `bytes` double-quoted as `redis-cli` shows a bulk string on a terminal: `\\` and
/// `\"` escaped, `\n \r \t \a \b` by name, other bytes outside printable ASCII (0x20..=0x7e)
/// as lowercase `\xHH`.
pub fn quote_bulk(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x07 => out.extend_from_slice(b"\\a"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resp_and_cli_forms() {
        let r = Reply::Array(vec![
            Reply::bulk("a"),
            Reply::Array(vec![Reply::bulk("1.5"), Reply::Integer(7)]),
            Reply::NullArray,
        ]);
        assert_eq!(
            r.to_resp(),
            b"*3\r\n$1\r\na\r\n*2\r\n$3\r\n1.5\r\n:7\r\n*-1\r\n".to_vec()
        );
        assert_eq!(r.to_redis_cli(), b"a\n1.5\n7\n\n".to_vec());
        assert_eq!(Reply::err("ERR x").to_redis_cli(), b"ERR x\n\n".to_vec());
        assert_eq!(Reply::Array(vec![]).to_redis_cli(), b"\n".to_vec());
        assert_eq!(Reply::NullBulk.to_resp(), b"$-1\r\n".to_vec());
    }

    #[test]
    fn tty_form() {
        let r = Reply::Array(vec![
            Reply::bulk(b"a\"\\\n\r\t\x07\x08\x00\x7f\xc3\xa9 ~"),
            Reply::Array(vec![
                Reply::bulk("1.5"),
                Reply::Integer(-7),
                Reply::Array(vec![]),
                Reply::NullArray,
            ]),
            Reply::NullBulk,
            Reply::Status("OK".into()),
            Reply::err("ERR x"),
        ]);
        assert_eq!(
            String::from_utf8(r.to_redis_cli_tty()).unwrap(),
            "1) \"a\\\"\\\\\\n\\r\\t\\a\\b\\x00\\x7f\\xc3\\xa9 ~\"\n\
             2) 1) \"1.5\"\n   2) (integer) -7\n   3) (empty array)\n   4) (nil)\n\
             3) (nil)\n4) OK\n5) (error) ERR x\n"
        );
        let ten = Reply::Array(vec![
            Reply::bulk("x"),
            Reply::Array((1..=10).map(Reply::Integer).collect()),
        ]);
        let text = String::from_utf8(ten.to_redis_cli_tty()).unwrap();
        assert!(text.starts_with("1) \"x\"\n2)  1) (integer) 1\n    2) (integer) 2\n"));
        assert!(text.ends_with("    9) (integer) 9\n   10) (integer) 10\n"));
        assert_eq!(Reply::Array(vec![]).to_redis_cli_tty(), b"(empty array)\n");
        assert_eq!(Reply::NullArray.to_redis_cli_tty(), b"(nil)\n");
        assert_eq!(Reply::bulk("").to_redis_cli_tty(), b"\"\"\n");
    }
}
