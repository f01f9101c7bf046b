//! Streams: entries (id → field/value pairs) kept as the listpack nodes the snapshot stored,
//! plus the stream's metadata and a summary of its consumer groups.
//!
//! Node layout (RDB_TYPE_STREAM_LISTPACKS 1/2/3; the node key is the 16-byte big-endian
//! master id, ms then seq): a listpack whose "master entry" is `count`, `deleted`,
//! `num-fields`, the master fields, `0`; then per entry `flags`, `ms-diff`, `seq-diff`
//! (relative to the master id), then — when flag 2 (`SAMEFIELDS`) is set — one value per
//! master field, else `num-fields` and field/value pairs; then the entry's element count
//! (`lp-count`, for walking backwards). Flag 1 (`DELETED`) marks a deleted entry. Nodes are
//! validated when the stream is built, so decoding on demand cannot fail afterwards.
//!
//! As Redis' stream iterator (t_stream.c `streamIteratorGetID`), reads walk the entries by
//! their flags: the master entry's live/deleted counts and the stream's recorded length are
//! not used to find entries, and a file where they disagree with the flags loads (Redis does
//! not compare them at load; XLEN answers the recorded length). A node whose entries do not
//! parse, or whose `lp-count` is not its entry's element count (Redis walks backwards by it),
//! is refused: Redis refuses both only with `sanitize-dump-payload yes`, and without it answers
//! from memory it misreads.

use crate::dialect::StreamLag;
use crate::encoded::{self, BlobError, BlobErrorKind, Item};

/// A stream entry id: milliseconds and sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct StreamId {
    /// Milliseconds part.
    pub ms: u64,
    /// Sequence number within the millisecond.
    pub seq: u64,
}

impl StreamId {
    /// The smallest id, `0-0`.
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The largest id.
    pub const MAX: StreamId = StreamId {
        ms: u64::MAX,
        seq: u64::MAX,
    };

    /// The id from its 16-byte big-endian node key form.
    pub fn from_key(b: &[u8; 16]) -> StreamId {
        StreamId {
            ms: u64::from_be_bytes(b[..8].try_into().expect("8 bytes")),
            seq: u64::from_be_bytes(b[8..].try_into().expect("8 bytes")),
        }
    }

    /// `ms-seq`, as Redis prints ids.
    pub fn text(&self) -> String {
        format!("{}-{}", self.ms, self.seq)
    }

    /// The next id (`None` at the maximum).
    pub fn next(&self) -> Option<StreamId> {
        match self.seq.checked_add(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => self.ms.checked_add(1).map(|ms| StreamId { ms, seq: 0 }),
        }
    }

    /// The previous id (`None` at `0-0`).
    pub fn prev(&self) -> Option<StreamId> {
        match self.seq.checked_sub(1) {
            Some(seq) => Some(StreamId { ms: self.ms, seq }),
            None => self
                .ms
                .checked_sub(1)
                .map(|ms| StreamId { ms, seq: u64::MAX }),
        }
    }
}

/// One live stream entry.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEntry {
    /// The entry's id.
    pub id: StreamId,
    /// Field, value pairs in stored order.
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
}

/// A consumer group: name, last delivered id, entries read, its pending entries list (PEL)
/// and its consumers, as the RDB file records them.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group name.
    pub name: Vec<u8>,
    /// Last delivered id.
    pub last_id: StreamId,
    /// Entries read (RDB_TYPE_STREAM_LISTPACKS_2+), `None` when the file does not record it
    /// or records Redis' "unknown" marker (`XGROUP CREATE` without `ENTRIESREAD`: XINFO's nil).
    pub entries_read: Option<u64>,
    /// Pending entries, in id order.
    pub pending: Vec<PendingEntry>,
    /// Its consumers.
    pub consumers: Vec<Consumer>,
}

/// One entry of a group's PEL: id, last delivery time (Unix ms) and delivery count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PendingEntry {
    /// The pending entry's id.
    pub id: StreamId,
    /// Last delivery time, Unix ms.
    pub delivery_time_ms: u64,
    /// Times delivered.
    pub delivery_count: u64,
}

/// A consumer: name, seen time, active time (RDB_TYPE_STREAM_LISTPACKS_3+; Unix ms) and the
/// ids of its pending entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Consumer {
    /// The consumer name.
    pub name: Vec<u8>,
    /// Last seen, Unix ms.
    pub seen_time_ms: u64,
    /// Last active, Unix ms (RDB_TYPE_STREAM_LISTPACKS_3+), `None` when not recorded.
    pub active_time_ms: Option<u64>,
    /// Ids of its pending entries.
    pub pending: Vec<StreamId>,
}

