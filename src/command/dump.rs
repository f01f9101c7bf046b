//! DUMP key: the value serialized as the profile's server would serialize it for RESTORE
//! (Redis 7.4 `dumpCommand`: the RDB type byte and value, the 2-byte RDB version of that
//! server, a CRC-64 of both), written by bitlens' RDB writer ([`crate::rdb::RdbWriter`]). A
//! real server RESTOREs the payload into the same contents (`reads_diff`); the bytes need not
//! be the server's own DUMP (its encoding choices, e.g. for a value it converted at load, may
//! differ).

use super::{CommandSpec, Ctx};
use crate::dialect::{Family, Profile};
use crate::rdb::format::Format;
use crate::rdb::RdbWriter;
use crate::reply::Reply;

/// DUMP.
pub const COMMANDS: &[CommandSpec] = &[CommandSpec {
    name: "dump",
    arity: 2,
    handler: dump,
}];

/// The RDB format the profile's server writes (and so stamps on its DUMP payloads).
fn format_of(p: &Profile) -> Format {
    let v = format!("{}.{}", p.version.0, p.version.1);
    match p.family {
        Family::Valkey => Format::for_server("7.2.4", Some(&v)),
        Family::Redis => Format::for_server(&v, None),
    }
}

/// The DUMP payload of `value` in `format`, or the writer's refusal (module values kept
/// only as their type).
pub fn dump_payload(value: &crate::keyspace::Value, format: Format) -> Result<Vec<u8>, String> {
    let mut w = RdbWriter::with_format(Vec::new(), format, b"0.0.0").map_err(|e| e.to_string())?;
    let start = w.bytes_written() as usize;
    w.write_value(b"k", value, None)
        .map_err(|e| e.to_string())?;
    let file = w.finish().map_err(|e| e.to_string())?;
    // The record: type byte, the key `k` (length 1), the value; then EOF and the CRC-64.
    let record = &file[start..file.len() - 9];
    let mut out = Vec::with_capacity(record.len() + 8);
    out.push(record[0]);
    out.extend_from_slice(&record[3..]);
    out.extend_from_slice(&(format.version as u16).to_le_bytes());
    let crc = crate::rdb::crc64::crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// DUMP key: nil for a missing key, else the payload (see the module header).
fn dump(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match ctx.ks.get(&argv[1]) {
        None => Reply::NullBulk,
        Some(v) => match dump_payload(v, format_of(ctx.profile)) {
            Ok(p) => Reply::Bulk(p),
            Err(e) => Reply::err(format!("ERR bitlens: cannot DUMP this value: {e}")),
        },
    }
}
