//! Requests as a Redis server reads them from a client (Redis 7's `networking.c`):
//!
//! - **multibulk**: `*<n>\r\n` then `n` times `$<len>\r\n<len bytes>\r\n` (what redis-cli,
//!   redis-py and every client library send);
//! - **inline**: any other first byte; one line split into words as `sdssplitargs` splits them
//!   (blanks separate words; `"..."` takes `\n \r \t \b \a \\ \" \xHH`, `'...'` takes `\'`; a
//!   closing quote must be followed by a blank or the end of the line). An empty line is no
//!   request.
//!
//! The limits and error texts are the server's: an inline line or a count line longer than
//! 64 KiB without its newline, a count over `i32::MAX` (10 before authentication), a bulk
//! length over the bulk limit (16,384 bytes before authentication). A protocol error is
//! replied and the connection closed, as Redis does.

/// The longest inline request or `*`/`$` count line (Redis' `PROTO_INLINE_MAX_SIZE`).
pub const INLINE_MAX: usize = 64 * 1024;

/// What [`Parser::next`] found at the front of the buffer.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    /// A whole request (argv; never empty).
    Request(Vec<Vec<u8>>),
    /// More bytes are needed.
    Incomplete,
    /// A protocol error: reply this `ERR Protocol error: ...` text, then close.
    Error(String),
}

/// An incremental request reader over one client's bytes: feed with [`Parser::extend`], take
/// requests with [`Parser::next`]. As Redis' reader, it keeps its place in a multibulk request
/// between reads: each argument is taken out of the buffer once whole, so a request sent in
/// many small reads is parsed once, not again from its start at every read. A bulk of
/// [`BIG_ARG`] bytes or more is read straight into its own argument, grown to its length and
/// no further (Redis' `PROTO_MBULK_BIG_ARG`), so a large argument is held once. A bulk over the
/// limit is refused from its header, before its bytes are buffered.
#[derive(Debug)]
pub struct Parser {
    buf: Vec<u8>,
    pos: usize,
    max_bulk: usize,
    /// The multibulk request being read, when its arguments have not all arrived.
    partial: Option<Partial>,
}

/// Bulks this long or longer are read into their argument directly (Redis'
/// `PROTO_MBULK_BIG_ARG`, 32 KiB).
pub const BIG_ARG: usize = 32 * 1024;

/// A multibulk request part-way read.
#[derive(Debug, Default)]
struct Partial {
    argv: Vec<Vec<u8>>,
    /// Arguments still to read.
    left: usize,
    /// Bytes held in `argv` and `bulk`.
    bytes: usize,
    /// A big bulk being read: its bytes so far and its length.
    bulk: Option<(Vec<u8>, usize)>,
    /// Bytes to skip before the next argument (the two after a big bulk).
    skip: usize,
}

impl Parser {
    /// A reader refusing a bulk string longer than `max_bulk` bytes (Redis'
    /// `proto-max-bulk-len`).
    pub fn new(max_bulk: usize) -> Parser {
        Parser {
            buf: Vec::new(),
            pos: 0,
            max_bulk,
            partial: None,
        }
    }

    /// Appends bytes read from the client.
    pub fn extend(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > 64 * 1024 && self.pos * 2 > self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes received for requests not yet answered: those buffered and not yet taken, and
    /// the arguments already taken of a request still arriving.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.pos + self.partial.as_ref().map_or(0, |p| p.bytes)
    }

    /// The next request, if a whole one is buffered; `authenticated` picks the limits.
    pub fn next(&mut self, authenticated: bool) -> Parsed {
        loop {
            if self.partial.is_some() {
                return self.arguments(authenticated);
            }
            let rest = &self.buf[self.pos..];
            if rest.is_empty() {
                return Parsed::Incomplete;
            }
            if rest[0] != b'*' {
                let (parsed, used) = inline(rest);
                match parsed {
                    // An empty line: consumed, no request (as Redis skips it).
                    Parsed::Request(argv) if argv.is_empty() => self.pos += used,
                    Parsed::Request(argv) => {
                        self.pos += used;
                        return Parsed::Request(argv);
                    }
                    other => return other,
                }
                continue;
            }
            match multibulk_count(rest, authenticated) {
                Ok(Some((n, used))) => {
                    self.pos += used;
                    // `*0` (or less): consumed, no request.
                    if n > 0 {
                        self.partial = Some(Partial {
                            // Reserve by what the buffer can hold, never by the declared
                            // count alone.
                            argv: Vec::with_capacity((n as usize).min(self.pending() / 4 + 1)),
                            left: n as usize,
                            ..Partial::default()
                        });
                    }
                }
                Ok(None) => return Parsed::Incomplete,
                Err(e) => return e,
            }
        }
    }

