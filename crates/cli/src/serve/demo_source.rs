//! Exporting the built-in demo data set (generated once at start-up) as RDB files.

use axum::http::StatusCode;
use bitlens::keyspace::{Entry, Keyspace};
use bitlens::Value;
use serde_json::json;

use super::{flush_chunk, ChunkTx, KeyFilter, KeyRow, Limits, SharedBuf};
use bitlens::rdb::RdbWriter;

/// RDB version of demo snapshots: 10 (Redis 7.0), so that any Redis from 7.0 on loads them.
pub const DEMO_RDB_VERSION: u32 = 10;

/// Bytes buffered before a chunk is sent.
const CHUNK: usize = 256 * 1024;

/// The demo keys, sorted by name.
pub struct Demo {
    keys: Vec<(Vec<u8>, Entry)>,
}

impl Demo {
    /// Generates the demo data set (deterministic).
    pub fn generate() -> Demo {
        Demo::from_keyspace(bitlens_cli::demo::demo_keyspace())
    }

    /// Serves an arbitrary keyspace (tests).
    pub fn from_keyspace(ks: Keyspace) -> Demo {
        let mut keys: Vec<(Vec<u8>, Entry)> =
            ks.iter().map(|(k, e)| (k.to_vec(), e.to_owned())).collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        Demo { keys }
    }

    fn matching<'a>(
        &'a self,
        patterns: &'a [Vec<u8>],
        filter: &'a KeyFilter,
    ) -> impl Iterator<Item = &'a (Vec<u8>, Entry)> + 'a {
        self.keys.iter().filter(move |(k, _)| {
            filter.permits(k) && patterns.iter().any(|p| bitlens::glob::matches(p, k))
        })
    }

    /// Streams an RDB of the matching keys into `tx`.
    pub async fn write_snapshot(
        &self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
        tx: &ChunkTx,
    ) -> Result<(), String> {
        let buf = SharedBuf::default();
        let mut w = RdbWriter::new(buf.clone(), DEMO_RDB_VERSION).map_err(|e| e.to_string())?;
        w.select_db(0).map_err(|e| e.to_string())?;
        let (mut keys, mut total) = (0u64, 0u64);
        for (key, entry) in self.matching(patterns, filter) {
            keys += 1;
            if keys > limits.max_keys {
                return Err(super::too_many_keys(limits.max_keys));
            }
            let res = match &entry.value {
                Value::String(s) => w.write_string(key, &s.as_bytes(), entry.expire_at_ms),
                Value::ZSet(z) => w.write_zset(key, z, entry.expire_at_ms),
                Value::Module(_) | Value::Other(_) => continue,
                other => w.write_value(key, other, entry.expire_at_ms),
            };
            res.map_err(|e| e.to_string())?;
            if buf.pending() >= CHUNK {
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
        w.finish().map_err(|e| e.to_string())?;
        flush_chunk(&buf, tx).await
    }

    /// `/api/keys` rows. `bytes` is MEMORY USAGE as Redis 7.0 would report it (the core's
    /// estimate); `ttlMs` the milliseconds left from now (expired keys are left out).
    pub fn keys(
        &self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
    ) -> Result<Vec<KeyRow>, (StatusCode, String)> {
        // MEMORY USAGE as the Redis 7.0 (RDB 10) that would load this file reports it
        // (jemalloc build), as /api/keys gives it from a live server.
        let model = bitlens_views::memory::Model::new(
            &bitlens::dialect::REDIS_7_0,
            bitlens_views::memory::Allocator::Jemalloc,
        );
        let now = bitlens::keyspace::wall_clock_ms();
        let mut rows = Vec::new();
        for (key, entry) in self.matching(patterns, filter) {
            if rows.len() as u64 >= limits.max_keys {
                return Err((
                    StatusCode::PAYLOAD_TOO_LARGE,
                    super::too_many_keys(limits.max_keys),
                ));
            }
            let bytes = model
                .estimate_with_expiry(key, &entry.value, entry.expire_at_ms.is_some())
                .map(|e| e.bytes)
                .unwrap_or(0);
            // PTTL as a live server would answer it now; an expired key is not listed (as
            // Redis hides it).
            let ttl_ms = entry.expire_at_ms.map(|at| at - now);
            if ttl_ms.is_some_and(|t| t < 0) {
                continue;
            }
            rows.push(KeyRow {
                key: key.to_vec(),
                kind: entry.value.redis_type().name(),
                bytes,
                ttl_ms,
            });
        }
        Ok(rows)
    }

    /// One page of `/api/keys?cursor=C&count=N`: the cursor is the number of matching keys
    /// (in name order) given by the pages before, `"0"` at the start and after the last page.
    pub fn keys_page(
        &self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        cursor: &str,
        count: u64,
    ) -> Result<super::KeyPage, (StatusCode, String)> {
        let skip: usize = cursor.parse().map_err(|_| {
            (
                StatusCode::BAD_REQUEST,
                format!("bad cursor {cursor:?}: give 0 to start, then the cursor of the last page"),
            )
        })?;
        let all = Limits {
            max_keys: u64::MAX,
            max_bytes: u64::MAX,
            scan_count: 1,
            scan_pause: std::time::Duration::ZERO,
        };
        let rows = self.keys(patterns, filter, all)?;
        let end = rows.len().min(skip.saturating_add(count as usize));
        let more = end < rows.len();
        Ok(super::KeyPage {
            rows: rows.get(skip.min(end)..end).unwrap_or_default().to_vec(),
            cursor: if more { end.to_string() } else { "0".into() },
        })
    }

    /// `/api/info` for the demo: what the data set holds.
    pub fn info(&self) -> serde_json::Value {
        use bitlens_cli::{demo, demo_views};
        json!({
            "source": "demo",
            "redis": null,
            "rdb_version": DEMO_RDB_VERSION,
            "keys": self.keys.len(),
            "demo": {
                "dates": demo::dates(),
                "users": demo::USERS,
                "sign_month": demo::SIGN_MONTH,
                "sign_months": [demo_views::PREV_SIGN_MONTH, demo::SIGN_MONTH],
                "tags": demo_views::TAGS,
                "partitions": demo_views::PARTITION_ENDS.iter().enumerate().map(|(p, end)| json!({
                    "key": format!("orders:{p}:bitmap"),
                    "end": end,
                    "gaps": demo_views::PARTITION_GAPS[p],
                })).collect::<Vec<_>>(),
                "sign_uids": [demo::SIGN_UIDS.0, demo::SIGN_UIDS.1 - 1],
                "shop_ids": (demo::SHOP_IDS.0..=demo::SHOP_IDS.1).collect::<Vec<_>>(),
                "geo_types": demo::GEO_TYPES.iter().map(|t| t.0).collect::<Vec<_>>(),
                "cities": demo::CITIES.iter().map(|c| json!({
                    "code": c.0, "name": c.1, "lon": c.2, "lat": c.3
                })).collect::<Vec<_>>(),
            },
        })
    }
}
