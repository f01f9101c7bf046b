//! Redis replies: the RESP2 wire form and the text `redis-cli` prints when its stdout is not a
//! terminal (integers as digits, nil as an empty line, arrays one element per line, flattened,
//! errors as their text followed by an empty line).

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

    fn write_resp(&self, out: &mut Vec<u8>) {
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
}
