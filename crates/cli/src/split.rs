//! Splitting an input line into arguments exactly as `redis-cli` does in its interactive /
//! piped mode (rules established by experiment against redis-cli 7.0):
//!
//! - Arguments are separated by whitespace; leading and trailing whitespace is ignored.
//! - Outside quotes, a `"` or `'` starts a quoted part even in the middle of an argument
//!   (`a"b c"` is the single argument `ab c`).
//! - Inside double quotes: `\xHH` (two hex digits) is that byte; `\n`, `\r`, `\t`, `\b`, `\a`
//!   are the control characters; a backslash before any other character yields that character
//!   (so `\"` and `\\`, and `\x4g` gives `x4g`).
//! - Inside single quotes only `\'` is an escape.
//! - A closing quote must be followed by whitespace or the end of the line, and every quote must
//!   be closed; otherwise the whole line is invalid (redis-cli prints `Invalid argument(s)`).

/// The line could not be split (unbalanced quotes or a quote directly followed by text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidArguments;

/// Whitespace as C's `isspace` sees it (space, \t, \n, \v, \f, \r).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Appends the byte of the escape at the start of `esc` (a backslash and at least one more
/// byte) inside double quotes; returns how many bytes it took (4 for `\xHH`, else 2).
fn double_quoted_escape(esc: &[u8], cur: &mut Vec<u8>) -> usize {
    if esc[1] == b'x' && esc.len() > 3 {
        if let (Some(h), Some(l)) = (hex_val(esc[2]), hex_val(esc[3])) {
            cur.push(h * 16 + l);
            return 4;
        }
    }
    cur.push(match esc[1] {
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'b' => 0x08,
        b'a' => 0x07,
        other => other,
    });
    2
}

/// Splits one line into arguments with redis-cli's rules. An empty or blank line gives an empty
/// vector. A NUL byte ends the line, as it ends the C string redis-cli's `sdssplitargs` reads
/// (so an open quote before it is unbalanced).
pub fn split_args(line: &[u8]) -> Result<Vec<Vec<u8>>, InvalidArguments> {
    let line = &line[..line.iter().position(|&b| b == 0).unwrap_or(line.len())];
    let mut args = Vec::new();
    let mut i = 0;
    let n = line.len();
    loop {
        while i < n && is_space(line[i]) {
            i += 1;
        }
        if i >= n {
            return Ok(args);
        }
        let mut cur = Vec::new();
        // None = unquoted, else the quote character the part is inside.
        let mut quote: Option<u8> = None;
        loop {
            match quote {
                Some(q) => {
                    if i >= n {
                        return Err(InvalidArguments);
                    }
                    let c = line[i];
                    if c == b'\\' && i + 1 < n && q == b'"' {
                        i += double_quoted_escape(&line[i..], &mut cur);
                    } else if c == b'\\' && i + 1 < n && q == b'\'' && line[i + 1] == b'\'' {
                        cur.push(b'\'');
                        i += 2;
                    } else if c == q {
                        if i + 1 < n && !is_space(line[i + 1]) {
                            return Err(InvalidArguments);
                        }
                        i += 1;
                        break;
                    } else {
                        cur.push(c);
                        i += 1;
                    }
                }
                None => {
                    if i >= n {
                        break;
                    }
                    match line[i] {
                        b' ' | b'\n' | b'\r' | b'\t' => break,
                        c @ (b'"' | b'\'') => quote = Some(c),
                        c => cur.push(c),
                    }
                    i += 1;
                }
            }
        }
        args.push(cur);
    }
}

/// What one input line asks redis-cli to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAction {
    /// Nothing (blank line).
    Skip,
    /// Print this message line (redis-cli's own complaint) and go on.
    Message(&'static str),
    /// Leave the loop (`quit` / `exit`, any case).
    Quit,
    /// Run `argv` this many times.
    Run { times: u64, argv: Vec<Vec<u8>> },
}

/// Interprets one line as redis-cli's prompt loop does: splitting, `quit`/`exit`, and the
/// repeat prefix (`3 PING` runs PING three times; a non-positive or overflowing count is refused
/// with redis-cli's message).
pub fn parse_line(line: &[u8]) -> LineAction {
    let mut argv = match split_args(line) {
        Ok(a) => a,
        Err(InvalidArguments) => return LineAction::Message("Invalid argument(s)"),
    };
    if argv.is_empty() {
        return LineAction::Skip;
    }
    if argv[0].eq_ignore_ascii_case(b"quit") || argv[0].eq_ignore_ascii_case(b"exit") {
        return LineAction::Quit;
    }
    let mut times = 1u64;
    if argv.len() > 1 {
        if let Some(r) = parse_repeat(&argv[0]) {
            match r {
                Some(t) => times = t,
                None => {
                    return LineAction::Message("Invalid redis-cli repeat command option value.")
                }
            }
            argv.remove(0);
        }
    }
    LineAction::Run { times, argv }
}

