//! RedisBloom Count-Min sketch commands, with the replies and errors of RedisBloom 2.8.2
//! (`CMS: key does not exist`, WRONGTYPE): reads CMS.QUERY, CMS.INFO; writes (to the
//! in-memory copy only) CMS.INITBYDIM, CMS.INITBYPROB, CMS.INCRBY, CMS.MERGE.

use super::args::{parse_f64, parse_i64};
use super::module_keys::{self, lookup_mut, store, Lookup};
use super::{CommandSpec, Ctx};
use crate::probabilistic::cms::Cms;
use crate::probabilistic::{too_large, ModuleData};
use crate::reply::Reply;

/// Count-Min sketch commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "cms.query",
        arity: -3,
        handler: cms_query,
    },
    CommandSpec {
        name: "cms.info",
        arity: 2,
        handler: cms_info,
    },
    CommandSpec {
        name: "cms.initbydim",
        arity: -1,
        handler: cms_init,
    },
    CommandSpec {
        name: "cms.initbyprob",
        arity: -1,
        handler: cms_init,
    },
    CommandSpec {
        name: "cms.incrby",
        arity: -1,
        handler: cms_incrby,
    },
    CommandSpec {
        name: "cms.merge",
        arity: -1,
        handler: cms_merge,
    },
];

fn arity(argv: &[Vec<u8>]) -> Reply {
    Reply::err(format!(
        "ERR wrong number of arguments for '{}' command",
        String::from_utf8_lossy(&argv[0]).to_ascii_lowercase()
    ))
}

/// CMS.INITBYDIM key width depth / CMS.INITBYPROB key error probability: `OK`. The key is
/// checked before the arguments.
fn cms_init(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 4 {
        return arity(argv);
    }
    if ctx.ks.get(&argv[1]).is_some() {
        return Reply::err("CMS: key already exists");
    }
    let (width, depth) = if argv[0].eq_ignore_ascii_case(b"cms.initbydim") {
        let Some(w) = parse_i64(&argv[2]).filter(|&w| w >= 1) else {
            return Reply::err("CMS: invalid width");
        };
        let Some(d) = parse_i64(&argv[3]).filter(|&d| d >= 1) else {
            return Reply::err("CMS: invalid depth");
        };
        (w as u64, d as u64)
    } else {
        let Some(e) = parse_f64(&argv[2]).filter(|&e| e > 0.0 && e < 1.0) else {
            return Reply::err("CMS: invalid overestimation value");
        };
        let Some(p) = parse_f64(&argv[3]).filter(|&p| p > 0.0 && p < 1.0) else {
            return Reply::err("CMS: invalid prob value");
        };
        Cms::dims_from_prob(e, p)
    };
    match Cms::new(width, depth) {
        Ok(c) => {
            store(ctx.ks, &argv[1], b"CMSk-TYPE", 0, ModuleData::Cms(c));
            Reply::ok()
        }
        Err(n) => too_large(n),
    }
}

/// CMS.INCRBY key item increment [item increment ...]: the new estimate of each item
/// (`CMS: INCRBY overflow` in place of a saturated one). Every increment is parsed first.
fn cms_incrby(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 || argv.len() % 2 == 1 {
        return arity(argv);
    }
    let cms = match lookup_mut(ctx.ks, &argv[1], ModuleData::cms_mut).or_missing(MISSING) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let mut pairs = Vec::with_capacity(argv.len() / 2);
    for p in argv[2..].chunks_exact(2) {
        match parse_i64(&p[1]) {
            None => return Reply::err("CMS: Cannot parse number"),
            Some(v) if v < 0 => return Reply::err("CMS: Number cannot be negative"),
            Some(v) => pairs.push((&p[0], v as u64)),
        }
    }
    Reply::Array(
        pairs
            .into_iter()
            .map(|(item, v)| match cms.incr_by(item, v) {
                u32::MAX => Reply::err("CMS: INCRBY overflow"),
                n => Reply::Integer(n as i64),
            })
            .collect(),
    )
}

/// CMS.MERGE dest numkeys src... [WEIGHTS w...]: `OK`; the destination must exist and every
/// source match its width and depth.
fn cms_merge(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 {
        return arity(argv);
    }
    let (width, depth) = match lookup(ctx, &argv[1]) {
        Ok(c) => (c.width, c.depth),
        Err(e) => return e,
    };
    let Some(n) = parse_i64(&argv[2]) else {
        return Reply::err("CMS: invalid numkeys");
    };
    let rest = &argv[3..];
    let weights_at = rest.iter().position(|a| a.eq_ignore_ascii_case(b"WEIGHTS"));
    match weights_at {
        None if n != rest.len() as i64 => return Reply::err("CMS: wrong number of keys"),
        Some(at) if at as i64 != n || rest.len() as i64 != 1 + n * 2 => {
            return Reply::err("CMS: wrong number of keys/weights")
        }
        _ => {}
    }
    let n = n as usize;
    let mut sources = Vec::with_capacity(n);
    for i in 0..n {
        let w = match weights_at {
            None => 1,
            Some(_) => match parse_i64(&rest[n + 1 + i]) {
                Some(w) => w,
                None => return Reply::err("CMS: invalid weight value"),
            },
        };
        let src = match lookup(ctx, &rest[i]) {
            Ok(c) => c,
            Err(e) => return e,
        };
        if src.width != width || src.depth != depth {
            return Reply::err("CMS: width/depth is not equal");
        }
        sources.push((src.clone(), w));
    }
    let refs: Vec<(&Cms, i64)> = sources.iter().map(|(c, w)| (c, *w)).collect();
    match lookup_mut(ctx.ks, &argv[1], ModuleData::cms_mut) {
        Lookup::Found(dest) => {
            if dest.merge(&refs) {
                Reply::ok()
            } else {
                Reply::err("CMS: MERGE overflow")
            }
        }
        _ => Reply::err("CMS: key does not exist"),
    }
}

/// The module's reply for a missing key.
const MISSING: &str = "CMS: key does not exist";

fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<&'a Cms, Reply> {
    fn pick(d: &ModuleData) -> Option<&Cms> {
        match d {
            ModuleData::Cms(c) => Some(c),
            _ => None,
        }
    }
    module_keys::lookup(ctx.ks, key, pick).or_missing(MISSING)
}

/// CMS.QUERY key item...: the estimated count of each item.
fn cms_query(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(c) => Reply::Array(
            argv[2..]
                .iter()
                .map(|i| Reply::Integer(c.query(i) as i64))
                .collect(),
        ),
        Err(e) => e,
    }
}

/// CMS.INFO key: width, depth and total count.
fn cms_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(c) => Reply::Array(vec![
            Reply::Status("width".into()),
            Reply::Integer(c.width as i64),
            Reply::Status("depth".into()),
            Reply::Integer(c.depth as i64),
            Reply::Status("count".into()),
            Reply::Integer(c.count as i64),
        ]),
        Err(e) => e,
    }
}
