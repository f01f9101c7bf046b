//! RedisBloom t-digest commands, with the replies and errors of RedisBloom 2.8.2 on Redis
//! 7.4.1 (RESP2: doubles as bulk strings, shortest round-trip text): reads TDIGEST.QUANTILE,
//! CDF, RANK, REVRANK, BYRANK, BYREVRANK, MIN, MAX, TRIMMED_MEAN, INFO; writes (to the
//! in-memory copy only) TDIGEST.CREATE, ADD, RESET, MERGE. The reads that estimate compress
//! the digest first, changing what INFO shows afterwards, as on the server.
//!
//! The key is checked first (`ERR T-Digest: key does not exist`, WRONGTYPE), then the
//! arguments, each with the module's own message.

use super::args::{parse_f64, parse_i64};
use super::module_keys::{lookup_mut, store, Lookup};
use super::{CommandSpec, Ctx};
use crate::dialect::Profile;
use crate::keyspace::Value;
use crate::probabilistic::tdigest::TDigest;
use crate::probabilistic::{too_large, ModuleData};
use crate::reply::Reply;

/// The compression of digests TDIGEST.CREATE / MERGE make without COMPRESSION.
const DEFAULT_COMPRESSION: i64 = 100;

macro_rules! spec {
    ($name:literal, $arity:expr, $h:ident) => {
        CommandSpec {
            name: $name,
            arity: $arity,
            handler: $h,
        }
    };
}

/// t-digest commands.
pub const COMMANDS: &[CommandSpec] = &[
    spec!("tdigest.quantile", -3, td_quantile),
    spec!("tdigest.cdf", -3, td_cdf),
    spec!("tdigest.rank", -3, td_rank),
    spec!("tdigest.revrank", -3, td_rank),
    spec!("tdigest.byrank", -3, td_byrank),
    spec!("tdigest.byrevrank", -3, td_byrank),
    spec!("tdigest.min", 2, td_min_max),
    spec!("tdigest.max", 2, td_min_max),
    spec!("tdigest.trimmed_mean", 4, td_trimmed_mean),
    spec!("tdigest.info", 2, td_info),
    spec!("tdigest.create", -1, td_create),
    spec!("tdigest.add", -3, td_add),
    spec!("tdigest.reset", 2, td_reset),
    spec!("tdigest.merge", -4, td_merge),
];

fn lookup<'a>(ks: &'a mut crate::keyspace::Keyspace, key: &[u8]) -> Result<&'a mut TDigest, Reply> {
    lookup_mut(ks, key, ModuleData::tdigest_mut).or_missing("ERR T-Digest: key does not exist")
}

/// A positive COMPRESSION value, or the module's error.
fn compression_arg(a: &[u8]) -> Result<i64, Reply> {
    match parse_i64(a) {
        None => Err(Reply::err(
            "ERR T-Digest: error parsing compression parameter",
        )),
        Some(c) if c <= 0 => Err(Reply::err(
            "ERR T-Digest: compression parameter needs to be a positive integer",
        )),
        Some(c) => Ok(c),
    }
}

/// TDIGEST.CREATE key [COMPRESSION c]: `OK`.
fn td_create(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 2 && argv.len() != 4 {
        return Reply::err("ERR wrong number of arguments for 'tdigest.create' command");
    }
    match ctx.ks.get(&argv[1]) {
        None => {}
        Some(Value::Module(m)) if matches!(m.data, ModuleData::TDigest(_)) => {
            return Reply::err("ERR T-Digest: key already exists")
        }
        Some(_) => return Reply::wrong_type(),
    }
    let mut compression = DEFAULT_COMPRESSION;
    if argv.len() == 4 {
        if !argv[2..]
            .iter()
            .any(|a| a.eq_ignore_ascii_case(b"COMPRESSION"))
        {
            return Reply::err("ERR T-Digest: wrong keyword");
        }
        compression = match compression_arg(&argv[3]) {
            Ok(c) => c,
            Err(e) => return e,
        };
    }
    match TDigest::new(compression) {
        Ok(t) => {
            store(ctx.ks, &argv[1], b"TDIS-TYPE", 0, ModuleData::TDigest(t));
            Reply::ok()
        }
        Err(n) => too_large(n),
    }
}

