//! String and bitmap commands: GET, STRLEN, GETRANGE (and SUBSTR), GETBIT, SETBIT, BITCOUNT,
//! BITPOS, BITOP, BITFIELD, BITFIELD_RO — argument parsing, argument order of checks and error
//! texts exactly as the profile's server (see [`crate::dialect`]: the BIT unit, BITCOUNT's
//! start-only form, key lookup before or after the arguments, BITOP DIFF/DIFF1/ANDOR/ONE of
//! Redis 8.2, BITFIELD `#N` overflow of Redis 8.10). The bit work itself is done by
//! [`crate::bitmap`] through [`RedisString`]'s methods.

use super::args::{int_arg, is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::bitmap::{self, BitOp, Overflow};
use crate::dialect::{BitArgs, Profile};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::string::RedisString;

/// String and bitmap commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "get",
        arity: 2,
        handler: get,
    },
    CommandSpec {
        name: "strlen",
        arity: 2,
        handler: strlen,
    },
    CommandSpec {
        name: "getrange",
        arity: 4,
        handler: getrange,
    },
    CommandSpec {
        name: "substr",
        arity: 4,
        handler: getrange,
    },
    CommandSpec {
        name: "getbit",
        arity: 3,
        handler: getbit,
    },
    CommandSpec {
        name: "setbit",
        arity: 4,
        handler: setbit,
    },
    CommandSpec {
        name: "bitcount",
        arity: -2,
        handler: bitcount,
    },
    CommandSpec {
        name: "bitpos",
        arity: -3,
        handler: bitpos,
    },
    CommandSpec {
        name: "bitop",
        arity: -4,
        handler: bitop,
    },
    CommandSpec {
        name: "bitfield",
        arity: -2,
        handler: bitfield,
    },
    CommandSpec {
        name: "bitfield_ro",
        arity: -2,
        handler: bitfield_ro,
    },
];

/// Redis' largest string (`proto-max-bulk-len`, 512 MiB): bit offsets stay below 8 times it.
const MAX_STRING_BYTES: i64 = 512 * 1024 * 1024;

/// The string under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn lookup<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a RedisString>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// The string under `key` for a bit write, created empty when missing (as Redis'
/// `lookupStringForBitCommand`), or WRONGTYPE.
fn lookup_for_write<'a>(ks: &'a mut Keyspace, key: &[u8]) -> Result<&'a mut RedisString, Reply> {
    if ks.get(key).is_none() {
        ks.set(key, Value::String(RedisString::default()));
    }
    match ks.get_mut(key) {
        Some(Value::String(s)) => {
            // Unshared for the write, as Redis does: OBJECT ENCODING says raw from now on.
            s.mark_rewritten();
            Ok(s)
        }
        _ => Err(Reply::wrong_type()),
    }
}

macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(reply) => return reply,
        }
    };
}

fn offset_error() -> Reply {
    Reply::err("ERR bit offset is not an integer or out of range")
}

/// Parses a bit offset as Redis `getBitOffsetFromArgument`: an integer in `[0, 2^32)`; with
/// `hash_bits`, a `#N` form means `N * bits`, multiplied with wrap-around, or rejected when
/// the product overflows if `checked` (Redis 8.10).
fn parse_offset(arg: &[u8], hash_bits: Option<u32>, checked: bool) -> Result<u64, Reply> {
    let (digits, mul) = match hash_bits {
        Some(bits) if arg.first() == Some(&b'#') => (&arg[1..], Some(bits)),
        _ => (arg, None),
    };
    let mut v = parse_i64(digits).ok_or_else(offset_error)?;
    if let Some(bits) = mul {
        v = if checked {
            v.checked_mul(bits as i64).ok_or_else(offset_error)?
        } else {
            v.wrapping_mul(bits as i64)
        };
    }
    if v < 0 || (v >> 3) >= MAX_STRING_BYTES {
        return Err(offset_error());
    }
    Ok(v as u64)
}

/// GET key.
fn get(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    match tri!(lookup(ks, &argv[1])) {
        None => Reply::NullBulk,
        Some(s) => Reply::Bulk(s.as_bytes().into_owned()),
    }
}

