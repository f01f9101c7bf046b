//! Key templates, as the panel's settings write them (`stats:active:{date}`: literal text and
//! `{name}` placeholders of word characters): the glob of the keys a template can produce and
//! the `{date}` a key carries, read as the panel's `globFor` and `capture` read them (a
//! placeholder is one or more bytes other than a line break, `{date}` exactly 8 digits).

/// A key template's parts: literal bytes, or a `{name}` placeholder (`name` of word characters,
/// as the panel's settings write them: `stats:active:{date}`).
pub enum Part<'t> {
    /// Bytes the key holds as they are.
    Literal(&'t [u8]),
    /// `{date}`: exactly 8 ASCII digits (`YYYYMMDD`).
    Date,
    /// Any other placeholder: one or more bytes other than a line break.
    Any,
}

/// `template` split into its parts (a `{` without a word and `}` after it is literal).
pub fn parts(template: &str) -> Vec<Part<'_>> {
    let t = template.as_bytes();
    let mut out = Vec::new();
    let (mut lit, mut i) = (0, 0);
    while i < t.len() {
        let word = t[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        if t[i] == b'{' && word > 0 && t.get(i + 1 + word) == Some(&b'}') {
            if lit < i {
                out.push(Part::Literal(&t[lit..i]));
            }
            let name = &t[i + 1..i + 1 + word];
            out.push(if name == b"date" {
                Part::Date
            } else {
                Part::Any
            });
            i += word + 2;
            lit = i;
        } else {
            i += 1;
        }
    }
    if lit < t.len() {
        out.push(Part::Literal(&t[lit..]));
    }
    out
}

/// The Redis glob matching every key `parts` can produce: placeholders are `*`, literal bytes
/// are escaped (the panel's `globFor`).
pub fn glob(parts: &[Part<'_>]) -> Vec<u8> {
    let mut g = Vec::new();
    for p in parts {
        match p {
            Part::Literal(l) => {
                for &b in *l {
                    if matches!(b, b'*' | b'?' | b'[' | b']' | b'\\') {
                        g.push(b'\\');
                    }
                    g.push(b);
                }
            }
            Part::Date | Part::Any => g.push(b'*'),
        }
    }
    g
}

/// The `{date}` of `key` when `key` matches the whole template (the first `{date}`, with each
/// other placeholder as short as the match allows, as the panel's `capture` reads it).
pub fn date_of<'k>(parts: &[Part<'_>], key: &'k [u8]) -> Option<&'k [u8]> {
    fn walk<'k>(parts: &[Part<'_>], key: &'k [u8], at: usize) -> Option<Option<&'k [u8]>> {
        let Some((first, rest)) = parts.split_first() else {
            return (at == key.len()).then_some(None);
        };
        match first {
            Part::Literal(l) => {
                if key[at..].starts_with(l) {
                    walk(rest, key, at + l.len())
                } else {
                    None
                }
            }
            Part::Date => {
                let d = key.get(at..at + 8)?;
                if !d.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                walk(rest, key, at + 8).map(|_| Some(d))
            }
            Part::Any => (at + 1..=key.len())
                .take_while(|&end| !matches!(key[end - 1], b'\n' | b'\r'))
                .find_map(|end| walk(rest, key, end)),
        }
    }
    walk(parts, key, 0).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_give_globs_and_dates_as_the_panel_reads_them() {
        let p = parts("stats:active:{date}");
        assert_eq!(glob(&p), b"stats:active:*");
        assert_eq!(
            date_of(&p, b"stats:active:20240520"),
            Some(&b"20240520"[..])
        );
        assert_eq!(date_of(&p, b"stats:active:2024052"), None);
        assert_eq!(date_of(&p, b"stats:active:202405201"), None);
        let p = parts("uv:page:{page}:{date}");
        assert_eq!(glob(&p), b"uv:page:*:*");
        assert_eq!(date_of(&p, b"uv:page:a:b:20240101"), Some(&b"20240101"[..]));
        assert_eq!(date_of(&p, b"uv::20240101"), None);
        let p = parts("a*[{x}]{}");
        assert_eq!(glob(&p), b"a\\*\\[*\\]{}");
        assert_eq!(date_of(&p, b"a*[q]{}"), None);
    }
}
