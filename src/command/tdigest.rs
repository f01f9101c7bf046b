//! RedisBloom t-digest read commands: TDIGEST.QUANTILE, CDF, RANK, REVRANK, BYRANK,
//! BYREVRANK, MIN, MAX, TRIMMED_MEAN, INFO, with the replies and errors of RedisBloom 2.8.2 on
//! Redis 7.4.1 (RESP2: doubles as bulk strings, shortest round-trip text).
//!
//! The key is checked first (`ERR T-Digest: key does not exist`, WRONGTYPE), then the
//! arguments, each with the module's own message.

use super::args::{parse_f64, parse_i64};
use super::{CommandSpec, Ctx};
use crate::dialect::Profile;
use crate::keyspace::Value;
use crate::probabilistic::tdigest::TDigest;
use crate::probabilistic::ModuleData;
use crate::reply::Reply;

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
];

fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<&'a TDigest, Reply> {
    match ctx.ks.get(key) {
        None => Err(Reply::err("ERR T-Digest: key does not exist")),
        Some(Value::Module(m)) => match &m.data {
            ModuleData::TDigest(t) => Ok(t),
            _ => Err(Reply::wrong_type()),
        },
        Some(_) => Err(Reply::wrong_type()),
    }
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
    let t = match lookup(ctx, &argv[1]) {
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
    let t = match lookup(ctx, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    match parse_all(argv, "ERR T-Digest: error parsing cdf") {
        Ok(v) => doubles(ctx.profile, v.into_iter().map(|x| t.cdf(x))),
        Err(e) => e,
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
    let t = match lookup(ctx, &argv[1]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let vals = match parse_all(argv, "ERR T-Digest: error parsing value") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let size = t.size() as f64;
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
                Reply::Integer(r as i64)
            })
            .collect(),
    )
}

/// TDIGEST.BYRANK / BYREVRANK key rank...: the value at each (reverse) rank.
fn td_byrank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let reverse = argv[0].eq_ignore_ascii_case(b"tdigest.byrevrank");
    let t = match lookup(ctx, &argv[1]) {
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
    let t = match lookup(ctx, &argv[1]) {
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
    let t = match lookup(ctx, &argv[1]) {
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
    double(ctx.profile, t.trimmed_mean(low, high))
}

/// TDIGEST.INFO key. Memory usage is RedisBloom 2.8.2's: 8 bytes plus 16 per centroid of
/// capacity (recorded: 9768 for capacity 610).
fn td_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup(ctx, &argv[1]) {
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
        ("Memory usage", t.cap.saturating_mul(16).saturating_add(8)),
    ];
    Reply::Array(
        fields
            .into_iter()
            .flat_map(|(n, v)| [Reply::Status(n.into()), Reply::Integer(v)])
            .collect(),
    )
}
