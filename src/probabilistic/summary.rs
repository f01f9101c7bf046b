//! Per-type summaries of RedisBloom values for inspection (`bitlens inspect`, the panel's key
//! detail): the figures the module's own INFO commands report (BF.INFO, CF.INFO, CMS.INFO,
//! TOPK.INFO, TDIGEST.INFO, RedisBloom 2.8.2), plus fill ratios computed from the stored
//! bit arrays and buckets, which the module does not report.

use super::{ModuleData, ModuleValue};

/// What one module value holds, by type. Sizes are in bytes; ratios are in `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    /// A scalable Bloom filter (`MBbloom--`).
    Bloom {
        /// Sum of the links' capacities (BF.INFO Capacity).
        capacity: u64,
        /// Items added (BF.INFO Number of items inserted, BF.CARD).
        items: u64,
        /// The error rate the filter was reserved with: the first link's rate, undoing the
        /// module's 0.5 tightening of scaling filters.
        error_rate: f64,
        /// The module's memory figure (BF.INFO Size).
        size_bytes: u64,
        /// Number of links (BF.INFO Number of filters).
        filters: u64,
        /// Set bits over all bits of every link.
        fill_ratio: f64,
        /// Growth factor of new links; `None` for a NONSCALING filter (BF.INFO Expansion rate).
        expansion: Option<u64>,
    },
    /// A Cuckoo filter (`MBbloomCF`).
    Cuckoo {
        /// Buckets of the first sub-filter (CF.INFO Number of buckets).
        buckets: u64,
        /// Number of sub-filters.
        filters: u64,
        /// Fingerprints per bucket.
        bucket_size: u64,
        /// Items inserted (net of deletes, CF.INFO Number of items inserted).
        items: u64,
        /// Deletes since the last compaction.
        deletes: u64,
        /// The module's memory figure (CF.INFO Size).
        size_bytes: u64,
        /// Occupied fingerprint slots over all slots.
        fill_ratio: f64,
        /// Sub-filter growth factor (CF.INFO Expansion rate).
        expansion: u64,
        /// Kick-out limit (CF.INFO Max iterations).
        max_iterations: u64,
    },
    /// A Count-Min sketch (`CMSk-TYPE`).
    Cms {
        width: u64,
        depth: u64,
        /// Sum of every increment (CMS.INFO count).
        count: u64,
        /// The counter array (`width · depth · 4`).
        size_bytes: u64,
    },
    /// A Top-K (`TopK-TYPE`).
    TopK {
        k: u64,
        width: u64,
        depth: u64,
        decay: f64,
        /// Items currently listed (non-zero heap slots).
        listed: u64,
        /// Buckets (`width · depth · 8`) plus the heap (`k · 24`) plus the listed items' bytes.
        size_bytes: u64,
    },
    /// A t-digest (`TDIS-TYPE`).
    TDigest {
        compression: f64,
        /// Merged centroids (TDIGEST.INFO Merged nodes).
        centroids: u64,
        /// Observations (TDIGEST.INFO Observations).
        observations: i64,
        /// Smallest and largest observation (`None` when empty).
        min_max: Option<(f64, f64)>,
        /// The module's memory figure (TDIGEST.INFO Memory usage).
        size_bytes: u64,
    },
    /// A RedisBloom type or encoding version bitlens does not interpret.
    Raw {
        /// Number of stored fields.
        fields: u64,
    },
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The summary of one module value (see [`Summary`] for each figure's source).
pub fn summary(v: &ModuleValue) -> Summary {
    match &v.data {
        ModuleData::Bloom(b) => {
            let bits: u64 = b.links.iter().map(|l| l.bytes.len() as u64 * 8).sum();
            let set: u64 = b
                .links
                .iter()
                .flat_map(|l| l.bytes.iter())
                .map(|x| x.count_ones() as u64)
                .sum();
            let first = b.links.first().map_or(0.0, |l| l.error);
            Summary::Bloom {
                capacity: b.capacity(),
                items: b.size,
                error_rate: if b.scaling() {
                    first / super::bloom::ERROR_TIGHTENING
                } else {
                    first
                },
                size_bytes: b.memory(),
                filters: b.links.len() as u64,
                fill_ratio: ratio(set, bits),
                expansion: b.scaling().then_some(b.growth),
            }
        }
        ModuleData::Cuckoo(c) => {
            let slots: u64 = c.filters.iter().map(|f| f.data.len() as u64).sum();
            let used: u64 = c
                .filters
                .iter()
                .flat_map(|f| f.data.iter())
                .filter(|&&x| x != 0)
                .count() as u64;
            Summary::Cuckoo {
                buckets: c.buckets,
                filters: c.filters.len() as u64,
                bucket_size: c.bucket_size as u64,
                items: c.items,
                deletes: c.deletes,
                size_bytes: c.memory(),
                fill_ratio: ratio(used, slots),
                expansion: c.expansion as u64,
                max_iterations: c.max_iterations as u64,
            }
        }
        ModuleData::Cms(c) => Summary::Cms {
            width: c.width,
            depth: c.depth,
            count: c.count,
            size_bytes: c.counters.len() as u64,
        },
        ModuleData::TopK(t) => Summary::TopK {
            k: t.k,
            width: t.width,
            depth: t.depth,
            decay: t.decay,
            listed: t.list().len() as u64,
            size_bytes: t.buckets.len() as u64
                + t.k * 24
                + t.heap.iter().map(|h| h.item.len() as u64).sum::<u64>(),
        },
        ModuleData::TDigest(d) => Summary::TDigest {
            compression: d.compression,
            centroids: d.means.len() as u64,
            observations: d.size(),
            min_max: (d.size() > 0).then_some((d.min, d.max)),
            size_bytes: d.memory(),
        },
        ModuleData::Raw(f) => Summary::Raw {
            fields: f.len() as u64,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyspace::Value;
    use crate::rdb::{load_rdb, LoadOptions};

    /// Written by Redis 7.4.1 + RedisBloom 2.8.2; the figures below are the INFO replies
    /// recorded from that server (tests/data/conformance/redis-7.4.1-bloom/cases.jsonl).
    const DUMP: &[u8] = include_bytes!("../../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");

    fn of(key: &str) -> Summary {
        let snap = load_rdb(DUMP, &LoadOptions::default()).unwrap();
        match snap.databases[&0].get(key.as_bytes()) {
            Some(Value::Module(m)) => summary(m),
            other => panic!("{key}: {other:?}"),
        }
    }

    #[test]
    fn summaries_carry_the_modules_info_figures() {
        // BF.INFO bf:scaling: Capacity 350, Size 1016, 3 filters, 299 items, expansion 2;
        // reserved with error 0.001.
        let Summary::Bloom {
            capacity,
            items,
            error_rate,
            size_bytes,
            filters,
            fill_ratio,
            expansion,
        } = of("bf:scaling")
        else {
            panic!()
        };
        assert_eq!(
            (capacity, items, size_bytes, filters, expansion),
            (350, 299, 1016, 3, Some(2))
        );
        assert_eq!(error_rate, 0.001);
        assert!(fill_ratio > 0.2 && fill_ratio < 0.6, "{fill_ratio}");
        // BF.INFO bf:small: Capacity 100, Size 240, 1 filter, 50 items, error 0.01.
        let Summary::Bloom {
            capacity,
            items,
            size_bytes,
            error_rate,
            ..
        } = of("bf:small")
        else {
            panic!()
        };
        assert_eq!(
            (capacity, items, size_bytes, error_rate),
            (100, 50, 240, 0.01)
        );
        // CF.INFO cf:small: Size 200, 32 buckets, 2 filters, 41 items, 0 deleted, bucket
        // size 2, expansion 1, 20 iterations; 41 fingerprints in 2 · 32 · 2 + … slots.
        let s = of("cf:small");
        let Summary::Cuckoo { fill_ratio, .. } = s else {
            panic!()
        };
        assert_eq!(
            s,
            Summary::Cuckoo {
                buckets: 32,
                filters: 2,
                bucket_size: 2,
                items: 41,
                deletes: 0,
                size_bytes: 200,
                fill_ratio,
                expansion: 1,
                max_iterations: 20,
            }
        );
        assert_eq!(fill_ratio, 41.0 / 128.0);
        // CMS.INFO cms:prob: width 2000, depth 7, count 12.
        assert_eq!(
            of("cms:prob"),
            Summary::Cms {
                width: 2000,
                depth: 7,
                count: 12,
                size_bytes: 2000 * 7 * 4
            }
        );
        // TOPK.INFO topk:k5: k 5, width 50, depth 4, decay 0.9; TOPK.LIST lists 5.
        let Summary::TopK {
            k,
            width,
            depth,
            decay,
            listed,
            ..
        } = of("topk:k5")
        else {
            panic!()
        };
        assert_eq!((k, width, depth, decay, listed), (5, 50, 4, 0.9, 5));
        // TDIGEST.INFO td:lat: Compression 100, Merged nodes 39, Observations 500, Memory
        // usage 9768.
        let Summary::TDigest {
            compression,
            centroids,
            observations,
            size_bytes,
            min_max,
        } = of("td:lat")
        else {
            panic!()
        };
        assert_eq!(
            (compression, centroids, observations, size_bytes),
            (100.0, 39, 500, 9768)
        );
        assert!(min_max.is_some_and(|(lo, hi)| lo < hi));
        assert!(matches!(
            of("td:empty"),
            Summary::TDigest {
                min_max: None,
                observations: 0,
                ..
            }
        ));
    }
}