/// TDIGEST.ADD key value...: `OK`; every value is parsed (finite) before any is added.
fn td_add(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut vals = Vec::with_capacity(argv.len() - 2);
    for a in &argv[2..] {
        match parse_f64(a) {
            None => return Reply::err("ERR T-Digest: error parsing val parameter"),
            Some(v) if !v.is_finite() => {
                return Reply::err("ERR T-Digest: val parameter needs to be a finite number")
            }
            Some(v) => vals.push(v),
        }
    }
    for v in vals {
        if t.add(v, 1).is_err() {
            return Reply::err("ERR T-Digest: overflow detected");
        }
    }
    Reply::ok()
}

/// TDIGEST.RESET key: `OK`.
fn td_reset(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx.ks, &argv[1]) {
        Ok(t) => {
            t.reset();
            Reply::ok()
        }
        Err(e) => e,
    }
}

/// TDIGEST.MERGE dest numkeys src... [COMPRESSION c] [OVERRIDE]: `OK`. The new digest has
/// the given compression, else the destination's (when it exists and no OVERRIDE), else the
/// largest of the sources'; it holds the destination's old nodes (unless OVERRIDE) and then
/// each source's, a source named twice (or the destination named as a source) counting each
/// time. Merging compresses every source, as on the server.
fn td_merge(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let dest = &argv[1];
    let dest_compression = match ctx.ks.get(dest) {
        None => None,
        Some(Value::Module(m)) => match &m.data {
            ModuleData::TDigest(t) => Some(t.compression as i64),
            _ => return Reply::wrong_type(),
        },
        Some(_) => return Reply::wrong_type(),
    };
    let numkeys = match parse_i64(&argv[2]) {
        None => return Reply::err("ERR T-Digest: error parsing numkeys"),
        Some(n) if n <= 0 => {
            return Reply::err("ERR T-Digest: numkeys needs to be a positive integer")
        }
        Some(n) if n > argv.len() as i64 - 3 => {
            return Reply::err("ERR wrong number of arguments for 'tdigest.merge' command")
        }
        Some(n) => n as usize,
    };
    let mut compression = dest_compression.unwrap_or(0);
    let mut use_max = dest_compression.is_none();
    let mut keep_dest = true;
    let rest = &argv[3 + numkeys..];
    if !rest.is_empty() {
        let at = |w: &[u8]| rest.iter().position(|a| a.eq_ignore_ascii_case(w));
        let c_at = at(b"COMPRESSION");
        if let Some(i) = c_at {
            use_max = false;
            let Some(v) = rest.get(i + 1) else {
                return Reply::err("ERR wrong number of arguments for 'tdigest.merge' command");
            };
            compression = match compression_arg(v) {
                Ok(c) => c,
                Err(e) => return e,
            };
        }
        let o_at = at(b"OVERRIDE");
        if o_at.is_some() {
            keep_dest = false;
            if c_at.is_none() {
                use_max = true;
                compression = 0;
            }
        }
        if c_at.is_none() && o_at.is_none() {
            return Reply::err("ERR T-Digest: wrong keyword");
        }
    }
    let srcs = &argv[3..3 + numkeys];
    for k in srcs {
        let c = match ctx.ks.get(k) {
            Some(Value::Module(m)) => match &m.data {
                ModuleData::TDigest(t) => t.compression as i64,
                _ if k != dest => return Reply::wrong_type(),
                _ => return Reply::err("ERR T-Digest: key does not exist"),
            },
            None => return Reply::err("ERR T-Digest: key does not exist"),
            Some(_) if k != dest => return Reply::wrong_type(),
            Some(_) => return Reply::err("ERR T-Digest: key does not exist"),
        };
        if use_max {
            compression = compression.max(c);
        }
    }
    let mut to = match TDigest::new(compression) {
        Ok(t) => t,
        Err(n) => return too_large(n),
    };
    let mut order: Vec<&[u8]> = Vec::with_capacity(numkeys + 1);
    if dest_compression.is_some() && keep_dest {
        order.push(dest);
    }
    order.extend(srcs.iter().map(|k| k.as_slice()));
    for k in order {
        let Ok(from) = lookup(ctx.ks, k) else {
            return Reply::err("ERR T-Digest: key does not exist");
        };
        if to.merge_from(from).is_err() {
            return Reply::err("ERR T-Digest: overflow detected");
        }
    }
    match lookup_mut(ctx.ks, dest, ModuleData::tdigest_mut) {
        Lookup::Found(t) => *t = to,
        _ => store(ctx.ks, dest, b"TDIS-TYPE", 0, ModuleData::TDigest(to)),
    }
    Reply::ok()
}

