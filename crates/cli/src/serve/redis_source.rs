//! Exporting from a live Redis, through the read-only gate only: SCAN MATCH in COUNT batches
//! (optionally paced), then PTTL + DUMP per key in pipelined sub-batches, each DUMP payload
//! written into the RDB stream as an entry. Memory per request is bounded by one sub-batch of
//! values plus a few chunks in the channel.

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use redis::{IntoConnectionInfo, Value};
use serde_json::json;

use super::gate::ReadOnlyRedis;
use super::{flush_chunk, ChunkTx, KeyFilter, KeyRow, Limits, SharedBuf};
use bitlens::rdb::RdbWriter;

/// Keys whose PTTL + DUMP go out in one pipeline.
const SUB_BATCH: usize = 32;

/// A connected live Redis.
#[derive(Clone)]
pub struct RedisSource {
    redis: ReadOnlyRedis,
    url: String,
    db: u64,
}

/// The URL with any password removed (for messages and `/api/info`).
pub fn display_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth_host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match auth_host.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            if user.is_empty() {
                format!("{scheme}://{host}{path}")
            } else {
                format!("{scheme}://{user}@{host}{path}")
            }
        }
        None => url.to_string(),
    }
}

/// RDB version Redis `redis_version` writes: 6.x = 9, 7.0 = 10, 7.2 = 11, 7.4 and later = 12.
pub fn rdb_version_for(redis_version: &str) -> u32 {
    let mut it = redis_version
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
    match (major, minor) {
        (0..=6, _) => 9,
        (7, 0..=1) => 10,
        (7, 2..=3) => 11,
        _ => 12,
    }
}

fn text(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::VerbatimString { text, .. } => Some(text.as_bytes().to_vec()),
        Value::Okay => Some(b"OK".to_vec()),
        _ => None,
    }
}

/// State of one request's SCAN walk over its patterns.
struct Walk<'a> {
    patterns: &'a [Vec<u8>],
    filter: &'a KeyFilter,
    limits: Limits,
    index: usize,
    cursor: Vec<u8>,
    started: bool,
    seen: HashSet<Vec<u8>>,
}

