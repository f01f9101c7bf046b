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
        /// Counters per row (CMS.INFO width).
        width: u64,
        /// Rows, one hash function each (CMS.INFO depth).
        depth: u64,
        /// Sum of every increment (CMS.INFO count).
        count: u64,
        /// The counter array (`width · depth · 4`).
        size_bytes: u64,
    },
    /// A Top-K (`TopK-TYPE`).
    TopK {
        /// Items the heap keeps (TOPK.INFO k).
        k: u64,
        /// Buckets per row (TOPK.INFO width).
        width: u64,
        /// Rows (TOPK.INFO depth).
        depth: u64,
        /// The decay base (TOPK.INFO decay): a colliding bucket's counter drops with
        /// probability `decay^count`.
        decay: f64,
        /// Items currently listed (non-zero heap slots).
        listed: u64,
        /// Buckets (`width · depth · 8`) plus the heap (`k · 24`) plus the listed items' bytes.
        size_bytes: u64,
    },
    /// A t-digest (`TDIS-TYPE`).
    TDigest {
        /// The compression parameter (TDIGEST.INFO Compression).
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
    /// A Redis 8 vector set (`vectorset`): the figures of VCARD, VDIM and VINFO.
    VectorSet {
        /// Elements (VCARD).
        elements: u64,
        /// Vector dimension (VDIM).
        dim: u64,
        /// Quantization as VINFO names it (`int8`, `f32`, `bin`).
        quant: &'static str,
        /// Elements with an attribute (VINFO attributes-count).
        attributes: u64,
        /// Dimension before a `REDUCE` projection; 0 without one.
        projection_input_dim: u64,
    },
    /// A RedisBloom type or encoding version bitlens does not interpret.
    Raw {
        /// Number of stored fields.
        fields: u64,
    },
}

/// One figure of a [`Summary`], as the views show it (`bitlens inspect` JSON and text, the
/// panel's key detail).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure {
    /// A count or a size in bytes.
    Count(u64),
    /// A signed count (t-digest observations, signed as TDIGEST.INFO keeps them).
    Signed(i64),
    /// A rate, a ratio or a real parameter (error rate, fill ratio, decay, compression, min,
    /// max).
    Real(f64),
    /// Not applicable: a NONSCALING filter's expansion, an empty t-digest's min and max.
    Absent,
}

impl Figure {
    /// The figure as a number (`None` for [`Figure::Absent`]); counts above 2^53 round.
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Figure::Count(n) => Some(n as f64),
            Figure::Signed(n) => Some(n as f64),
            Figure::Real(x) => Some(x),
            Figure::Absent => None,
        }
    }
}

/// A [`Summary`] laid out for views: every view (JSON, the text table, the panel) reads these
/// instead of matching on the variants itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// `bloom`, `cuckoo`, `cms`, `topk`, `tdigest`, or `raw` (a value bitlens does not
    /// interpret).
    pub kind: &'static str,
    /// Every figure under its snake_case field name, in this order per kind: bloom
    /// `capacity, items, error_rate, size_bytes, filters, fill_ratio, expansion`; cuckoo
    /// `buckets, filters, bucket_size, items, deletes, size_bytes, fill_ratio, expansion,
    /// max_iterations`; cms `width, depth, count, size_bytes`; topk `k, width, depth, decay,
    /// listed, size_bytes`; tdigest `compression, centroids, observations, min, max,
    /// size_bytes`; raw `fields`.
    pub fields: Vec<(&'static str, Figure)>,
    /// The figures that have no column of their own, as one line of text: `3 filters,
    /// expansion 2` (or `1 filters, nonscaling`), `32 buckets of 2, 2 filters, 0 deleted,
    /// expansion 1, max iterations 20`, `width 2000, depth 7`, `width 50, depth 4, decay 0.9`,
    /// `compression 100, 39 centroids, min 1, max 500` (or `compression 100, empty`), `4
    /// fields`.
    pub details: String,
}

impl Figures {
    /// The figure named `name` (a name of [`Figures::fields`]), if this kind has it.
    pub fn get(&self, name: &str) -> Option<Figure> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, f)| f)
    }
}