/// `None` when `s` is not a whole decimal number (as C `strtol` with an end check sees it: an
/// optional sign then digits); `Some(None)` when it is one but not in 1..=i64::MAX;
/// `Some(Some(n))` otherwise.
fn parse_repeat(s: &[u8]) -> Option<Option<u64>> {
    let (neg, digits) = match s.first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for d in digits {
        match v
            .checked_mul(10)
            .and_then(|x| x.checked_add(u64::from(d - b'0')))
        {
            Some(x) if x <= i64::MAX as u64 => v = x,
            _ => return Some(None),
        }
    }
    if neg || v == 0 {
        return Some(None);
    }
    Some(Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(line: &str) -> Result<Vec<String>, InvalidArguments> {
        split_args(line.as_bytes()).map(|v| {
            v.into_iter()
                .map(|a| String::from_utf8(a).unwrap())
                .collect()
        })
    }

    #[test]
    fn plain_and_quoted() {
        assert_eq!(s("  GET  a \t b\r\n").unwrap(), ["GET", "a", "b"]);
        assert_eq!(
            s(r#"SET a "x\x41\n\t\"q""#).unwrap(),
            ["SET", "a", "xA\n\t\"q"]
        );
        assert_eq!(s(r"SET b 'it\'s'").unwrap(), ["SET", "b", "it's"]);
        assert_eq!(s(r#"GET a"b""#).unwrap(), ["GET", "ab"]);
        assert_eq!(s(r#"ECHO "\z\b\a\r""#).unwrap(), ["ECHO", "z\x08\x07\r"]);
        assert_eq!(s(r#"ECHO "\x4g""#).unwrap(), ["ECHO", "x4g"]);
        assert_eq!(s(r#"ECHO "\x4""#).unwrap(), ["ECHO", "x4"]);
        assert_eq!(s(r#"ECHO """#).unwrap(), ["ECHO", ""]);
        assert_eq!(s("ECHO \"a\"\tb").unwrap(), ["ECHO", "a", "b"]);
        assert_eq!(s(r"ECHO 'x\n'").unwrap(), ["ECHO", r"x\n"]);
        assert_eq!(s("   ").unwrap(), Vec::<String>::new());
        assert_eq!(
            split_args(br#""\xff\x00""#).unwrap(),
            vec![vec![0xffu8, 0x00]]
        );
    }

    /// A NUL byte ends the line (it looped forever pushing empty words, helper-20).
    #[test]
    fn a_nul_byte_ends_the_line() {
        let v = |a: &[&str]| -> Vec<Vec<u8>> { a.iter().map(|x| x.as_bytes().to_vec()).collect() };
        assert_eq!(split_args(b"GET a\x00b c").unwrap(), v(&["GET", "a"]));
        assert_eq!(split_args(b"\x00").unwrap(), v(&[]));
        assert_eq!(split_args(b"GET \x00\x00\x00 x").unwrap(), v(&["GET"]));
        assert_eq!(split_args(b"GET \"a\x00b\""), Err(InvalidArguments));
        assert_eq!(parse_line(b"\x00PING"), LineAction::Skip);
    }

    #[test]
    fn invalid_lines() {
        for bad in [
            r#"GET "unterminated"#,
            "GET 'x",
            r#"GET "a"b"#,
            "ECHO 'a'b",
            r#"ECHO "abc\"#,
            r#"ECHO a\"b"#,
            r"ECHO '\\a\\'",
        ] {
            assert_eq!(s(bad), Err(InvalidArguments), "{bad}");
        }
    }

    #[test]
    fn repeat_and_quit() {
        let run = |t: u64, a: &[&str]| LineAction::Run {
            times: t,
            argv: a.iter().map(|x| x.as_bytes().to_vec()).collect(),
        };
        assert_eq!(parse_line(b"3 ECHO x"), run(3, &["ECHO", "x"]));
        assert_eq!(parse_line(b"+2 PING"), run(2, &["PING"]));
        assert_eq!(parse_line(b"2"), run(1, &["2"]));
        assert_eq!(parse_line(b"1x PING"), run(1, &["1x", "PING"]));
        let bad = LineAction::Message("Invalid redis-cli repeat command option value.");
        assert_eq!(parse_line(b"0 PING"), bad);
        assert_eq!(parse_line(b"-1 PING"), bad);
        assert_eq!(parse_line(b"99999999999999999999 PING"), bad);
        assert_eq!(parse_line(b"Quit"), LineAction::Quit);
        assert_eq!(parse_line(b"exit"), LineAction::Quit);
        assert_eq!(parse_line(b"quit now"), LineAction::Quit);
        assert_eq!(parse_line(b""), LineAction::Skip);
        assert_eq!(
            parse_line(b"GET \"x"),
            LineAction::Message("Invalid argument(s)")
        );
    }
}