/// STRLEN key.
fn strlen(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    Reply::Integer(tri!(lookup(ks, &argv[1])).map_or(0, |s| s.len() as i64))
}

/// Converts Redis `[start, end]` indexes (negative = from the end) over a length `len`
/// into a clamped range, as GETRANGE / BITCOUNT / BITPOS do: `None` when empty.
fn clamp_range(mut start: i64, mut end: i64, len: i64) -> Option<(u64, u64)> {
    if start < 0 {
        start = start.saturating_add(len);
    }
    if end < 0 {
        end = end.saturating_add(len);
    }
    start = start.max(0);
    end = end.max(0);
    if end >= len {
        end = len - 1;
    }
    (start <= end && len > 0).then_some((start as u64, end as u64))
}

/// GETRANGE key start end (and SUBSTR).
fn getrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    let start = tri!(int_arg(&argv[2]));
    let end = tri!(int_arg(&argv[3]));
    let Some(s) = tri!(lookup(ks, &argv[1])) else {
        return Reply::Bulk(Vec::new());
    };
    if start < 0 && end < 0 && start > end {
        return Reply::Bulk(Vec::new());
    }
    match clamp_range(start, end, s.len() as i64) {
        Some((a, b)) => Reply::Bulk(s.range(a, b)),
        None => Reply::Bulk(Vec::new()),
    }
}

/// GETBIT key offset.
fn getbit(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    getbit_of(ctx.ks, &argv[1], &argv[2])
}

/// `GETBIT key offset` (the offset as the command's argument text): the command's reply, for
/// callers that hold the arguments as slices (the wasm glue's typed fast path), as Redis GETBIT.
pub fn getbit_of(ks: &Keyspace, key: &[u8], offset: &[u8]) -> Reply {
    let offset = tri!(parse_offset(offset, None, false));
    let bit = tri!(lookup(ks, key)).is_some_and(|s| s.get_bit(offset));
    Reply::Integer(bit as i64)
}

/// SETBIT key offset value.
fn setbit(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    let offset = tri!(parse_offset(&argv[2], None, false));
    let value = match parse_i64(&argv[3]) {
        Some(v @ (0 | 1)) => v == 1,
        _ => return Reply::err("ERR bit is not an integer or out of range"),
    };
    let s = tri!(lookup_for_write(ks, &argv[1]));
    Reply::Integer(s.set_bit(offset, value) as i64)
}

/// Parses an optional `BYTE|BIT` unit argument: `Ok(true)` for BIT.
fn parse_unit(arg: &[u8]) -> Result<bool, Reply> {
    if is(arg, "bit") {
        Ok(true)
    } else if is(arg, "byte") {
        Ok(false)
    } else {
        Err(Reply::syntax_error())
    }
}

/// A BITCOUNT range as parsed: start, end (`None`: to the end of the string, Valkey 8+
/// `BITCOUNT key start`), and whether the unit is BIT.
type CountRange = Option<(i64, Option<i64>, bool)>;

/// Parses BITCOUNT's range arguments in the profile's order: `Ok(None)` for the whole string.
fn parse_count_range(p: &Profile, argv: &[Vec<u8>]) -> Result<CountRange, Reply> {
    match argv.len() {
        2 => Ok(None),
        3 if p.bitcount_start_only => Ok(Some((int_arg(&argv[2])?, None, false))),
        4 => Ok(Some((int_arg(&argv[2])?, Some(int_arg(&argv[3])?), false))),
        5 if p.bit_unit => {
            let start = int_arg(&argv[2])?;
            let (end, isbit) = if p.bitcount_unit_before_end {
                let isbit = parse_unit(&argv[4])?;
                (int_arg(&argv[3])?, isbit)
            } else {
                let end = int_arg(&argv[3])?;
                (end, parse_unit(&argv[4])?)
            };
            Ok(Some((start, Some(end), isbit)))
        }
        _ => Err(Reply::syntax_error()),
    }
}