impl Summary {
    /// The summary's figures by name, and its details line (see [`Figures`]).
    pub fn figures(&self) -> Figures {
        use Figure::{Count, Real};
        let absent = |x: Option<f64>| x.map_or(Figure::Absent, Real);
        let (kind, fields, details) = match *self {
            Summary::Bloom {
                capacity,
                items,
                error_rate,
                size_bytes,
                filters,
                fill_ratio,
                expansion,
            } => (
                "bloom",
                vec![
                    ("capacity", Count(capacity)),
                    ("items", Count(items)),
                    ("error_rate", Real(error_rate)),
                    ("size_bytes", Count(size_bytes)),
                    ("filters", Count(filters)),
                    ("fill_ratio", Real(fill_ratio)),
                    ("expansion", expansion.map_or(Figure::Absent, Count)),
                ],
                match expansion {
                    Some(e) => format!("{filters} filters, expansion {e}"),
                    None => format!("{filters} filters, nonscaling"),
                },
            ),
            Summary::Cuckoo {
                buckets,
                filters,
                bucket_size,
                items,
                deletes,
                size_bytes,
                fill_ratio,
                expansion,
                max_iterations,
            } => (
                "cuckoo",
                vec![
                    ("buckets", Count(buckets)),
                    ("filters", Count(filters)),
                    ("bucket_size", Count(bucket_size)),
                    ("items", Count(items)),
                    ("deletes", Count(deletes)),
                    ("size_bytes", Count(size_bytes)),
                    ("fill_ratio", Real(fill_ratio)),
                    ("expansion", Count(expansion)),
                    ("max_iterations", Count(max_iterations)),
                ],
                format!(
                    "{buckets} buckets of {bucket_size}, {filters} filters, {deletes} deleted, expansion {expansion}, max iterations {max_iterations}"
                ),
            ),
            Summary::Cms {
                width,
                depth,
                count,
                size_bytes,
            } => (
                "cms",
                vec![
                    ("width", Count(width)),
                    ("depth", Count(depth)),
                    ("count", Count(count)),
                    ("size_bytes", Count(size_bytes)),
                ],
                format!("width {width}, depth {depth}"),
            ),
            Summary::TopK {
                k,
                width,
                depth,
                decay,
                listed,
                size_bytes,
            } => (
                "topk",
                vec![
                    ("k", Count(k)),
                    ("width", Count(width)),
                    ("depth", Count(depth)),
                    ("decay", Real(decay)),
                    ("listed", Count(listed)),
                    ("size_bytes", Count(size_bytes)),
                ],
                format!("width {width}, depth {depth}, decay {decay}"),
            ),
            Summary::VectorSet {
                elements,
                dim,
                quant,
                attributes,
                projection_input_dim,
            } => (
                "vectorset",
                vec![
                    ("elements", Count(elements)),
                    ("dim", Count(dim)),
                    ("attributes", Count(attributes)),
                    ("projection_input_dim", Count(projection_input_dim)),
                ],
                if projection_input_dim > 0 {
                    format!("{quant}, dimension {dim} (reduced from {projection_input_dim}), {attributes} attributes")
                } else {
                    format!("{quant}, dimension {dim}, {attributes} attributes")
                },
            ),
            Summary::TDigest {
                compression,
                centroids,
                observations,
                min_max,
                size_bytes,
            } => (
                "tdigest",
                vec![
                    ("compression", Real(compression)),
                    ("centroids", Count(centroids)),
                    ("observations", Figure::Signed(observations)),
                    ("min", absent(min_max.map(|m| m.0))),
                    ("max", absent(min_max.map(|m| m.1))),
                    ("size_bytes", Count(size_bytes)),
                ],
                match min_max {
                    Some((lo, hi)) => {
                        format!("compression {compression}, {centroids} centroids, min {lo}, max {hi}")
                    }
                    None => format!("compression {compression}, empty"),
                },
            ),
            Summary::Raw { fields } => ("raw", vec![("fields", Count(fields))], format!("{fields} fields")),
        };
        Figures {
            kind,
            fields,
            details,
        }
    }
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
        ModuleData::VectorSet(v) => Summary::VectorSet {
            elements: v.len() as u64,
            dim: v.dim as u64,
            quant: v.quant.name(),
            attributes: v.attributes(),
            projection_input_dim: v.projection.as_ref().map_or(0, |p| p.input_dim as u64),
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
        let s = of("bf:scaling");
        let Summary::Bloom { fill_ratio, .. } = s else {
            panic!("{s:?}")
        };
        assert!(fill_ratio > 0.2 && fill_ratio < 0.6, "{fill_ratio}");
        assert_eq!(
            s,
            Summary::Bloom {
                capacity: 350,
                items: 299,
                error_rate: 0.001,
                size_bytes: 1016,
                filters: 3,
                fill_ratio,
                expansion: Some(2),
            }
        );
        // BF.INFO bf:small: Capacity 100, Size 240, 1 filter, 50 items, error 0.01.
        assert!(matches!(
            of("bf:small"),
            Summary::Bloom {
                capacity: 100,
                items: 50,
                size_bytes: 240,
                error_rate: 0.01,
                ..
            }
        ));
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
        assert!(matches!(
            of("topk:k5"),
            Summary::TopK {
                k: 5,
                width: 50,
                depth: 4,
                decay: 0.9,
                listed: 5,
                ..
            }
        ));
        // TDIGEST.INFO td:lat: Compression 100, Merged nodes 39, Observations 500, Memory
        // usage 9768.
        let s = of("td:lat");
        assert!(matches!(
            s,
            Summary::TDigest {
                compression: 100.0,
                centroids: 39,
                observations: 500,
                size_bytes: 9768,
                ..
            }
        ));
        let Summary::TDigest { min_max, .. } = s else {
            panic!("{s:?}")
        };
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

    #[test]
    fn figures_name_every_field_and_say_the_rest_in_a_line() {
        use Figure::{Absent, Count, Real};
        // The same recorded values as above (BF.INFO, CF.INFO, CMS.INFO, TOPK.INFO,
        // TDIGEST.INFO of Redis 7.4.1 + RedisBloom 2.8.2).
        let f = of("bf:small").figures();
        assert_eq!(f.kind, "bloom");
        assert_eq!(f.details, "1 filters, expansion 2");
        let names: Vec<&str> = f.fields.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "capacity",
                "items",
                "error_rate",
                "size_bytes",
                "filters",
                "fill_ratio",
                "expansion"
            ]
        );
        assert_eq!(f.get("capacity"), Some(Count(100)));
        assert_eq!(f.get("error_rate"), Some(Real(0.01)));
        assert_eq!(f.get("expansion"), Some(Count(2)));
        assert_eq!(f.get("k"), None);
        // The recorded file has no NONSCALING filter (BF.INFO's Expansion rate is then a null
        // bulk): a summary of one, as the loader gives it.
        let nonscaling = Summary::Bloom {
            capacity: 100,
            items: 0,
            error_rate: 0.01,
            size_bytes: 240,
            filters: 1,
            fill_ratio: 0.0,
            expansion: None,
        }
        .figures();
        assert_eq!(nonscaling.details, "1 filters, nonscaling");
        assert_eq!(nonscaling.get("expansion"), Some(Absent));
        let f = of("bf:scaling").figures();
        assert_eq!(f.details, "3 filters, expansion 2");
        assert_eq!(f.get("expansion"), Some(Count(2)));
        let f = of("cf:small").figures();
        assert_eq!(
            (f.kind, f.details.as_str()),
            (
                "cuckoo",
                "32 buckets of 2, 2 filters, 0 deleted, expansion 1, max iterations 20"
            )
        );
        assert_eq!(f.get("fill_ratio"), Some(Real(41.0 / 128.0)));
        let f = of("cms:prob").figures();
        assert_eq!((f.kind, f.details.as_str()), ("cms", "width 2000, depth 7"));
        assert_eq!(f.get("count"), Some(Count(12)));
        let f = of("topk:k5").figures();
        assert_eq!(
            (f.kind, f.details.as_str()),
            ("topk", "width 50, depth 4, decay 0.9")
        );
        assert_eq!(f.get("listed").and_then(Figure::as_f64), Some(5.0));
        let f = of("td:lat").figures();
        assert_eq!(f.kind, "tdigest");
        assert_eq!(f.get("observations"), Some(Figure::Signed(500)));
        assert!(
            f.details.starts_with("compression 100, 39 centroids, min "),
            "{}",
            f.details
        );
        let f = of("td:empty").figures();
        assert_eq!(f.details, "compression 100, empty");
        assert_eq!((f.get("min"), f.get("max")), (Some(Absent), Some(Absent)));
        assert_eq!(Absent.as_f64(), None);
    }
}
