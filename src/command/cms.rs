//! RedisBloom Count-Min sketch read commands: CMS.QUERY, CMS.INFO, with the replies and
//! errors of RedisBloom 2.8.2 (`CMS: key does not exist`, WRONGTYPE).

use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::cms::Cms;
use crate::probabilistic::ModuleData;
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
];

fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<&'a Cms, Reply> {
    match ctx.ks.get(key) {
        None => Err(Reply::err("CMS: key does not exist")),
        Some(Value::Module(m)) => match &m.data {
            ModuleData::Cms(c) => Ok(c),
            _ => Err(Reply::wrong_type()),
        },
        Some(_) => Err(Reply::wrong_type()),
    }
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