/// BITCOUNT key [start [end [BYTE|BIT]]]: the options and the order of the key lookup and
/// argument checks follow the profile (`bit_unit`, `bitcount_start_only`, `bit_args`).
fn bitcount(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    let ks = &*ctx.ks;
    let (s, range) = match p.bit_args {
        BitArgs::ParseFirst => {
            let range = tri!(parse_count_range(p, argv));
            let Some(s) = tri!(lookup(ks, &argv[1])) else {
                return Reply::Integer(0);
            };
            (s, range)
        }
        BitArgs::LookupFirst => {
            let Some(s) = tri!(lookup(ks, &argv[1])) else {
                return Reply::Integer(0);
            };
            // Up to 7.2: start and end, the both-negative check, then the unit.
            let range = match argv.len() {
                2 => None,
                4 | 5 if argv.len() == 4 || p.bit_unit => {
                    let start = tri!(int_arg(&argv[2]));
                    let end = tri!(int_arg(&argv[3]));
                    if start < 0 && end < 0 && start > end {
                        return Reply::Integer(0);
                    }
                    let isbit = argv.len() == 5 && tri!(parse_unit(&argv[4]));
                    Some((start, Some(end), isbit))
                }
                3 if p.bitcount_start_only => Some((tri!(int_arg(&argv[2])), None, false)),
                _ => return Reply::syntax_error(),
            };
            (s, range)
        }
    };
    let Some((start, end, isbit)) = range else {
        return Reply::Integer(s.popcount() as i64);
    };
    let end = end.unwrap_or(s.len() as i64 - 1);
    if start < 0 && end < 0 && start > end {
        return Reply::Integer(0);
    }
    let len = s.len() as i64 * if isbit { 8 } else { 1 };
    let count = match clamp_range(start, end, len) {
        None => 0,
        Some((a, b)) if isbit => s.count_bits(a, b),
        Some((a, b)) => s.count_bits(a * 8, b * 8 + 7),
    };
    Reply::Integer(count as i64)
}

/// BITPOS's range arguments: start, end (`None` when not given) and the BIT unit; `None` for
/// no range at all. Parsed start, unit, end, as every server does.
fn parse_pos_range(
    p: &Profile,
    argv: &[Vec<u8>],
) -> Result<Option<(i64, Option<i64>, bool)>, Reply> {
    match argv.len() {
        3 => Ok(None),
        4..=6 if argv.len() < 6 || p.bit_unit => {
            let start = int_arg(&argv[3])?;
            let isbit = argv.len() == 6 && parse_unit(&argv[5])?;
            let end = if argv.len() >= 5 {
                Some(int_arg(&argv[4])?)
            } else {
                None
            };
            Ok(Some((start, end, isbit)))
        }
        _ => Err(Reply::syntax_error()),
    }
}

/// BITPOS key bit [start [end [BYTE|BIT]]]: the bit is checked first; the key lookup comes
/// before or after the range arguments as the profile says.
fn bitpos(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    let ks = &*ctx.ks;
    let bit = tri!(int_arg(&argv[2]));
    if bit != 0 && bit != 1 {
        return Reply::err("ERR The bit argument must be 1 or 0.");
    }
    let bit = bit == 1;
    let missing = Reply::Integer(if bit { -1 } else { 0 });
    let (s, range) = match p.bit_args {
        BitArgs::ParseFirst => {
            let range = tri!(parse_pos_range(p, argv));
            let Some(s) = tri!(lookup(ks, &argv[1])) else {
                return missing;
            };
            (s, range)
        }
        BitArgs::LookupFirst => {
            let Some(s) = tri!(lookup(ks, &argv[1])) else {
                return missing;
            };
            (s, tri!(parse_pos_range(p, argv)))
        }
    };
    let strlen = s.len() as i64;
    let (start, end, isbit, end_given) = match range {
        None => (0, strlen - 1, false, false),
        Some((start, Some(end), isbit)) => (start, end, isbit, true),
        Some((start, None, isbit)) => (start, i64::MAX, isbit, false),
    };
    let len = if isbit { strlen * 8 } else { strlen };
    let Some((a, b)) = clamp_range(start, end, len) else {
        return Reply::Integer(-1);
    };
    let (first, last) = if isbit { (a, b) } else { (a * 8, b * 8 + 7) };
    match s.find_bit(bit, first, last) {
        Some(p) => Reply::Integer(p as i64),
        // No clear bit in range: without an explicit end the string counts as zero padded.
        None if !bit && !end_given => Reply::Integer(last as i64 + 1),
        None => Reply::Integer(-1),
    }
}

