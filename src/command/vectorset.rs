//! Vector set read commands, answered as Redis 8.0.2's built-in `vectorset` module answers
//! them in RESP2 (`modules/vector-sets/vset.c`): VCARD, VDIM, VEMB [RAW], VINFO, VGETATTR,
//! VISMEMBER, VLINKS [WITHSCORES], VRANDMEMBER [count] and VSIM.
//!
//! Module commands have no arity of their own (the server registers them with -1): each
//! handler checks its arguments in the module's order and answers `ERR wrong number of
//! arguments for 'VCARD' command` with the registered upper-case name. Maps (VINFO, VLINKS and
//! VSIM WITHSCORES) are flat arrays in RESP2; booleans are integers; doubles are printed as the
//! server prints every double (the profile's score format). On profiles older than Redis 8.0
//! these commands do not exist ([`crate::dialect::COMMANDS_SINCE`]).
//!
//! VSIM searches the stored HNSW graph with the server's algorithm ([`crate::vectorset::hnsw`])
//! and FILTER runs the server's expression language ([`crate::vectorset::expr`]); `TRUTH`
//! scans every element. `NOTHREAD` changes nothing in the answer. `EPSILON` is accepted as
//! 8.0.2 accepts it (a maximum distance, compared in f32); `WITHATTRIBS` is a syntax error
//! there. Profiles with [`crate::dialect::Profile::vsim_withattribs`] (Redis 8.2+, from the
//! published source) take `WITHATTRIBS` (each element's attribute after its score, or a nil)
//! and compare `EPSILON` with half the distance. VRANDMEMBER draws from bitlens' own generator, walking the graph as the server does,
//! so its members are ones the server could return, not the same ones.

use std::sync::atomic::{AtomicU64, Ordering};

use super::args::{is, parse_f64, parse_i64};
use super::module_keys::{lookup, Lookup};
use super::{CommandSpec, Ctx};
use crate::probabilistic::ModuleData;
use crate::reply::Reply;
use crate::vectorset::expr::Expr;
use crate::vectorset::hnsw::Query;
use crate::vectorset::{Quant, VectorSet};

/// VSIM's default result count (vset.c `VSET_DEFAULT_COUNT`).
const DEFAULT_COUNT: i64 = 10;
/// VSIM's default exploration factor (vset.c `VSET_DEFAULT_SEARCH_EF`).
const DEFAULT_SEARCH_EF: i64 = 100;
/// The most elements one VRANDMEMBER with a negative count returns here: the server streams
/// any count; bitlens builds the reply in memory and refuses a larger one with its own error.
pub const MAX_RANDOM_REPLY: i64 = 1 << 24;

/// Vector set commands (Redis 8.0+).
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "vcard",
        arity: -1,
        handler: vcard,
    },
    CommandSpec {
        name: "vdim",
        arity: -1,
        handler: vdim,
    },
    CommandSpec {
        name: "vemb",
        arity: -1,
        handler: vemb,
    },
    CommandSpec {
        name: "vinfo",
        arity: -1,
        handler: vinfo,
    },
    CommandSpec {
        name: "vgetattr",
        arity: -1,
        handler: vgetattr,
    },
    CommandSpec {
        name: "vismember",
        arity: -1,
        handler: vismember,
    },
    CommandSpec {
        name: "vlinks",
        arity: -1,
        handler: vlinks,
    },
    CommandSpec {
        name: "vrandmember",
        arity: -1,
        handler: vrandmember,
    },
    CommandSpec {
        name: "vsim",
        arity: -1,
        handler: vsim,
    },
];

fn arity(name: &str) -> Reply {
    Reply::err(format!(
        "ERR wrong number of arguments for '{name}' command"
    ))
}

fn pick(d: &ModuleData) -> Option<&VectorSet> {
    match d {
        ModuleData::VectorSet(v) => Some(v),
        _ => None,
    }
}

fn get<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Lookup<&'a VectorSet> {
    lookup(ctx.ks, key, pick)
}

fn double(ctx: &Ctx<'_>, x: f64) -> Reply {
    Reply::Bulk(ctx.profile.format_score(x).into_bytes())
}