    /// Reads the arguments of the multibulk request under way, as far as the buffer goes.
    fn arguments(&mut self, authenticated: bool) -> Parsed {
        let Some(p) = self.partial.as_mut() else {
            return Parsed::Incomplete;
        };
        loop {
            let rest = &self.buf[self.pos..];
            if let Some((bulk, len)) = &mut p.bulk {
                let take = (*len - bulk.len()).min(rest.len());
                if bulk.len() + take > bulk.capacity() {
                    // Grown by doubling, never past its length.
                    let want = (bulk.capacity() * 2).clamp(bulk.len() + take, *len);
                    bulk.reserve_exact(want - bulk.len());
                }
                bulk.extend_from_slice(&rest[..take]);
                self.pos += take;
                p.bytes += take;
                if bulk.len() < *len {
                    return Parsed::Incomplete;
                }
                let (bulk, _) = p.bulk.take().unwrap_or_default();
                p.argv.push(bulk);
                p.left -= 1;
                // Redis skips the two bytes after the bulk without looking at them.
                p.skip = 2;
                continue;
            }
            if p.skip > 0 {
                let take = p.skip.min(rest.len());
                self.pos += take;
                p.skip -= take;
                if p.skip > 0 {
                    return Parsed::Incomplete;
                }
                continue;
            }
            if p.left == 0 {
                let argv = std::mem::take(&mut p.argv);
                self.partial = None;
                return Parsed::Request(argv);
            }
            if rest.is_empty() {
                return Parsed::Incomplete;
            }
            if rest[0] != b'$' {
                return Parsed::Error(expected_dollar(rest[0]));
            }
            let Some((head, used)) = line(rest) else {
                if rest.len() > INLINE_MAX {
                    return Parsed::Error("ERR Protocol error: too big bulk count string".into());
                }
                return Parsed::Incomplete;
            };
            let Some(len) =
                count(&head[1..]).filter(|&l| l >= 0 && l as u64 <= self.max_bulk as u64)
            else {
                return Parsed::Error("ERR Protocol error: invalid bulk length".into());
            };
            if !authenticated && len > 16384 {
                return Parsed::Error("ERR Protocol error: unauthenticated bulk length".into());
            }
            let len = len as usize;
            if len >= BIG_ARG {
                self.pos += used;
                p.bulk = Some((Vec::with_capacity(rest.len().min(len)), len));
                continue;
            }
            if rest.len() < used + len + 2 {
                return Parsed::Incomplete;
            }
            p.argv.push(rest[used..used + len].to_vec());
            p.bytes += len;
            p.left -= 1;
            // Redis skips the two bytes after the bulk without looking at them.
            self.pos += used + len + 2;
        }
    }
}

/// The line ending at the first `\n` (without `\r\n`/`\n`) and the bytes through it.
fn line(buf: &[u8]) -> Option<(&[u8], usize)> {
    let nl = buf.iter().position(|&b| b == b'\n')?;
    let end = if nl > 0 && buf[nl - 1] == b'\r' {
        nl - 1
    } else {
        nl
    };
    Some((&buf[..end], nl + 1))
}

fn inline(buf: &[u8]) -> (Parsed, usize) {
    let Some((text, used)) = line(buf) else {
        if buf.len() > INLINE_MAX {
            return (
                Parsed::Error("ERR Protocol error: too big inline request".into()),
                0,
            );
        }
        return (Parsed::Incomplete, 0);
    };
    match split_args(text) {
        Some(argv) => (Parsed::Request(argv), used),
        None => (
            Parsed::Error("ERR Protocol error: unbalanced quotes in request".into()),
            0,
        ),
    }
}

/// A count line's number as Redis' `string2ll` reads it (optional `-`, digits, no blanks).
fn count(digits: &[u8]) -> Option<i64> {
    std::str::from_utf8(digits)
        .ok()?
        .parse::<i64>()
        .ok()
        .filter(|_| {
            !digits.is_empty() && digits[0] != b'+' && !(digits.len() > 1 && digits[0] == b'0')
        })
}

/// A multibulk request's `*<n>` line: `Ok(Some((n, bytes used)))`, `Ok(None)` while it has
/// not all arrived, or the protocol error.
fn multibulk_count(buf: &[u8], authenticated: bool) -> Result<Option<(i64, usize)>, Parsed> {
    let Some((head, used)) = line(buf) else {
        if buf.len() > INLINE_MAX {
            return Err(Parsed::Error(
                "ERR Protocol error: too big mbulk count string".into(),
            ));
        }
        return Ok(None);
    };
    let Some(n) = count(&head[1..]).filter(|&n| n <= i32::MAX as i64) else {
        return Err(Parsed::Error(
            "ERR Protocol error: invalid multibulk length".into(),
        ));
    };
    if !authenticated && n > 10 {
        return Err(Parsed::Error(
            "ERR Protocol error: unauthenticated multibulk length".into(),
        ));
    }
    Ok(Some((n, used)))
}