/// BITOP op destkey key [key ...].
fn bitop(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let extended = ctx.profile.bitop_extended;
    let ks = &mut *ctx.ks;
    let Some(op) = BitOp::parse(&argv[1]) else {
        return Reply::syntax_error();
    };
    if !extended && matches!(op, BitOp::Diff | BitOp::Diff1 | BitOp::AndOr | BitOp::One) {
        return Reply::syntax_error();
    }
    let nsrc = argv.len() - 3;
    if op == BitOp::Not && nsrc != 1 {
        return Reply::err("ERR BITOP NOT must be called with a single source key.");
    }
    if matches!(op, BitOp::Diff | BitOp::Diff1 | BitOp::AndOr) && nsrc < 2 {
        return Reply::err(format!(
            "ERR BITOP {} must be called with at least two source keys.",
            String::from_utf8_lossy(&argv[1]).to_ascii_uppercase()
        ));
    }
    let mut srcs = Vec::with_capacity(nsrc);
    for key in &argv[3..] {
        srcs.push(tri!(lookup(ks, key)));
    }
    let mut result = RedisString::bitop(op, &srcs);
    result.mark_rewritten();
    let len = result.len() as i64;
    if len == 0 {
        ks.remove(&argv[2]);
    } else {
        ks.set(argv[2].clone(), Value::String(result));
    }
    Reply::Integer(len)
}

/// One parsed BITFIELD operation.
#[derive(Debug, Clone, Copy)]
enum FieldOp {
    Get,
    Set(i64),
    IncrBy(i64),
}

#[derive(Debug, Clone, Copy)]
struct Field {
    op: FieldOp,
    signed: bool,
    bits: u32,
    offset: u64,
    overflow: Overflow,
}

/// Parses a bitfield type `iN` (1..=64) or `uN` (1..=63) ([`crate::bitmap::field_type`]),
/// with Redis' error reply for anything else.
fn parse_type(arg: &[u8]) -> Result<(bool, u32), Reply> {
    crate::bitmap::field_type(arg).ok_or_else(|| {
        Reply::err(
            "ERR Invalid bitfield type. Use something like i16 u8. \
             Note that u64 is not supported but i64 is.",
        )
    })
}

/// BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment |
/// OVERFLOW WRAP|SAT|FAIL] ...
fn bitfield(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let checked = ctx.profile.bitfield_hash_overflow;
    bitfield_generic(ctx.ks, argv, false, checked)
}

/// BITFIELD_RO key [GET type offset] ...
fn bitfield_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let checked = ctx.profile.bitfield_hash_overflow;
    bitfield_generic(ctx.ks, argv, true, checked)
}

fn parse_fields(argv: &[Vec<u8>], checked: bool) -> Result<Vec<Field>, Reply> {
    let mut fields = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut j = 2;
    while j < argv.len() {
        let rem = argv.len() - j - 1;
        let sub = &argv[j];
        let op = if is(sub, "get") && rem >= 2 {
            FieldOp::Get
        } else if is(sub, "set") && rem >= 3 {
            FieldOp::Set(0)
        } else if is(sub, "incrby") && rem >= 3 {
            FieldOp::IncrBy(0)
        } else if is(sub, "overflow") && rem >= 1 {
            let t = &argv[j + 1];
            overflow = if is(t, "wrap") {
                Overflow::Wrap
            } else if is(t, "sat") {
                Overflow::Sat
            } else if is(t, "fail") {
                Overflow::Fail
            } else {
                return Err(Reply::err("ERR Invalid OVERFLOW type specified"));
            };
            j += 2;
            continue;
        } else {
            return Err(Reply::syntax_error());
        };
        let (signed, bits) = parse_type(&argv[j + 1])?;
        let offset = parse_offset(&argv[j + 2], Some(bits), checked)?;
        let op = match op {
            FieldOp::Get => FieldOp::Get,
            FieldOp::Set(_) => FieldOp::Set(int_arg(&argv[j + 3])?),
            FieldOp::IncrBy(_) => FieldOp::IncrBy(int_arg(&argv[j + 3])?),
        };
        fields.push(Field {
            op,
            signed,
            bits,
            offset,
            overflow,
        });
        j += if matches!(op, FieldOp::Get) { 3 } else { 4 };
    }
    Ok(fields)
}

