//! Key pages and multi-command reads for key browsers and dashboards: what the JS API's
//! `keyList` and `bitopOrCount` answer, as core functions returning plain values (the wasm
//! glue only converts them).
//!
//! - [`key_page`]: the keys matching a Redis glob (`KEYS` semantics, [`bitlens::glob`]), the
//!   first `limit` of them in byte order, with the total count.
//! - [`bitop_or_count`]: `BITOP OR scratch key…` then `BITCOUNT scratch`, with the scratch key
//!   put back as it was (removed, or its previous value and expiry restored).

use bitlens::command::{execute_in, Ctx};
use bitlens::keyspace::Keyspace;
use bitlens::reply::Reply;

/// One page of [`key_page`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPage<'a> {
    /// How many keys match the pattern.
    pub total: usize,
    /// The first `limit` matching keys, sorted by their bytes.
    pub keys: Vec<&'a [u8]>,
}

/// The keys of `ks` matching the Redis glob `pattern`, as `KEYS pattern` selects them: `total`
/// matches, the first `limit` of them (in byte order) listed. Keys already expired at the
/// keyspace's clock are counted and listed only with `expired` true.
pub fn key_page<'a>(ks: &'a Keyspace, pattern: &[u8], limit: usize, expired: bool) -> KeyPage<'a> {
    let all: Box<dyn Iterator<Item = (&'a [u8], bitlens::keyspace::EntryRef<'a>)>> = if expired {
        Box::new(ks.iter_all())
    } else {
        Box::new(ks.iter())
    };
    let mut keys: Vec<&[u8]> = all
        .map(|(k, _)| k)
        .filter(|k| bitlens::glob::matches(pattern, k))
        .collect();
    let total = keys.len();
    let limit = limit.min(total);
    if limit < total {
        keys.select_nth_unstable(limit);
        keys.truncate(limit);
    }
    bitlens::sort::sort_by(&mut keys, |a, b| a.cmp(b));
    KeyPage { total, keys }
}

/// A command's error reply, as the server words it (`WRONGTYPE Operation against a key …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorReply(pub String);

impl std::fmt::Display for ErrorReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ErrorReply {}

/// The number of bits set in any of the strings at `keys`: `BITOP OR scratch key…` then
/// `BITCOUNT scratch`, as the server answers them (missing keys are empty; a key of another
/// type gives Redis' `WRONGTYPE` error text as `Err`). The scratch key is restored afterwards:
/// removed when it did not exist, else given back its value and expiry.
pub fn bitop_or_count(
    ctx: &mut Ctx<'_>,
    keys: &[&[u8]],
    scratch: &[u8],
) -> Result<u64, ErrorReply> {
    let saved = ctx
        .ks
        .entry(scratch)
        .map(bitlens::keyspace::EntryRef::to_owned);
    let mut argv = vec![b"BITOP".to_vec(), b"OR".to_vec(), scratch.to_vec()];
    argv.extend(keys.iter().map(|k| k.to_vec()));
    let result = match execute_in(ctx, &argv) {
        Reply::Error(e) => Err(ErrorReply(e)),
        _ => match execute_in(ctx, &[b"BITCOUNT".to_vec(), scratch.to_vec()]) {
            Reply::Integer(n) => Ok(n as u64),
            Reply::Error(e) => Err(ErrorReply(e)),
            other => Err(ErrorReply(format!("BITCOUNT: unexpected reply {other:?}"))),
        },
    };
    match saved {
        Some(e) => ctx.ks.insert(scratch, e.value, e.expire_at_ms),
        None => {
            ctx.ks.remove(scratch);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitlens::command::execute_as;
    use bitlens::dialect::Profile;
    use bitlens::keyspace::Value;

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        let p = Profile::default_profile();
        let cmds: [&[&str]; 4] = [
            &["SETBIT", "d:1", "0", "1"],
            &["SETBIT", "d:1", "9", "1"],
            &["SETBIT", "d:2", "9", "1"],
            &["SETBIT", "d:2", "100", "1"],
        ];
        for argv in cmds {
            execute_as(&mut ks, p, argv);
        }
        let keep = bitlens::string::RedisString::from_bytes(b"keep".to_vec());
        ks.insert(b"scratch", Value::String(keep), None);
        ks.insert(
            b"list",
            Value::list(bitlens::list::List::new(
                bitlens::list::ListEncoding::Quicklist,
            )),
            None,
        );
        ks
    }

    #[test]
    fn key_page_sorts_counts_and_limits_as_keys() {
        let ks = ks();
        let page = key_page(&ks, b"d:*", 1, false);
        assert_eq!(page.total, 2);
        assert_eq!(page.keys, vec![&b"d:1"[..]]);
        let all = key_page(&ks, b"*", 100, false);
        assert_eq!(all.keys, vec![&b"d:1"[..], b"d:2", b"list", b"scratch"]);
        assert_eq!(key_page(&ks, b"x*", 10, false).total, 0);
    }

    #[test]
    fn bitop_or_count_equals_the_two_commands_and_restores_the_scratch_key() {
        let mut ks = ks();
        let p = Profile::default_profile();
        let mut copy = ks.clone();
        execute_as(&mut copy, p, &["BITOP", "OR", "t", "d:1", "d:2", "missing"]);
        let expected = match execute_as(&mut copy, p, &["BITCOUNT", "t"]) {
            Reply::Integer(n) => n as u64,
            other => panic!("{other:?}"),
        };
        assert_eq!(expected, 3);
        let mut ctx = Ctx::single(&mut ks, p);
        let keys: [&[u8]; 3] = [b"d:1", b"d:2", b"missing"];
        assert_eq!(bitop_or_count(&mut ctx, &keys, b"scratch"), Ok(expected));
        assert_eq!(
            execute_as(&mut ks, p, &["GET", "scratch"]),
            Reply::Bulk(b"keep".to_vec())
        );
        let mut ctx = Ctx::single(&mut ks, p);
        assert_eq!(bitop_or_count(&mut ctx, &keys, b"fresh"), Ok(3));
        assert_eq!(
            execute_as(&mut ks, p, &["EXISTS", "fresh"]),
            Reply::Integer(0)
        );
        let mut ctx = Ctx::single(&mut ks, p);
        let err = bitop_or_count(&mut ctx, &[b"d:1", b"list"], b"fresh").unwrap_err();
        assert!(err.0.starts_with("WRONGTYPE"), "{err}");
        assert_eq!(
            execute_as(&mut ks, p, &["EXISTS", "fresh"]),
            Reply::Integer(0)
        );
    }
}