/// A Redis stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stream {
    /// (master id, validated listpack) per node, in id order.
    pub nodes: Vec<(StreamId, Box<[u8]>)>,
    /// Number of live entries (XLEN).
    pub length: u64,
    /// Last entry id (XINFO STREAM last-generated-id).
    pub last_id: StreamId,
    /// First entry id recorded in the file (RDB_TYPE_STREAM_LISTPACKS_2+), else `0-0`.
    pub first_id: StreamId,
    /// Largest deleted entry id (RDB_TYPE_STREAM_LISTPACKS_2+), else `0-0`.
    pub max_deleted_id: StreamId,
    /// Entries ever added (RDB_TYPE_STREAM_LISTPACKS_2+), else the length.
    pub entries_added: u64,
    /// Consumer groups.
    pub groups: Vec<Group>,
}

fn int(items: &[Item<'_>], i: usize, what: &str) -> Result<i64, BlobError> {
    match items.get(i) {
        Some(Item::Int(v)) => Ok(*v),
        Some(Item::Str(s)) => crate::num::parse_i64(s).ok_or_else(|| {
            BlobError::new(
                BlobErrorKind::Invalid,
                0,
                format!("stream {what} is not an integer"),
            )
        }),
        None => Err(BlobError::new(
            BlobErrorKind::Truncated,
            0,
            format!("stream node ends before its {what}"),
        )),
    }
}

fn count(items: &[Item<'_>], i: usize, what: &str) -> Result<usize, BlobError> {
    let v = int(items, i, what)?;
    usize::try_from(v)
        .ok()
        .filter(|&n| n <= items.len())
        .ok_or_else(|| {
            BlobError::new(
                BlobErrorKind::Invalid,
                0,
                format!("stream {what} {v} out of range"),
            )
        })
}

/// Decodes one node: calls `f` with its live entries in order (until `f` returns false) and
/// returns the numbers of live and deleted entries its flags mark, with the master entry's
/// counts (read, not relied on).
fn walk_node(
    master: StreamId,
    blob: &[u8],
    mut f: impl FnMut(StreamEntry) -> bool,
) -> Result<NodeCounts, BlobError> {
    let items = encoded::listpack(blob)?;
    if items.is_empty() {
        return Err(BlobError::new(
            BlobErrorKind::Invalid,
            0,
            "empty listpack inside stream",
        ));
    }
    let master_live = count(&items, 0, "entry count")?;
    let master_deleted = count(&items, 1, "deleted count")?;
    let nmaster = count(&items, 2, "master field count")?;
    let master_fields = items.get(3..3 + nmaster).ok_or_else(|| {
        BlobError::new(
            BlobErrorKind::Truncated,
            0,
            "stream master fields truncated",
        )
    })?;
    let mut p = 3 + nmaster;
    if int(&items, p, "master terminator")? != 0 {
        return Err(BlobError::new(
            BlobErrorKind::Invalid,
            0,
            "stream master entry not terminated by 0",
        ));
    }
    p += 1;
    let (mut live, mut deleted) = (0u64, 0u64);
    let mut go = true;
    while p < items.len() {
        let start = p;
        let flags = int(&items, p, "entry flags")?;
        let ms = int(&items, p + 1, "entry ms delta")?;
        let seq = int(&items, p + 2, "entry seq delta")?;
        p += 3;
        let id = StreamId {
            ms: master.ms.wrapping_add(ms as u64),
            seq: master.seq.wrapping_add(seq as u64),
        };
        let mut fields = Vec::new();
        if flags & 2 != 0 {
            let vals = items.get(p..p + nmaster).ok_or_else(|| {
                BlobError::new(BlobErrorKind::Truncated, 0, "stream entry values truncated")
            })?;
            for (k, v) in master_fields.iter().zip(vals) {
                fields.push((k.to_vec(), v.to_vec()));
            }
            p += nmaster;
        } else {
            let n = count(&items, p, "entry field count")?;
            p += 1;
            let kv = items.get(p..p + 2 * n).ok_or_else(|| {
                BlobError::new(BlobErrorKind::Truncated, 0, "stream entry fields truncated")
            })?;
            for pair in kv.chunks_exact(2) {
                fields.push((pair[0].to_vec(), pair[1].to_vec()));
            }
            p += 2 * n;
        }
        // lp-count: the entry's elements before it (flags, ms, seq, [num-fields, fields],
        // values), as t_stream.c lpAppend writes it.
        let elements = p - start;
        let lp_count = int(&items, p, "entry lp-count")?;
        if usize::try_from(lp_count).ok() != Some(elements) {
            return Err(BlobError::new(
                BlobErrorKind::Mismatch,
                0,
                format!("stream entry lp-count {lp_count}, the entry has {elements} elements"),
            ));
        }
        p += 1;
        if flags & 1 != 0 {
            deleted += 1;
        } else {
            live += 1;
            if go {
                go = f(StreamEntry { id, fields });
            }
        }
    }
    Ok(NodeCounts {
        live,
        deleted,
        master_live: master_live as u64,
        master_deleted: master_deleted as u64,
    })
}

/// A node's entries by their flags, and the counts its master entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeCounts {
    /// Entries not flagged deleted.
    pub live: u64,
    /// Entries flagged deleted.
    pub deleted: u64,
    /// The master entry's live count.
    pub master_live: u64,
    /// The master entry's deleted count.
    pub master_deleted: u64,
}

impl Stream {
    /// Validates a node's listpack (for the loader); returns its entry counts.
    pub fn check_node(master: StreamId, blob: &[u8]) -> Result<NodeCounts, BlobError> {
        walk_node(master, blob, |_| true)
    }

    /// The consistency Valkey 9 requires at load (refusing the file otherwise, with
    /// `sanitize-dump-payload` at its default; Redis and Valkey 8 load such streams): every
    /// node's master entry counts its live and deleted entries as their flags do ("Stream
    /// listpack integrity check failed"), and the recorded length is the number of live
    /// entries ("Stream length inconsistent with the number of valid entries"). The error
    /// says which.
    pub fn check_counts(&self) -> Result<(), StreamCountError> {
        let mut live = 0u64;
        for (master, blob) in &self.nodes {
            let n = Self::check_node(*master, blob).map_err(StreamCountError::Node)?;
            if (n.master_live, n.master_deleted) != (n.live, n.deleted) {
                return Err(StreamCountError::NodeCounts {
                    master: *master,
                    said: (n.master_live, n.master_deleted),
                    flagged: (n.live, n.deleted),
                });
            }
            live += n.live;
        }
        if live != self.length {
            return Err(StreamCountError::Length {
                length: self.length,
                live,
            });
        }
        Ok(())
    }

    /// Whether a deleted entry may lie at or after `start`, as the server tells from the
    /// metadata alone (Redis 7.0+ `streamRangeHasTombstones`): false for an empty stream or
    /// one that never had a deletion; under [`StreamLag::Redis`] also when the largest deleted
    /// id is before the first entry.
    /// Under [`StreamLag::Redis8`] a largest deleted id before the first entry counts too.
    pub fn has_tombstones_from(&self, start: StreamId, rule: StreamLag) -> bool {
        self.length != 0
            && self.max_deleted_id != StreamId::MIN
            && (rule != StreamLag::Redis || self.first_id <= self.max_deleted_id)
            && start <= self.max_deleted_id
    }

    /// The number of entries added up to and including `id` (a group's "entries read"), when
    /// the metadata tells it (Redis 7.0+ `streamEstimateDistanceFromFirstEverEntry`): 0 for a
    /// stream never written; `entries_added` for the last id (or any id up to it in an emptied
    /// stream); with no deletion at or after the first entry, `entries_added - length` before
    /// the first entry (under [`StreamLag::Valkey`] only for `0-0`, for an id at or after the
    /// largest deleted id, or when nothing was ever deleted) and one more at it; else `None`.
    pub fn estimate_entries_read(&self, id: StreamId, rule: StreamLag) -> Option<u64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if self.length == 0 && id <= self.last_id {
            return Some(self.entries_added);
        }
        // Redis 8.0: an id before the largest deletion cannot be estimated.
        if rule == StreamLag::Redis8 && id != StreamId::MIN && id < self.max_deleted_id {
            return None;
        }
        match id.cmp(&self.last_id) {
            std::cmp::Ordering::Equal => return Some(self.entries_added),
            std::cmp::Ordering::Greater => return None,
            std::cmp::Ordering::Less => {}
        }
        let never_deleted = self.max_deleted_id == StreamId::MIN;
        if never_deleted || self.max_deleted_id < self.first_id {
            let before = self.entries_added.wrapping_sub(self.length);
            match id.cmp(&self.first_id) {
                std::cmp::Ordering::Less
                    if rule != StreamLag::Valkey
                        || never_deleted
                        || id == StreamId::MIN
                        || id >= self.max_deleted_id =>
                {
                    return Some(before)
                }
                std::cmp::Ordering::Equal => return Some(before.wrapping_add(1)),
                _ => {}
            }
        }
        None
    }

    /// A consumer group's lag (XINFO GROUPS `lag`), as `streamReplyWithCGLag` (Redis 7.0+,
    /// Valkey): 0 for a stream never written; `entries_added - entries_read` when the group's
    /// count is known and no deletion may lie after its last delivered id; else from
    /// [`Stream::estimate_entries_read`] of that id; `None` (nil) when neither tells.
    /// Computed in 64-bit two's complement as the servers' `long long`.
    pub fn group_lag(
        &self,
        last_id: StreamId,
        entries_read: Option<u64>,
        rule: StreamLag,
    ) -> Option<i64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if rule == StreamLag::Redis8 {
            // An emptied stream lags 0; a group and the largest deletion both before the
            // first entry lag the stream's length.
            if self.length == 0 {
                return Some(0);
            }
            if last_id < self.first_id && self.max_deleted_id < self.first_id {
                return Some(self.length as i64);
            }
        }
        let read = match entries_read {
            Some(n) if !self.has_tombstones_from(last_id, rule) => n,
            _ => self.estimate_entries_read(last_id, rule)?,
        };
        Some((self.entries_added as i64).wrapping_sub(read as i64))
    }

    /// Live entries with `start <= id <= end`, ascending, at most `count`.
    pub fn range(&self, start: StreamId, end: StreamId, count: Option<usize>) -> Vec<StreamEntry> {
        let mut out = Vec::new();
        if start > end {
            return out;
        }
        let limit = count.unwrap_or(usize::MAX);
        // The first node that can hold `start`: the last whose master id is <= start.
        let first = self
            .nodes
            .partition_point(|(m, _)| *m <= start)
            .saturating_sub(1);
        for (master, blob) in &self.nodes[first..] {
            if *master > end || out.len() >= limit {
                break;
            }
            let _ = walk_node(*master, blob, |e| {
                if e.id > end {
                    return false;
                }
                if e.id >= start {
                    out.push(e);
                }
                out.len() < limit
            });
        }
        out
    }

    /// Live entries with `start <= id <= end`, descending, at most `count`.
    pub fn rev_range(
        &self,
        start: StreamId,
        end: StreamId,
        count: Option<usize>,
    ) -> Vec<StreamEntry> {
        let mut out = Vec::new();
        if start > end {
            return out;
        }
        let limit = count.unwrap_or(usize::MAX);
        for (master, blob) in self.nodes.iter().rev() {
            if out.len() >= limit {
                break;
            }
            let mut node = Vec::new();
            let _ = walk_node(*master, blob, |e| {
                if e.id > end {
                    return false;
                }
                if e.id >= start {
                    node.push(e);
                }
                true
            });
            out.extend(node.into_iter().rev().take(limit - out.len()));
            if *master <= start {
                break;
            }
        }
        out
    }

    /// The first live entry.
    pub fn first(&self) -> Option<StreamEntry> {
        self.range(StreamId::MIN, StreamId::MAX, Some(1)).pop()
    }

    /// The last live entry.
    pub fn last(&self) -> Option<StreamEntry> {
        self.rev_range(StreamId::MIN, StreamId::MAX, Some(1)).pop()
    }

    /// Heap bytes held by the value (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.iter().map(|(_, b)| b.len() + 32).sum::<usize>()
            + self
                .groups
                .iter()
                .map(|g| {
                    g.name.len()
                        + 64
                        + g.pending.len() * 32
                        + g.consumers
                            .iter()
                            .map(|c| c.name.len() + 48 + c.pending.len() * 16)
                            .sum::<usize>()
                })
                .sum::<usize>()
    }
}