fn bitfield_generic(ks: &mut Keyspace, argv: &[Vec<u8>], read_only: bool, checked: bool) -> Reply {
    let fields = tri!(parse_fields(argv, checked));
    let max_write = fields
        .iter()
        .filter(|f| !matches!(f.op, FieldOp::Get))
        .map(|f| f.offset + f.bits as u64 - 1)
        .max();
    let Some(max_write) = max_write else {
        // Only GETs: read without creating the key.
        let s = tri!(lookup(ks, &argv[1]));
        return Reply::Array(
            fields
                .iter()
                .map(|f| Reply::Integer(read_value(s, f)))
                .collect(),
        );
    };
    if read_only {
        return Reply::err("ERR BITFIELD_RO only supports the GET subcommand");
    }
    let s = tri!(lookup_for_write(ks, &argv[1]));
    s.grow_to_bit(max_write);
    let mut out = Vec::with_capacity(fields.len());
    for f in &fields {
        let old = read_value(Some(s), f);
        let (new, reply) = match f.op {
            FieldOp::Get => {
                out.push(Reply::Integer(old));
                continue;
            }
            FieldOp::Set(v) => (apply(f, v, 0), old),
            FieldOp::IncrBy(incr) => {
                let new = apply(f, old, incr);
                (new, new.unwrap_or(0))
            }
        };
        match new {
            Some(v) => {
                s.write_field(f.offset, f.bits, v as u64);
                out.push(Reply::Integer(reply));
            }
            None => out.push(Reply::NullBulk),
        }
    }
    Reply::Array(out)
}

/// The current value of a field (signed or unsigned), 0 for a missing key.
fn read_value(s: Option<&RedisString>, f: &Field) -> i64 {
    let Some(s) = s else { return 0 };
    let raw = s.read_field(f.offset, f.bits);
    if f.signed {
        bitmap::sign_extend(raw, f.bits)
    } else {
        raw as i64
    }
}

/// `value + incr` within the field under its overflow policy; `None` = FAIL.
fn apply(f: &Field, value: i64, incr: i64) -> Option<i64> {
    if f.signed {
        bitmap::add_signed(value, incr, f.bits, f.overflow)
    } else {
        bitmap::add_unsigned(value as u64, incr, f.bits, f.overflow).map(|v| v as i64)
    }
}