fn vcard(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 2 {
        return arity("VCARD");
    }
    match get(ctx, &argv[1]) {
        Lookup::Missing => Reply::Integer(0),
        Lookup::WrongType => Reply::wrong_type(),
        Lookup::Found(v) => Reply::Integer(v.len() as i64),
    }
}

fn vdim(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 2 {
        return arity("VDIM");
    }
    match get(ctx, &argv[1]) {
        Lookup::Missing => Reply::err("ERR key does not exist"),
        Lookup::WrongType => Reply::wrong_type(),
        Lookup::Found(v) => Reply::Integer(v.dim as i64),
    }
}

fn vemb(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 3 {
        return arity("VEMB");
    }
    let mut raw = false;
    for a in &argv[3..] {
        if is(a, "raw") {
            raw = true;
        } else {
            return Reply::err("ERR invalid option");
        }
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing => return Reply::NullBulk,
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    let Some(i) = v.find(&argv[2]) else {
        return Reply::NullBulk;
    };
    let node = &v.nodes[i as usize];
    if raw {
        let mut out = vec![
            Reply::Status(v.quant.name().to_string()),
            Reply::Bulk(v.raw_vector(i)),
            double(ctx, node.l2 as f64),
        ];
        if v.quant == Quant::Q8 {
            out.push(double(ctx, node.range as f64));
        }
        Reply::Array(out)
    } else {
        Reply::Array(
            v.node_vector(i)
                .into_iter()
                .map(|x| double(ctx, x as f64))
                .collect(),
        )
    }
}

/// The number a server loading the same input gives this set (`vset-uid`): the sets are
/// numbered from 0 in load order. bitlens sees one database at a time, so this counts the
/// vector sets of the selected database loaded before this one; it is the server's number
/// when the input's vector sets are all in one database (as the differential test's are).
fn load_ordinal(ctx: &Ctx<'_>, v: &VectorSet) -> i64 {
    let mut n = 0;
    for (_, e) in ctx.ks.iter() {
        if let crate::keyspace::Value::Module(m) = e.value {
            if let ModuleData::VectorSet(o) = &m.data {
                if o.load_pos < v.load_pos {
                    n += 1;
                }
            }
        }
    }
    n
}

fn vinfo(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 2 {
        return arity("VINFO");
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing => return Reply::NullArray,
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    let f = |k: &str| Reply::Status(k.to_string());
    Reply::Array(vec![
        f("quant-type"),
        f(v.quant.name()),
        f("hnsw-m"),
        Reply::Integer(v.m as i64),
        f("vector-dim"),
        Reply::Integer(v.dim as i64),
        f("projection-input-dim"),
        Reply::Integer(v.projection.as_ref().map_or(0, |p| p.input_dim as i64)),
        f("size"),
        Reply::Integer(v.len() as i64),
        f("max-level"),
        Reply::Integer(v.max_level as i64),
        f("attributes-count"),
        Reply::Integer(v.attributes() as i64),
        f("vset-uid"),
        Reply::Integer(load_ordinal(ctx, v)),
        f("hnsw-max-node-uid"),
        Reply::Integer(v.last_id as i64),
    ])
}

fn vgetattr(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 3 {
        return arity("VGETATTR");
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing => return Reply::NullBulk,
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    match v
        .find(&argv[2])
        .and_then(|i| v.nodes[i as usize].attrib.as_ref())
    {
        Some(a) => Reply::Bulk(a.clone()),
        None => Reply::NullBulk,
    }
}

fn vismember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 3 {
        return arity("VISMEMBER");
    }
    match get(ctx, &argv[1]) {
        Lookup::Missing => Reply::Integer(0),
        Lookup::WrongType => Reply::wrong_type(),
        Lookup::Found(v) => Reply::Integer(v.find(&argv[2]).is_some() as i64),
    }
}

fn vlinks(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 3 || argv.len() > 4 {
        return arity("VLINKS");
    }
    let withscores = argv.len() == 4;
    if withscores && !is(&argv[3], "WITHSCORES") {
        return arity("VLINKS");
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing => return Reply::NullBulk,
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    let Some(i) = v.find(&argv[2]) else {
        return Reply::NullBulk;
    };
    let node = &v.nodes[i as usize];
    Reply::Array(
        node.layers
            .iter()
            .rev()
            .map(|layer| {
                let mut out = Vec::with_capacity(layer.links.len() * (1 + withscores as usize));
                for &l in &layer.links {
                    out.push(Reply::Bulk(v.nodes[l as usize].item.clone()));
                    if withscores {
                        let d = v.node_distance(i, l);
                        let sim = (1.0 - d as f64 / 2.0) as f32;
                        out.push(double(ctx, sim as f64));
                    }
                }
                Reply::Array(out)
            })
            .collect(),
    )
}

/// bitlens' generator for VRANDMEMBER (splitmix64 over a process-wide counter).
fn random_below(bound: u32) -> u32 {
    static STATE: AtomicU64 = AtomicU64::new(0x005e_ed0f_7ec7_0125);
    let mut z = STATE
        .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    if bound == 0 {
        0
    } else {
        (z % bound as u64) as u32
    }
}

fn vrandmember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 2 && argv.len() != 3 {
        return arity("VRANDMEMBER");
    }
    let with_count = argv.len() == 3;
    let mut count = 1i64;
    if with_count {
        let Some(c) = parse_i64(&argv[2]) else {
            return Reply::err("ERR COUNT value is not an integer");
        };
        if c == 0 {
            return Reply::Array(Vec::new());
        }
        count = c;
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing if with_count => return Reply::Array(Vec::new()),
        Lookup::Missing => return Reply::NullBulk,
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    let n = v.len() as u64;
    if n == 0 {
        return if with_count {
            Reply::Array(Vec::new())
        } else {
            Reply::NullBulk
        };
    }
    let mut rand = random_below;
    let name = |i: u32| Reply::Bulk(v.nodes[i as usize].item.clone());
    if !with_count {
        return v.random_node(&mut rand).map_or(Reply::NullBulk, name);
    }
    let dups = count < 0;
    let mut abs = count.unsigned_abs();
    if !dups && abs > n {
        abs = n;
    }
    if dups {
        if abs > MAX_RANDOM_REPLY as u64 {
            return Reply::err(format!(
                "ERR bitlens: a reply of {abs} elements exceeds the limit of {MAX_RANDOM_REPLY}"
            ));
        }
        return Reply::Array(
            (0..abs)
                .filter_map(|_| v.random_node(&mut rand).map(name))
                .collect(),
        );
    }
    let mut out = Vec::with_capacity(abs as usize);
    if (abs as f64) <= n as f64 * 0.2 {
        // The server draws until it has `abs` distinct members, which never ends when its
        // walks cannot reach that many (a corrupt graph of unlinked nodes: the fuzzer's
        // case); bitlens stops drawing after a bounded number of tries and takes the
        // missing members in node-list order.
        let mut seen = std::collections::HashSet::new();
        let mut tries = abs.saturating_mul(64).saturating_add(1024);
        while (out.len() as u64) < abs && tries > 0 {
            tries -= 1;
            let Some(i) = v.random_node(&mut rand) else {
                break;
            };
            if seen.insert(i) {
                out.push(name(i));
            }
        }
        for i in v.list_order() {
            if (out.len() as u64) >= abs {
                break;
            }
            if seen.insert(i) {
                out.push(name(i));
            }
        }
    } else {
        // From a random node along the node list (toward the file's first element), wrapping
        // to the head (the file's last).
        let mut cur = v.random_node(&mut rand).unwrap_or(0) as i64;
        while (out.len() as u64) < abs {
            if cur < 0 {
                cur = n as i64 - 1;
            }
            out.push(name(cur as u32));
            cur -= 1;
        }
    }
    Reply::Array(out)
}

/// Parses `FP32 blob` or `VALUES n x1 … xn` at `argv[start]` as vset.c `parseVector` (no
/// REDUCE): the vector and the arguments consumed, or `None` (`invalid vector specification`).
fn parse_vector(argv: &[Vec<u8>], start: usize) -> Option<(Vec<f32>, usize)> {
    let fmt = argv.get(start)?;
    if is(fmt, "FP32") {
        let blob = argv.get(start + 1)?;
        if blob.len() % 4 != 0 || blob.len() < 4 {
            return None;
        }
        let v = blob
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Some((v, 2))
    } else if is(fmt, "VALUES") {
        let vdim = parse_i64(argv.get(start + 1)?)?;
        if vdim < 1 || ((argv.len() - start - 2) as i64) < vdim {
            return None;
        }
        let mut v = Vec::with_capacity(vdim as usize);
        for a in &argv[start + 2..start + 2 + vdim as usize] {
            v.push(parse_f64(a)? as f32);
        }
        Some((v, vdim as usize + 2))
    } else {
        None
    }
}

/// vset.c `applyProjection`: each output component the f32 sum of row × input in order.
fn project(p: &crate::vectorset::Projection, dim: u32, input: &[f32]) -> Vec<f32> {
    let w = p.input_dim as usize;
    (0..dim as usize)
        .map(|i| {
            let row = &p.matrix[i * w..(i + 1) * w];
            let mut sum = 0f32;
            for (r, x) in row.iter().zip(input) {
                sum += r * x;
            }
            sum
        })
        .collect()
}

fn vsim(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 {
        return arity("VSIM");
    }
    let v = match get(ctx, &argv[1]) {
        Lookup::Missing => return Reply::Array(Vec::new()),
        Lookup::WrongType => return Reply::wrong_type(),
        Lookup::Found(v) => v,
    };
    let (vec, vector_args) = if is(&argv[2], "ELE") {
        let Some(i) = v.find(&argv[3]) else {
            return Reply::err("ERR element not found in set");
        };
        (v.node_vector(i), 2)
    } else {
        let Some((mut vec, consumed)) = parse_vector(argv, 2) else {
            return Reply::err("ERR invalid vector specification");
        };
        if let Some(p) = &v.projection {
            if vec.len() as u64 != v.dim as u64 {
                if vec.len() as u64 != p.input_dim as u64 {
                    return Reply::err(format!(
                        "ERR Input dimension mismatch for projection - got {} but projection expects {}",
                        vec.len() as i32,
                        p.input_dim as i32
                    ));
                }
                vec = project(p, v.dim, &vec);
            }
        }
        (vec, consumed)
    };
    if vec.len() as u64 != v.dim as u64 {
        return Reply::err(format!(
            "ERR Vector dimension mismatch - got {} but set has {}",
            vec.len() as i32,
            v.dim as i32
        ));
    }
    let mut withscores = false;
    let mut withattribs = false;
    let mut truth = false;
    let mut count = DEFAULT_COUNT;
    let mut ef = 0i64;
    let mut epsilon = 2.0f64;
    let mut filter_ef = 0i64;
    let mut filter: Option<Expr> = None;
    let mut j = 2 + vector_args;
    while j < argv.len() {
        let opt = &argv[j];
        let has_arg = j + 1 < argv.len();
        if is(opt, "WITHSCORES") {
            withscores = true;
            j += 1;
        } else if is(opt, "WITHATTRIBS") && ctx.profile.vsim_withattribs {
            withattribs = true;
            j += 1;
        } else if is(opt, "TRUTH") {
            truth = true;
            j += 1;
        } else if is(opt, "NOTHREAD") {
            j += 1;
        } else if is(opt, "COUNT") && has_arg {
            match parse_i64(&argv[j + 1]) {
                Some(c) if c > 0 => count = c,
                _ => return Reply::err("ERR invalid COUNT"),
            }
            j += 2;
        } else if is(opt, "EPSILON") && has_arg {
            match parse_f64(&argv[j + 1]) {
                Some(e) if e > 0.0 => epsilon = e,
                _ => return Reply::err("ERR invalid EPSILON"),
            }
            j += 2;
        } else if is(opt, "EF") && has_arg {
            match parse_i64(&argv[j + 1]) {
                Some(e) if e > 0 => ef = e,
                _ => return Reply::err("ERR invalid EF"),
            }
            j += 2;
        } else if is(opt, "FILTER-EF") && has_arg {
            match parse_i64(&argv[j + 1]) {
                Some(e) if e > 0 => filter_ef = e,
                _ => return Reply::err("ERR invalid FILTER-EF"),
            }
            j += 2;
        } else if is(opt, "FILTER") && has_arg {
            let text = &argv[j + 1];
            match Expr::compile(text) {
                Ok(e) => filter = Some(e),
                Err(mut pos) => {
                    if pos >= text.len() {
                        pos = 0;
                    }
                    // The server prints the rest with %s (up to a NUL); newlines become
                    // spaces in an error reply, trailing ones are trimmed.
                    let rest = &text[pos..];
                    let rest = &rest[..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())];
                    let mut msg = b"ERR syntax error in FILTER expression near: ".to_vec();
                    msg.extend_from_slice(rest);
                    while matches!(msg.last(), Some(b'\r' | b'\n')) {
                        msg.pop();
                    }
                    for c in &mut msg {
                        if *c == b'\r' || *c == b'\n' {
                            *c = b' ';
                        }
                    }
                    return Reply::Error(String::from_utf8_lossy(&msg).into_owned());
                }
            }
            j += 2;
        } else {
            return Reply::err("ERR syntax error in VSIM command");
        }
    }
    if filter_ef == 0 {
        filter_ef = count.wrapping_mul(100);
    }
    if ef == 0 {
        ef = DEFAULT_SEARCH_EF;
    }
    if count > ef {
        ef = count;
    }
    // The HNSW functions take k and the effort bound as uint32_t.
    let k = ef as u64 as u32;
    let max_candidates = filter_ef as u64 as u32;
    let epsilon = epsilon as f32;
    let q = Query::new(vec, v.quant);
    let pass = |i: u32| {
        filter
            .as_ref()
            .is_some_and(|e| e.matches(v.nodes[i as usize].attrib.as_deref()))
    };
    let filter_fn: Option<&dyn Fn(u32) -> bool> = filter.as_ref().map(|_| &pass as _);
    let found = if truth {
        v.ground_truth(&q, k, filter_fn)
    } else {
        v.search(&q, k, filter_fn, max_candidates)
    };
    let mut out = Vec::new();
    for &(i, d) in found.iter().take(count.min(u32::MAX as i64) as usize) {
        let beyond = if ctx.profile.vsim_withattribs {
            d / 2.0 > epsilon
        } else {
            d > epsilon
        };
        if beyond {
            break;
        }
        let node = &v.nodes[i as usize];
        out.push(Reply::Bulk(node.item.clone()));
        if withscores {
            out.push(double(ctx, 1.0 - d as f64 / 2.0));
        }
        if withattribs {
            out.push(node.attrib.clone().map_or(Reply::NullBulk, Reply::Bulk));
        }
    }
    Reply::Array(out)
}

#[cfg(test)]
mod tests {
    use crate::command::execute_as;
    use crate::dialect::REDIS_8_0;
    use crate::keyspace::Keyspace;
    use crate::probabilistic::{Field, ModuleData, ModuleValue};
    use crate::reply::Reply;

    /// A set of `n` int8 elements of dimension 2 whose nodes have no links at all.
    fn unlinked(n: u64) -> Keyspace {
        let mut items: Vec<(usize, Field)> = [2u64, n, 1, 0]
            .into_iter()
            .map(|v| (0, Field::Unsigned(v)))
            .collect();
        for i in 0..n {
            items.push((0, Field::Buffer(format!("e{i}").into_bytes())));
            items.push((0, Field::Buffer(vec![1, 2])));
            // 5 parameters: id, level 0, no link of 32 slots, l2 and range 1.0.
            for p in [5u64, i + 1, 0, 0, 32, 0x3f80_0000_3f80_0000] {
                items.push((0, Field::Unsigned(p)));
            }
        }
        let v = crate::vectorset::VectorSet::decode(crate::probabilistic::Fields::new(
            &items,
            0,
            "vector set",
        ))
        .expect("well formed");
        let mut ks = Keyspace::new();
        ks.set(
            b"k",
            crate::keyspace::Value::Module(Box::new(ModuleValue {
                name: crate::vectorset::TYPE_NAME,
                encver: 0,
                data: ModuleData::VectorSet(Box::new(v)),
            })),
        );
        ks
    }

    #[test]
    fn vrandmember_ends_on_an_unlinked_graph() {
        // The random walk can only reach the entry point: the server would draw forever.
        let mut ks = unlinked(40);
        let r = execute_as(&mut ks, &REDIS_8_0, &["VRANDMEMBER", "k", "5"]);
        let Reply::Array(items) = r else {
            panic!("{r:?}")
        };
        assert_eq!(items.len(), 5);
        let distinct: std::collections::HashSet<_> =
            items.iter().map(|r| format!("{r:?}")).collect();
        assert_eq!(distinct.len(), 5);
    }
}
