//! The one way bitlens shows a key or value name that may hold any byte: in text as
//! `redis-cli` quotes it, in JSON as a string when it is valid UTF-8 and else as
//! `{"hex": "…"}`, so that no byte of an untrusted snapshot reaches a terminal or a JSON reader
//! unescaped and every name round-trips.
//!
//! Text form (redis-cli's `sdscatrepr`, as its terminal output prints `1) "key"`): the name in
//! double quotes, with `\\`, `\"`, `\n`, `\r`, `\t`, `\a`, `\b` for those bytes, printable
//! ASCII (0x20..=0x7e) as itself and every other byte as `\xHH` (lower-case hex, as
//! redis-cli prints it: `"bin:\x00\xff"`). [`display`] leaves a name bare when it is all
//! printable ASCII other than space, `"`, `'` and `\`, and quotes it otherwise.

/// `bytes` in redis-cli's quoted form: `"bin:\x00\xff"` (see the module docs).
pub fn quote(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\x");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out.push('"');
    out
}

/// True when `bytes` can be shown bare: non-empty, printable ASCII, no space, quote or
/// backslash.
pub fn is_plain(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes
            .iter()
            .all(|&b| (0x21..=0x7e).contains(&b) && !matches!(b, b'"' | b'\'' | b'\\'))
}

/// A name for text output: bare when [`is_plain`], else [`quote`]d. The result holds only
/// printable ASCII.
pub fn display(bytes: &[u8]) -> String {
    if is_plain(bytes) {
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        quote(bytes)
    }
}

/// A name as a JSON value, as text: a JSON string when `bytes` is valid UTF-8 (control
/// characters as `\u00XX`, `"` and `\` escaped), else `{"hex":"<lower-case hex>"}`.
pub fn json(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => json_str(s),
        Err(_) => {
            let mut out = String::with_capacity(2 * bytes.len() + 10);
            out.push_str("{\"hex\":\"");
            for b in bytes {
                out.push_str(&format!("{b:02x}"));
            }
            out.push_str("\"}");
            out
        }
    }
}

/// `s` as a JSON string literal (RFC 8259: `"`, `\` and control characters escaped; DEL and
/// the C1 controls as `\u00XX` too, so that no terminal control byte passes).
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The bytes a [`json`] name stands for: the string's UTF-8, or the decoded `hex`. `None`
/// when `hex` is not an even-length run of hex digits.
pub fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The first characters of a CSV cell that make a spreadsheet (Excel, LibreOffice Calc,
/// Google Sheets) read it as a formula: `=`, `+`, `-`, `@`, TAB and CR (OWASP's list for CSV
/// injection).
pub const CSV_FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Whether a text cell needs the `'` guard: it starts with one of [`CSV_FORMULA_STARTS`], or
/// with a run of `'` followed by one of them (so that taking one `'` off undoes the guard
/// exactly, whatever the text).
fn needs_formula_guard(text: &str) -> bool {
    text.trim_start_matches('\'')
        .starts_with(CSV_FORMULA_STARTS)
}

/// One text cell of a CSV file as written, the one function of the CLI's CSV writers
/// (`bitlens inspect --csv`, `inspect --series --csv` and `bitlens export --format csv`):
///
/// - a cell a spreadsheet would run as a formula (see [`CSV_FORMULA_STARTS`]; also a run of
///   `'` before such a character) gets a `'` in front and is always quoted, as OWASP advises:
///   `=1+1` is written `"'=1+1"`;
/// - otherwise it is quoted as RFC 4180 says when it holds `,`, `"`, CR or LF, and left bare
///   else;
/// - inside quotes a `"` is doubled.
///
/// The writer puts the result in the line as it is (no quoting of its own). Read back: after
/// the CSV reader's unquoting, a cell that starts with `'` and, past its leading `'`s, with one
/// of `= + - @` TAB CR had one `'` added: drop the first character (regex
/// `^'(?='*[=+\-@\t\r])`). Only text cells go through here; numbers (a negative growth, a
/// longitude) are written as they are.
pub fn csv_text_cell(text: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let guard = needs_formula_guard(text);
    let quote = guard || text.contains([',', '"', '\r', '\n']);
    if !quote {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4);
    out.push('"');
    if guard {
        out.push('\'');
    }
    for c in text.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
    Cow::Owned(out)
}

/// The text a [`csv_text_cell`] stood for, from the cell as a CSV reader returns it (unquoted):
/// the documented read-back (one `'` dropped before a formula start).
pub fn csv_text_unguard(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if needs_formula_guard(rest) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_cli_quoting() {
        // redis-cli 7.0.15 `KEYS *` on a terminal prints these keys as shown.
        assert_eq!(quote(b"bin:\x00\xff"), r#""bin:\x00\xff""#);
        assert_eq!(quote(b"esc:\x1b[31mred"), r#""esc:\x1b[31mred""#);
        assert_eq!(quote(b"a\"b\\c\n\r\t\x07\x08"), r#""a\"b\\c\n\r\t\a\b""#);
        assert_eq!(quote("é".as_bytes()), r#""\xc3\xa9""#);
        assert_eq!(display(b"user:1"), "user:1");
        assert_eq!(display(b"two words"), "\"two words\"");
        assert_eq!(display(b""), "\"\"");
        for b in 0..=255u8 {
            let shown = display(&[b'k', b]);
            assert!(
                shown.bytes().all(|c| (0x20..=0x7e).contains(&c)),
                "{b}: {shown}"
            );
        }
    }

    #[test]
    fn json_names_round_trip() {
        assert_eq!(json(b"plain"), "\"plain\"");
        assert_eq!(json(b"esc:\x1b[31m"), "\"esc:\\u001b[31m\"");
        assert_eq!(json(b"bin:\x00\xff"), "{\"hex\":\"62696e3a00ff\"}");
        assert_eq!(from_hex("62696e3a00ff").unwrap(), b"bin:\x00\xff");
        assert_eq!(from_hex("6"), None);
        assert_eq!(json_str("\u{9b}x"), "\"\\u009bx\"");
    }
    #[test]
    fn csv_cells_never_start_a_formula_and_read_back_exactly() {
        assert_eq!(csv_text_cell("user:1"), "user:1");
        assert_eq!(csv_text_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_text_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_text_cell("=1+1"), "\"'=1+1\"");
        assert_eq!(csv_text_cell("-1"), "\"'-1\"");
        assert_eq!(csv_text_cell("@SUM(A1:A9)"), "\"'@SUM(A1:A9)\"");
        assert_eq!(
            csv_text_cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(csv_text_cell("\tx"), "\"'\tx\"");
        assert_eq!(csv_text_cell("'=x"), "\"''=x\"");
        assert_eq!(csv_text_cell("'plain"), "'plain");
        assert_eq!(csv_text_cell("a=b"), "a=b");
        for text in [
            "=1+1",
            "+1+1",
            "-1+1",
            "@SUM(A1:A9)",
            "'=x",
            "''-y",
            "'plain",
            "'",
            "",
            "-",
            "\rx",
            "a=b",
            "=",
            "x'",
            " lead",
            "\"q",
            "a\nb",
        ] {
            let cell = csv_text_cell(text);
            // What a CSV reader returns for the cell.
            let read = match cell.strip_prefix('"') {
                Some(q) => q.strip_suffix('"').unwrap().replace("\"\"", "\""),
                None => cell.to_string(),
            };
            assert!(!read.starts_with(CSV_FORMULA_STARTS), "{text:?} -> {cell}");
            assert_eq!(csv_text_unguard(&read), text, "{text:?} -> {cell}");
        }
    }
}