#[cfg(test)]
mod tests {
    use crate::command::{execute_as, execute_str};
    use crate::dialect::REDIS_8_2;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::string::RedisString;

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        for (k, v) in [("x", 0b1100_1010u8), ("y", 0b1010_0110), ("z", 0b0110_0001)] {
            ks.set(
                k.as_bytes(),
                Value::String(RedisString::from_bytes(vec![v])),
            );
        }
        ks
    }

    fn get(ks: &mut Keyspace, k: &str) -> Reply {
        execute_str(ks, &["GET", k])
    }

    #[test]
    fn redis_8_2_bitop_operations() {
        let mut ks = ks();
        // Before 8.2 the new operations are a syntax error (recorded from redis-server
        // 7.0.15, Valkey 8.1.8 and 9.1.2).
        for op in ["DIFF", "DIFF1", "ANDOR", "ONE"] {
            assert_eq!(
                execute_str(&mut ks, &["BITOP", op, "d", "x", "y"]),
                Reply::syntax_error()
            );
        }
        let (x, y, z) = (0b1100_1010u8, 0b1010_0110u8, 0b0110_0001u8);
        let cases: [(&str, u8); 4] = [
            ("DIFF", x & !(y | z)),
            ("DIFF1", !x & (y | z)),
            ("ANDOR", x & (y | z)),
            ("ONE", (x ^ y ^ z) & !((x & y) | (x & z) | (y & z))),
        ];
        for (op, want) in cases {
            assert_eq!(
                execute_as(&mut ks, &REDIS_8_2, &["BITOP", op, "d", "x", "y", "z"]),
                Reply::Integer(1)
            );
            assert_eq!(get(&mut ks, "d"), Reply::Bulk(vec![want]), "{op}");
        }
        for op in ["diff", "Diff1", "ANDOR"] {
            assert_eq!(
                execute_as(&mut ks, &REDIS_8_2, &["BITOP", op, "d", "x"]),
                Reply::err(format!(
                    "ERR BITOP {} must be called with at least two source keys.",
                    op.to_uppercase()
                ))
            );
        }
        // ONE takes a single source (a copy), as in Redis 8.2.
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_2, &["BITOP", "ONE", "d", "x"]),
            Reply::Integer(1)
        );
        assert_eq!(get(&mut ks, "d"), Reply::Bulk(vec![x]));
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_2, &["BITOP", "NOT", "d", "x", "y"]),
            Reply::err("ERR BITOP NOT must be called with a single source key.")
        );
        // An empty result deletes the destination.
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_2, &["BITOP", "DIFF", "d", "nosuch", "x"]),
            Reply::Integer(1)
        );
        assert_eq!(get(&mut ks, "d"), Reply::Bulk(vec![0]));
        assert_eq!(
            execute_as(
                &mut ks,
                &REDIS_8_2,
                &["BITOP", "DIFF", "d", "nosuch", "nosuch2"]
            ),
            Reply::Integer(0)
        );
        assert_eq!(get(&mut ks, "d"), Reply::NullBulk);
    }

    #[test]
    fn bitfield_hash_offsets_wrap_until_redis_8_10() {
        let mut ks = ks();
        // N * 64 wraps to 64: recorded [0] from redis-server 7.0.15 and Valkey 9.1.2; Redis
        // 8.10 refuses the overflowing product (redis/redis#15433, getBitOffsetFromArgument).
        let argv = ["BITFIELD", "x", "GET", "i64", "#288230376151711745"];
        assert_eq!(
            execute_str(&mut ks, &argv),
            Reply::Array(vec![Reply::Integer(0)])
        );
        assert_eq!(
            execute_as(&mut ks, &crate::dialect::REDIS_8_10, &argv),
            Reply::err("ERR bit offset is not an integer or out of range")
        );
        for p in [&crate::dialect::REDIS_7_0, &crate::dialect::REDIS_8_10] {
            assert_eq!(
                execute_as(&mut ks, p, &["BITFIELD", "x", "GET", "u8", "#-1"]),
                Reply::err("ERR bit offset is not an integer or out of range")
            );
        }
    }

    #[test]
    fn offsets_and_missing_keys() {
        let mut ks = ks();
        let e = Reply::err("ERR bit offset is not an integer or out of range");
        assert_eq!(execute_str(&mut ks, &["GETBIT", "x", "4294967296"]), e);
        assert_eq!(execute_str(&mut ks, &["GETBIT", "x", "-1"]), e);
        assert_eq!(
            execute_str(&mut ks, &["GETBIT", "x", "4294967295"]),
            Reply::Integer(0)
        );
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "nosuch", "0"]),
            Reply::Integer(0)
        );
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "nosuch", "1"]),
            Reply::Integer(-1)
        );
        ks.set(b"empty", Value::String(RedisString::from_bytes(Vec::new())));
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "empty", "0"]),
            Reply::Integer(-1)
        );
        assert_eq!(execute_str(&mut ks, &["GET", "empty"]), Reply::Bulk(vec![]));
        assert_eq!(execute_str(&mut ks, &["GET", "nosuch"]), Reply::NullBulk);
        ks.set(
            b"ones",
            Value::String(RedisString::from_bytes(vec![0xFF; 3])),
        );
        // BITPOS 0 on all ones: padded only without an explicit end.
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "ones", "0"]),
            Reply::Integer(24)
        );
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "ones", "0", "1"]),
            Reply::Integer(24)
        );
        assert_eq!(
            execute_str(&mut ks, &["BITPOS", "ones", "0", "0", "-1"]),
            Reply::Integer(-1)
        );
        // Negative indexes clamp rather than empty the range.
        assert_eq!(
            execute_str(&mut ks, &["BITCOUNT", "ones", "-100", "-1"]),
            Reply::Integer(24)
        );
        assert_eq!(
            execute_str(&mut ks, &["BITCOUNT", "ones", "-1", "-100"]),
            Reply::Integer(0)
        );
    }
}