/// `ERR Protocol error: expected '$', got 'X'` for the byte found (Redis prints it with `%c`;
/// a byte outside ASCII is shown as U+FFFD here, since replies are text).
fn expected_dollar(b: u8) -> String {
    let c = if b.is_ascii() {
        b as char
    } else {
        char::REPLACEMENT_CHARACTER
    };
    format!("ERR Protocol error: expected '$', got '{c}'")
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Splits an inline request line into words as Redis' `sdssplitargs` does; `None` for
/// unbalanced quotes (or a closing quote not followed by a blank).
pub fn split_args(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let blank = |b: u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c);
    let mut argv = Vec::new();
    let mut i = 0;
    loop {
        while i < line.len() && blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            return Some(argv);
        }
        let mut word = Vec::new();
        let (mut inq, mut insq) = (false, false);
        loop {
            if inq {
                let c = *line.get(i)?;
                if c == b'\\'
                    && line.get(i + 1) == Some(&b'x')
                    && line.get(i + 2).and_then(|&b| hex(b)).is_some()
                    && line.get(i + 3).and_then(|&b| hex(b)).is_some()
                {
                    word.push(hex(line[i + 2])? * 16 + hex(line[i + 3])?);
                    i += 3;
                } else if c == b'\\' && i + 1 < line.len() {
                    i += 1;
                    word.push(match line[i] {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        b'a' => 7,
                        other => other,
                    });
                } else if c == b'"' {
                    if i + 1 < line.len() && !blank(line[i + 1]) {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    word.push(c);
                }
            } else if insq {
                let c = *line.get(i)?;
                if c == b'\\' && line.get(i + 1) == Some(&b'\'') {
                    i += 1;
                    word.push(b'\'');
                } else if c == b'\'' {
                    if i + 1 < line.len() && !blank(line[i + 1]) {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    word.push(c);
                }
            } else {
                match line.get(i) {
                    None => break,
                    Some(&c) if blank(c) => break,
                    Some(b'"') => inq = true,
                    Some(b'\'') => insq = true,
                    Some(&c) => word.push(c),
                }
            }
            i += 1;
        }
        argv.push(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &mut Parser, authed: bool) -> Vec<Parsed> {
        let mut out = Vec::new();
        loop {
            match p.next(authed) {
                Parsed::Incomplete => return out,
                e @ Parsed::Error(_) => {
                    out.push(e);
                    return out;
                }
                r => out.push(r),
            }
        }
    }

    fn req(words: &[&str]) -> Parsed {
        Parsed::Request(words.iter().map(|w| w.as_bytes().to_vec()).collect())
    }

    #[test]
    fn multibulk_split_anywhere() {
        let wire = b"*2\r\n$4\r\nPING\r\n$3\r\nabc\r\n*1\r\n$6\r\nDBSIZE\r\n";
        for cut in 0..wire.len() {
            let mut p = Parser::new(512 << 20);
            p.extend(&wire[..cut]);
            let mut got = all(&mut p, true);
            p.extend(&wire[cut..]);
            got.extend(all(&mut p, true));
            assert_eq!(
                got,
                vec![req(&["PING", "abc"]), req(&["DBSIZE"])],
                "cut {cut}"
            );
            assert_eq!(p.pending(), 0);
        }
    }

    #[test]
    fn inline_words_and_quotes() {
        let mut p = Parser::new(1 << 20);
        p.extend(b"GET \"a b\\x41\\n\" 'it\\'s'\r\n\r\nPING\n");
        assert_eq!(
            all(&mut p, true),
            vec![req(&["GET", "a bA\n", "it's"]), req(&["PING"])]
        );
        let mut p = Parser::new(1 << 20);
        p.extend(b"GET \"abc\"x\r\n");
        assert_eq!(
            all(&mut p, true),
            vec![Parsed::Error(
                "ERR Protocol error: unbalanced quotes in request".into()
            )]
        );
    }

    #[test]
    fn limits_and_errors() {
        let cases: [(&[u8], bool, &str); 6] = [
            (
                b"*2\r\n+x\r\n",
                true,
                "ERR Protocol error: expected '$', got '+'",
            ),
            (
                b"*x\r\n",
                true,
                "ERR Protocol error: invalid multibulk length",
            ),
            (
                b"*11\r\n",
                false,
                "ERR Protocol error: unauthenticated multibulk length",
            ),
            (
                b"*1\r\n$16385\r\n",
                false,
                "ERR Protocol error: unauthenticated bulk length",
            ),
            (
                b"*1\r\n$200000\r\n",
                true,
                "ERR Protocol error: invalid bulk length",
            ),
            (
                b"*1\r\n$-1\r\n",
                true,
                "ERR Protocol error: invalid bulk length",
            ),
        ];
        for (wire, authed, text) in cases {
            let mut p = Parser::new(100_000);
            p.extend(wire);
            assert_eq!(
                all(&mut p, authed),
                vec![Parsed::Error(text.into())],
                "{wire:?}"
            );
        }
        let mut p = Parser::new(1000);
        p.extend(&vec![b'a'; INLINE_MAX + 1]);
        assert_eq!(
            all(&mut p, true),
            vec![Parsed::Error(
                "ERR Protocol error: too big inline request".into()
            )]
        );
    }

    #[test]
    fn huge_declared_count_allocates_by_input() {
        let mut p = Parser::new(1000);
        p.extend(b"*2147483647\r\n$1\r\na\r\n");
        assert_eq!(all(&mut p, true), vec![]);
        assert!(p.pending() < 100);
    }

    /// Every byte fed alone: the same requests as fed at once, with a big bulk among them.
    #[test]
    fn one_byte_at_a_time() {
        let big = vec![b'x'; BIG_ARG + 5];
        let mut wire = b"*3\r\n$4\r\nECHO\r\n$1\r\na\r\n".to_vec();
        wire.extend_from_slice(format!("${}\r\n", big.len()).as_bytes());
        wire.extend_from_slice(&big);
        wire.extend_from_slice(b"\r\nPING\r\n");
        let mut p = Parser::new(512 << 20);
        let mut got = Vec::new();
        for b in &wire {
            p.extend(std::slice::from_ref(b));
            got.extend(all(&mut p, true));
        }
        assert_eq!(
            got,
            vec![
                Parsed::Request(vec![b"ECHO".to_vec(), b"a".to_vec(), big]),
                req(&["PING"])
            ]
        );
        assert_eq!(p.pending(), 0);
    }

    /// A big argument arriving in reads of 16 KiB is held once, at its length: the buffer
    /// keeps no copy, the argument no slack (Redis' `PROTO_MBULK_BIG_ARG` path). While it
    /// arrives, its bytes count as pending (the query-buffer limit sees them).
    #[test]
    fn big_argument_held_once() {
        let len = 3 * 1024 * 1024 + 7;
        let mut wire = format!("*2\r\n$4\r\nECHO\r\n${len}\r\n").into_bytes();
        wire.extend(std::iter::repeat_n(b'y', len));
        wire.extend_from_slice(b"\r\n");
        let mut p = Parser::new(512 << 20);
        let mut got = Vec::new();
        for (i, chunk) in wire.chunks(16 * 1024).enumerate() {
            p.extend(chunk);
            got.extend(all(&mut p, true));
            if got.is_empty() {
                // (Less the framing taken: `*2`, `$4`, the CRLF after ECHO and the bulk's header.)
                assert_eq!(p.pending(), (i + 1) * 16 * 1024 - 20);
                assert!(p.buf.capacity() <= 64 * 1024, "the buffer holds no copy");
            }
        }
        let [Parsed::Request(argv)] = &got[..] else {
            panic!("{} requests", got.len())
        };
        assert_eq!(argv[1].len(), len);
        assert_eq!(argv[1].capacity(), len, "no slack");
        assert!(argv[1].iter().all(|&b| b == b'y'));
        assert_eq!(p.pending(), 0);
    }

    /// Many small arguments sent in many reads are each parsed once: the arguments already
    /// taken leave the buffer (a request of 200,000 arguments in 1 KiB reads keeps the buffer
    /// under one read and its header's line).
    #[test]
    fn many_arguments_taken_as_they_arrive() {
        let n = 200_000;
        let mut wire = format!("*{n}\r\n").into_bytes();
        for i in 0..n {
            let a = i.to_string();
            wire.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
        }
        let mut p = Parser::new(512 << 20);
        let mut got = Vec::new();
        for chunk in wire.chunks(1024) {
            p.extend(chunk);
            assert!(p.buf.len() - p.pos < 2048);
            got.extend(all(&mut p, true));
        }
        let [Parsed::Request(argv)] = &got[..] else {
            panic!("{} requests", got.len())
        };
        assert_eq!(argv.len(), n);
        assert_eq!(argv[n - 1], (n - 1).to_string().into_bytes());
    }
}