/// Why [`Stream::check_counts`] refuses a stream (what Valkey 9's loader refuses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamCountError {
    /// A node's listpack cannot be walked.
    Node(BlobError),
    /// A node's master entry counts (live, deleted) other than its entries' flags mark.
    NodeCounts {
        /// The node's master entry ID.
        master: StreamId,
        /// What the master entry says: (live, deleted).
        said: (u64, u64),
        /// What the entries' flags mark: (live, deleted).
        flagged: (u64, u64),
    },
    /// The recorded length is not the number of live entries.
    Length {
        /// The recorded length.
        length: u64,
        /// The live entries the nodes hold.
        live: u64,
    },
}

impl std::fmt::Display for StreamCountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamCountError::Node(e) => e.fmt(f),
            StreamCountError::NodeCounts {
                master,
                said,
                flagged,
            } => write!(
                f,
                "stream node {} says {} live and {} deleted entries, its flags mark {} and {}",
                master.text(),
                said.0,
                said.1,
                flagged.0,
                flagged.1
            ),
            StreamCountError::Length { length, live } => write!(
                f,
                "stream length {length} but its nodes hold {live} entries"
            ),
        }
    }
}

impl std::error::Error for StreamCountError {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encoded::test_blobs::listpack;

    /// One entry for [`node`]: ms delta, seq delta, fields, deleted.
    pub type TestEntry<'a> = (i64, i64, Vec<(&'a [u8], &'a [u8])>, bool);