impl<'a> Walk<'a> {
    fn new(patterns: &'a [Vec<u8>], filter: &'a KeyFilter, limits: Limits) -> Self {
        Walk {
            patterns,
            filter,
            limits,
            index: 0,
            cursor: b"0".to_vec(),
            started: false,
            seen: HashSet::new(),
        }
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl RedisSource {
    /// Connects (5 s timeout per attempt, reconnecting later when the connection drops) and checks that the server answers PING.
    pub async fn connect(url: &str) -> Result<RedisSource, String> {
        let info = url
            .into_connection_info()
            .map_err(|e| format!("bad URL: {e}"))?;
        let db = u64::try_from(info.redis.db).unwrap_or(0);
        let client = redis::Client::open(info).map_err(|e| e.to_string())?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_max_delay(1000)
            .set_connection_timeout(Duration::from_secs(5))
            .set_response_timeout(Duration::from_secs(120));
        let conn = tokio::time::timeout(
            Duration::from_secs(15),
            redis::aio::ConnectionManager::new_with_config(client, config),
        )
        .await
        .map_err(|_| "connection timed out".to_string())?
        .map_err(|e| e.to_string())?;
        let mut redis = ReadOnlyRedis::new(conn);
        redis
            .query(&[b"PING".to_vec()])
            .await
            .map_err(|e| e.to_string())?;
        Ok(RedisSource {
            redis,
            url: display_url(url),
            db,
        })
    }

    /// `redis_version` from INFO server.
    async fn server_version(&mut self) -> Result<String, String> {
        let v = self
            .redis
            .query(&[b"INFO".to_vec(), b"server".to_vec()])
            .await
            .map_err(|e| e.to_string())?;
        let t = text(&v).ok_or("INFO: unexpected reply")?;
        let t = String::from_utf8_lossy(&t);
        t.lines()
            .find_map(|l| l.strip_prefix("redis_version:"))
            .map(|s| s.trim().to_string())
            .ok_or_else(|| "INFO: no redis_version".to_string())
    }

    /// One SCAN step: the next cursor and the keys of this batch.
    async fn scan(
        &mut self,
        cursor: &[u8],
        pattern: &[u8],
        count: u64,
    ) -> Result<(Vec<u8>, Vec<Vec<u8>>), String> {
        let v = self
            .redis
            .query(&[
                b"SCAN".to_vec(),
                cursor.to_vec(),
                b"MATCH".to_vec(),
                pattern.to_vec(),
                b"COUNT".to_vec(),
                count.to_string().into_bytes(),
            ])
            .await
            .map_err(|e| format!("SCAN: {e}"))?;
        let Value::Array(parts) = v else {
            return Err("SCAN: unexpected reply".into());
        };
        let (Some(c), Some(Value::Array(keys))) = (parts.first().and_then(text), parts.get(1))
        else {
            return Err("SCAN: unexpected reply".into());
        };
        Ok((c, keys.iter().filter_map(text).collect()))
    }

    /// The next batch of new, permitted keys of the walk (each key once per request), or
    /// `None` when every pattern has been walked. Fails past `limits.max_keys`.
    async fn next_batch(&mut self, w: &mut Walk<'_>) -> Result<Option<Vec<Vec<u8>>>, String> {
        while w.index < w.patterns.len() {
            if w.started && !w.limits.scan_pause.is_zero() {
                tokio::time::sleep(w.limits.scan_pause).await;
            }
            w.started = true;
            let pattern = &w.patterns[w.index];
            let (next, keys) = self.scan(&w.cursor, pattern, w.limits.scan_count).await?;
            if next == b"0" {
                w.index += 1;
                w.cursor = b"0".to_vec();
            } else {
                w.cursor = next;
            }
            let fresh: Vec<Vec<u8>> = keys
                .into_iter()
                .filter(|k| w.filter.permits(k) && w.seen.insert(k.clone()))
                .collect();
            if w.seen.len() as u64 > w.limits.max_keys {
                return Err(format!(
                    "more than {} keys match; narrow the pattern or raise --max-keys",
                    w.limits.max_keys
                ));
            }
            if !fresh.is_empty() {
                return Ok(Some(fresh));
            }
        }
        Ok(None)
    }

    /// Streams an RDB of the matching keys into `tx`.
    pub async fn write_snapshot(
        mut self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
        tx: &ChunkTx,
    ) -> Result<(), String> {
        let version = rdb_version_for(&self.server_version().await?);
        let buf = SharedBuf::default();
        let mut writer = RdbWriter::new(buf.clone(), version).map_err(|e| e.to_string())?;
        writer.select_db(self.db).map_err(|e| e.to_string())?;
        let mut total: u64 = 0;
        let mut walk = Walk::new(patterns, filter, limits);
        while let Some(keys) = self.next_batch(&mut walk).await? {
            for chunk in keys.chunks(SUB_BATCH) {
                let mut cmds = Vec::with_capacity(chunk.len() * 2);
                for k in chunk {
                    cmds.push(vec![b"PTTL".to_vec(), k.clone()]);
                    cmds.push(vec![b"DUMP".to_vec(), k.clone()]);
                }
                let replies = self
                    .redis
                    .pipeline(&cmds)
                    .await
                    .map_err(|e| format!("PTTL/DUMP: {e}"))?;
                let now = now_ms();
                for (k, pair) in chunk.iter().zip(replies.chunks(2)) {
                    let (pttl, payload) = match pair {
                        // Vanished between SCAN and DUMP (PTTL -2 / DUMP nil): skip.
                        [_, Value::Nil] | [Value::Int(-2), _] => continue,
                        [Value::Int(p), Value::BulkString(d)] => (*p, d),
                        other => {
                            return Err(format!(
                                "unexpected PTTL/DUMP reply for key {:?}: {other:?}",
                                String::from_utf8_lossy(k)
                            ))
                        }
                    };
                    let expire = (pttl >= 0).then(|| now + pttl);
                    writer
                        .write_dump_payload(k, payload, expire)
                        .map_err(|e| e.to_string())?;
                }
                total += buf.pending() as u64;
                if total > limits.max_bytes {
                    return Err(format!(
                        "snapshot larger than {} bytes; narrow the pattern or raise --max-bytes",
                        limits.max_bytes
                    ));
                }
                flush_chunk(&buf, tx).await?;
            }
        }
        writer.finish().map_err(|e| e.to_string())?;
        flush_chunk(&buf, tx).await
    }

    /// `/api/keys` rows: TYPE and MEMORY USAGE of each matching key.
    pub async fn keys(
        mut self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
    ) -> Result<Vec<KeyRow>, (StatusCode, String)> {
        let fail = |e: String| {
            let status = if e.starts_with("more than") {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::BAD_GATEWAY
            };
            (status, e)
        };
        let mut rows = Vec::new();
        let mut walk = Walk::new(patterns, filter, limits);
        while let Some(keys) = self.next_batch(&mut walk).await.map_err(fail)? {
            for chunk in keys.chunks(SUB_BATCH * 4) {
                let mut cmds = Vec::with_capacity(chunk.len() * 2);
                for k in chunk {
                    cmds.push(vec![b"TYPE".to_vec(), k.clone()]);
                    cmds.push(vec![b"MEMORY".to_vec(), b"USAGE".to_vec(), k.clone()]);
                }
                let replies = self
                    .redis
                    .pipeline(&cmds)
                    .await
                    .map_err(|e| fail(format!("TYPE/MEMORY USAGE: {e}")))?;
                for (k, pair) in chunk.iter().zip(replies.chunks(2)) {
                    let kind = pair.first().and_then(text).unwrap_or_default();
                    let bytes = match pair.get(1) {
                        Some(Value::Int(n)) => *n as u64,
                        _ => continue,
                    };
                    if kind == b"none" {
                        continue;
                    }
                    rows.push(KeyRow {
                        key: String::from_utf8_lossy(k).into_owned(),
                        kind: String::from_utf8_lossy(&kind).into_owned(),
                        bytes,
                    });
                }
            }
        }
        Ok(rows)
    }

    /// `/api/info` for a live Redis.
    pub async fn info(mut self) -> Result<serde_json::Value, String> {
        let version = self.server_version().await?;
        Ok(json!({
            "source": "redis",
            "redis": self.url,
            "db": self.db,
            "redis_version": version,
            "rdb_version": rdb_version_for(&version),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_rdb_versions() {
        assert_eq!(rdb_version_for("6.2.14"), 9);
        assert_eq!(rdb_version_for("7.0.15"), 10);
        assert_eq!(rdb_version_for("7.2.4"), 11);
        assert_eq!(rdb_version_for("7.4.1"), 12);
        assert_eq!(rdb_version_for("8.0.2"), 12);
    }

    #[test]
    fn passwords_never_shown() {
        assert_eq!(
            display_url("redis://bob:secret@127.0.0.1:6379/2"),
            "redis://bob@127.0.0.1:6379/2"
        );
        assert_eq!(display_url("redis://:secret@host:1"), "redis://host:1");
        assert_eq!(display_url("redis://host:1/0"), "redis://host:1/0");
        assert_eq!(display_url("rediss://u:p@a@host"), "rediss://u@host");
    }
}