/// Doubles as the module replies them in RESP2: bulk strings in the server's double format
/// (the profile's `score_format`; RedisModule_ReplyWithDouble calls the same routine).
fn doubles(p: &Profile, v: impl IntoIterator<Item = f64>) -> Reply {
    Reply::Array(v.into_iter().map(|x| double(p, x)).collect())
}

fn double(p: &Profile, x: f64) -> Reply {
    Reply::Bulk(p.format_score(x).into_bytes())
}

/// Parses every argument from 2 on as a double, or the module's error `msg`.
fn parse_all(argv: &[Vec<u8>], msg: &str) -> Result<Vec<f64>, Reply> {
    argv[2..]
        .iter()
        .map(|a| parse_f64(a).ok_or_else(|| Reply::err(msg)))
        .collect()
}

/// TDIGEST.QUANTILE key q...: each quantile in [0, 1]; ascending runs are scanned together.
fn td_quantile(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let qs = match parse_all(argv, "ERR T-Digest: error parsing quantile") {
        Ok(q) => q,
        Err(e) => return e,
    };
    if qs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return Reply::err("ERR T-Digest: quantile should be in [0,1]");
    }
    let _ = t.compress();
    let mut out = Vec::with_capacity(qs.len());
    let mut i = 0;
    while i < qs.len() {
        let start = i;
        while i + 1 < qs.len() && qs[i] <= qs[i + 1] {
            i += 1;
        }
        out.extend(t.quantiles(&qs[start..=i]));
        i += 1;
    }
    doubles(ctx.profile, out)
}

/// TDIGEST.CDF key value...: the fraction of observations at most each value.
fn td_cdf(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    match parse_all(argv, "ERR T-Digest: error parsing cdf") {
        Ok(v) => {
            let _ = t.compress();
            doubles(ctx.profile, v.into_iter().map(|x| t.cdf(x)))
        }
        Err(e) => e,
    }
}