    /// A stream node listpack: master fields, then entries; entries whose fields equal the
    /// master fields use SAMEFIELDS.
    pub fn node(master: &[&[u8]], entries: &[TestEntry<'_>]) -> Vec<u8> {
        let live = entries.iter().filter(|e| !e.3).count() as i64;
        let mut it = vec![
            Item::Int(live),
            Item::Int(entries.len() as i64 - live),
            Item::Int(master.len() as i64),
        ];
        it.extend(master.iter().map(|f| Item::Str(f)));
        it.push(Item::Int(0));
        for (ms, seq, fields, deleted) in entries {
            let same =
                fields.len() == master.len() && fields.iter().zip(master).all(|((f, _), m)| f == m);
            let flags = (*deleted as i64) | if same { 2 } else { 0 };
            it.extend([Item::Int(flags), Item::Int(*ms), Item::Int(*seq)]);
            let before = it.len();
            if same {
                it.extend(fields.iter().map(|(_, v)| Item::Str(v)));
            } else {
                it.push(Item::Int(fields.len() as i64));
                for (f, v) in fields {
                    it.extend([Item::Str(f), Item::Str(v)]);
                }
            }
            it.push(Item::Int((it.len() - before + 3) as i64));
        }
        listpack(&it)
    }

    #[test]
    fn ranges_over_nodes() {
        let m1 = StreamId { ms: 100, seq: 0 };
        let n1 = node(
            &[b"f"],
            &[
                (0, 0, vec![(b"f", b"a")], false),
                (0, 1, vec![(b"g", b"b")], true),
                (5, 0, vec![(b"f", b"c"), (b"h", b"d")], false),
            ],
        );
        let m2 = StreamId { ms: 200, seq: 3 };
        let n2 = node(&[b"x"], &[(0, 0, vec![(b"x", b"1")], false)]);
        assert_eq!(
            Stream::check_node(m1, &n1).unwrap(),
            NodeCounts {
                live: 2,
                deleted: 1,
                master_live: 2,
                master_deleted: 1
            }
        );
        let s = Stream {
            nodes: vec![(m1, n1.into()), (m2, n2.into())],
            length: 3,
            ..Stream::default()
        };
        let ids = |v: Vec<StreamEntry>| v.into_iter().map(|e| e.id.text()).collect::<Vec<_>>();
        assert_eq!(
            ids(s.range(StreamId::MIN, StreamId::MAX, None)),
            ["100-0", "105-0", "200-3"]
        );
        assert_eq!(
            ids(s.range(StreamId { ms: 101, seq: 0 }, StreamId::MAX, Some(1))),
            ["105-0"]
        );
        assert_eq!(
            ids(s.rev_range(StreamId::MIN, StreamId::MAX, Some(2))),
            ["200-3", "105-0"]
        );
        assert_eq!(
            s.last().unwrap().fields,
            vec![(b"x".to_vec(), b"1".to_vec())]
        );
        assert_eq!(
            s.first().unwrap().fields,
            vec![(b"f".to_vec(), b"a".to_vec())]
        );
        assert!(Stream::check_node(m1, &listpack(&[Item::Int(1)])).is_err());
    }
}