/// A double converted to `long long` as x86-64 does it: NaN and values out of range give
/// `i64::MIN` (recorded: TDIGEST.RANK of a one-observation digest answers
/// -9223372036854775808).
fn c_to_i64(x: f64) -> i64 {
    // 2^63 exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if x.is_nan() || !(-LIMIT..LIMIT).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// C `round`: half away from zero.
fn round(x: f64) -> f64 {
    x.round()
}

/// The module's `_halfRoundDown`: a fraction of at most one half rounds toward zero.
fn half_round_down(x: f64) -> f64 {
    let int = x.trunc();
    let frac = x - int;
    if frac.abs() <= 0.5 {
        int
    } else if int >= 0.0 {
        int + 1.0
    } else {
        int - 1.0
    }
}

/// TDIGEST.RANK / REVRANK key value...: estimated (reverse) ranks; -2 when empty, -1 / n
/// outside [min, max].
fn td_rank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let reverse = argv[0].eq_ignore_ascii_case(b"tdigest.revrank");
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let vals = match parse_all(argv, "ERR T-Digest: error parsing value") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let size = t.size() as f64;
    if size != 0.0 && vals.iter().any(|&v| v >= t.min && v <= t.max) {
        let _ = t.compress();
    }
    let t = &*t;
    Reply::Array(
        vals.into_iter()
            .map(|v| {
                let r = if size == 0.0 {
                    -2.0
                } else if v < t.min {
                    if reverse {
                        size
                    } else {
                        -1.0
                    }
                } else if v > t.max {
                    if reverse {
                        -1.0
                    } else {
                        size
                    }
                } else {
                    let c = t.cdf(v) * size;
                    if reverse {
                        round(size - round(c))
                    } else {
                        half_round_down(c)
                    }
                };
                Reply::Integer(c_to_i64(r))
            })
            .collect(),
    )
}

/// TDIGEST.BYRANK / BYREVRANK key rank...: the value at each (reverse) rank.
fn td_byrank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let reverse = argv[0].eq_ignore_ascii_case(b"tdigest.byrevrank");
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut ranks = Vec::with_capacity(argv.len() - 2);
    for a in &argv[2..] {
        match parse_i64(a) {
            None => return Reply::err("ERR T-Digest: error parsing rank"),
            Some(r) if r < 0 => return Reply::err("ERR T-Digest: rank needs to be non negative"),
            Some(r) => ranks.push(r as f64),
        }
    }
    let size = t.size() as f64;
    if size != 0.0 && ranks.iter().any(|&r| r != 0.0 && r < size) {
        let _ = t.compress();
    }
    let t = &*t;
    doubles(
        ctx.profile,
        ranks.into_iter().map(|r| {
            if size == 0.0 {
                f64::NAN
            } else if r == 0.0 {
                if reverse {
                    t.max
                } else {
                    t.min
                }
            } else if r >= size {
                if reverse {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                let r = if reverse { size - r - 1.0 } else { r };
                t.quantile(r / size)
            }
        }),
    )
}

/// TDIGEST.MIN / MAX key: the smallest / largest observation, NaN when empty.
fn td_min_max(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let v = if t.size() <= 0 {
        f64::NAN
    } else if argv[0].eq_ignore_ascii_case(b"tdigest.min") {
        t.min
    } else {
        t.max
    };
    double(ctx.profile, v)
}

/// TDIGEST.TRIMMED_MEAN key low high.
fn td_trimmed_mean(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let Some(low) = parse_f64(&argv[2]) else {
        return Reply::err("ERR T-Digest: error parsing low_cut_percentile");
    };
    let Some(high) = parse_f64(&argv[3]) else {
        return Reply::err("ERR T-Digest: error parsing high_cut_percentile");
    };
    if !(0.0..=1.0).contains(&low) || !(0.0..=1.0).contains(&high) {
        return Reply::err(
            "ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]",
        );
    }
    if low >= high {
        return Reply::err(
            "ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile",
        );
    }
    let _ = t.compress();
    double(ctx.profile, t.trimmed_mean(low, high))
}

/// TDIGEST.INFO key (Memory usage: [`crate::probabilistic::tdigest::TDigest::memory`]).
fn td_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx.ks, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let fields = [
        ("Compression", t.compression as i64),
        ("Capacity", t.cap),
        ("Merged nodes", t.means.len() as i64),
        ("Unmerged nodes", t.unmerged_nodes),
        ("Merged weight", t.merged_weight),
        ("Unmerged weight", t.unmerged_weight),
        ("Observations", t.size()),
        ("Total compressions", t.total_compressions),
        ("Memory usage", t.memory() as i64),
    ];
    Reply::Array(
        fields
            .into_iter()
            .flat_map(|(n, v)| [Reply::Status(n.into()), Reply::Integer(v)])
            .collect(),
    )
}
