//! Lists: sequences of binary strings, kept as the nodes the snapshot stored.
//!
//! A Redis list is a quicklist: a sequence of nodes, each a listpack (Redis 7+,
//! RDB_TYPE_LIST_QUICKLIST_2), a ziplist (Redis 3.2–6.2, RDB_TYPE_LIST_QUICKLIST; also a whole
//! RDB_TYPE_LIST_ZIPLIST list) or one plain element (a large element in Redis 7+, or each
//! element of an old RDB_TYPE_LIST linked list). [`List`] keeps every node in its encoded
//! bytes plus a running element count per node, so that LINDEX finds its node by binary
//! search and decodes only that node. Blobs are validated when the list is built, so decoding
//! on demand cannot fail afterwards.
//!
//! Memory (issue 31): a node is one thin pointer (see [`crate::thin`]), and a list of one
//! node (most small lists) keeps it beside its length, with no node vector.

use crate::encoded::{self, thin_blob, BlobError};
use crate::thin::{Blob, FromBlob, Lazy, Tagged, TaggedOwned, TaggedRef};

/// One quicklist node, kept encoded: one thin pointer (see [`NodeRef`] for what it holds).
#[derive(Debug, Clone, PartialEq)]
pub struct Node(Tagged<Vec<u8>>);

/// What a [`Node`] holds, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeRef<'a> {
    /// A validated listpack of elements.
    Listpack(&'a [u8]),
    /// A validated ziplist of elements.
    Ziplist(&'a [u8]),
    /// One element.
    Plain(&'a [u8]),
}

/// The blob kinds of a [`Node`]'s pointer (a plain element past a blob's 4 GiB is boxed).
const LISTPACK: u8 = 0;
const ZIPLIST: u8 = 1;
const PLAIN: u8 = 2;

impl Node {
    /// A listpack node; errors when the blob is malformed.
    pub fn listpack(blob: impl AsRef<[u8]>) -> Result<(Node, usize), BlobError> {
        let blob = blob.as_ref();
        let n = encoded::listpack(blob)?.len();
        Ok((Node(Tagged::blob(LISTPACK, thin_blob(blob)?)), n))
    }

    /// A ziplist node; errors when the blob is malformed.
    pub fn ziplist(blob: impl AsRef<[u8]>) -> Result<(Node, usize), BlobError> {
        let blob = blob.as_ref();
        let n = encoded::ziplist(blob)?.len();
        Ok((Node(Tagged::blob(ZIPLIST, thin_blob(blob)?)), n))
    }

    /// A node of one element.
    pub fn plain(element: &[u8]) -> Node {
        Node(match Blob::new(element) {
            Some(b) => Tagged::blob(PLAIN, b),
            None => Tagged::boxed(element.to_vec()),
        })
    }

    /// What the node holds.
    pub fn repr(&self) -> NodeRef<'_> {
        match self.0.get() {
            TaggedRef::Blob(LISTPACK, b) => NodeRef::Listpack(b),
            TaggedRef::Blob(ZIPLIST, b) => NodeRef::Ziplist(b),
            TaggedRef::Blob(_, b) => NodeRef::Plain(b),
            TaggedRef::Boxed(v) => NodeRef::Plain(v),
        }
    }

    /// The node's elements, decoded.
    pub fn items(&self) -> Vec<Vec<u8>> {
        match self.repr() {
            NodeRef::Listpack(b) => encoded::listpack(b)
                .unwrap_or_default()
                .iter()
                .map(|i| i.to_vec())
                .collect(),
            NodeRef::Ziplist(b) => encoded::ziplist(b)
                .unwrap_or_default()
                .iter()
                .map(|i| i.to_vec())
                .collect(),
            NodeRef::Plain(b) => vec![b.to_vec()],
        }
    }

    /// Bytes of the node's blob (listpack, ziplist or plain element).
    pub fn bytes(&self) -> usize {
        match self.repr() {
            NodeRef::Listpack(b) | NodeRef::Ziplist(b) | NodeRef::Plain(b) => b.len(),
        }
    }
}

/// The blob kind of a one-node list kept as its node's ziplist by [`List::into_value`] that
/// the snapshot stored as a whole ziplist list (RDB_TYPE_LIST_ZIPLIST).
const ZIPLIST_LIST: u8 = 3;

// SAFETY: `from_thin` only reads the blob's header (it cannot panic); the list keeps the
// blob as its one node, which only `&mut` methods could change, and `into_thin` gives back
// that blob.
unsafe impl FromBlob for List {
    /// A one-node list kept as its node by [`List::into_value`]: the count comes from the
    /// header.
    fn from_thin(kind: u8, blob: Blob) -> List {
        let (len, node_kind, encoding) = match kind {
            LISTPACK => (
                encoded::listpack_header_count(&blob),
                LISTPACK,
                ListEncoding::Quicklist,
            ),
            ZIPLIST => (
                encoded::ziplist_header_count(&blob),
                ZIPLIST,
                ListEncoding::Quicklist,
            ),
            // ZIPLIST_LIST, the only other kind `into_value` gives (no panic here: a kind it
            // never gives would read as a ziplist list).
            _ => (
                encoded::ziplist_header_count(&blob),
                ZIPLIST,
                ListEncoding::Ziplist,
            ),
        };
        List {
            nodes: Nodes::One {
                node: Node(Tagged::blob(node_kind, blob)),
                len: len.unwrap_or(0) as u64,
            },
            encoding,
        }
    }

    fn into_thin(self) -> Blob {
        match self.nodes {
            Nodes::One { node, .. } => match node.0.into_inner() {
                TaggedOwned::Blob(_, blob) => blob,
                TaggedOwned::Boxed(_) => unreachable!("built by from_thin"),
            },
            Nodes::Many(_) => unreachable!("built by from_thin"),
        }
    }
}

/// How a snapshot stored a list, as OBJECT ENCODING names it once loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListEncoding {
    /// `quicklist` (RDB_TYPE_LIST_QUICKLIST, RDB_TYPE_LIST_QUICKLIST_2).
    #[default]
    Quicklist,
    /// `ziplist` (RDB_TYPE_LIST_ZIPLIST).
    Ziplist,
    /// `linkedlist` (RDB_TYPE_LIST).
    Linkedlist,
}

impl ListEncoding {
    /// The name OBJECT ENCODING gives it.
    pub fn name(self) -> &'static str {
        match self {
            ListEncoding::Quicklist => "quicklist",
            ListEncoding::Ziplist => "ziplist",
            ListEncoding::Linkedlist => "linkedlist",
        }
    }
}

/// A list's nodes and running element counts.
#[derive(Debug, Clone, PartialEq)]
enum Nodes {
    /// One node of `len` elements (no vectors: most small lists).
    One { node: Node, len: u64 },
    /// Any number of nodes (boxed, so that a list is 24 bytes: one allocation's smallest
    /// size class with a one-node list's fields; issue 31).
    Many(Box<Many>),
}

/// Any number of nodes; `ends[i]`: number of elements in nodes `0..=i`.
#[derive(Debug, Clone, PartialEq, Default)]
struct Many {
    nodes: Vec<Node>,
    ends: Vec<u64>,
}

// The node's non-null pointer tells the variants apart: no tag word.
const _: () = assert!(std::mem::size_of::<Nodes>() == 16 || cfg!(target_pointer_width = "32"));
const _: () = assert!(std::mem::size_of::<List>() == 24 || cfg!(target_pointer_width = "32"));

/// A Redis list.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    nodes: Nodes,
    /// How the snapshot stored it (OBJECT ENCODING as loaded).
    encoding: ListEncoding,
}

impl Default for List {
    fn default() -> Self {
        List::new(ListEncoding::default())
    }
}

impl List {
    /// An empty list reported with `encoding`.
    pub fn new(encoding: ListEncoding) -> List {
        List {
            nodes: Nodes::Many(Box::default()),
            encoding,
        }
    }

    /// The nodes and `ends` (`ends[i]`: number of elements in nodes `0..=i`).
    fn parts(&self) -> (&[Node], &[u64]) {
        match &self.nodes {
            Nodes::One { node, len } => (std::slice::from_ref(node), std::slice::from_ref(len)),
            Nodes::Many(m) => (&m.nodes, &m.ends),
        }
    }

    /// Appends a node holding `count` elements (empty nodes are dropped).
    pub fn push_node(&mut self, node: Node, count: usize) {
        if count == 0 {
            return;
        }
        let end = self.len() as u64 + count as u64;
        match &mut self.nodes {
            Nodes::Many(m) if !m.nodes.is_empty() => {
                m.nodes.push(node);
                m.ends.push(end);
            }
            Nodes::Many(_) => self.nodes = Nodes::One { node, len: end },
            Nodes::One { .. } => {
                // The new node goes in first, then the one it displaces before it.
                let (mut nodes, mut ends) = (Vec::with_capacity(2), Vec::with_capacity(2));
                nodes.push(node);
                ends.push(end);
                let many = Nodes::Many(Box::new(Many { nodes, ends }));
                if let (Nodes::One { node: first, len }, Nodes::Many(m)) =
                    (std::mem::replace(&mut self.nodes, many), &mut self.nodes)
                {
                    m.nodes.insert(0, first);
                    m.ends.insert(0, len);
                }
            }
        }
    }

    /// A list of plain elements (each its own node), as an old linked list.
    pub fn from_elements<I, E>(elements: I) -> List
    where
        I: IntoIterator<Item = E>,
        E: AsRef<[u8]>,
    {
        let mut l = List::new(ListEncoding::Linkedlist);
        for e in elements {
            l.push_node(Node::plain(e.as_ref()), 1);
        }
        l
    }

    /// Number of elements (LLEN).
    pub fn len(&self) -> usize {
        self.parts().1.last().copied().unwrap_or(0) as usize
    }

    /// True when the list has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The nodes and their element counts.
    pub fn nodes(&self) -> impl DoubleEndedIterator<Item = (&Node, usize)> {
        let (nodes, ends) = self.parts();
        nodes.iter().enumerate().map(move |(i, n)| {
            let start = if i == 0 { 0 } else { ends[i - 1] };
            (n, (ends[i] - start) as usize)
        })
    }

    /// The element at `index` (0-based from the head), if any.
    pub fn get(&self, index: usize) -> Option<Vec<u8>> {
        let (nodes, ends) = self.parts();
        let i = ends.partition_point(|&e| e <= index as u64);
        let node = nodes.get(i)?;
        let start = if i == 0 { 0 } else { ends[i - 1] };
        node.items().into_iter().nth(index - start as usize)
    }

    /// Elements `start..=stop` (0-based, inclusive, already clamped by the caller to the list).
    pub fn range(&self, start: usize, stop: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if start > stop || start >= self.len() {
            return out;
        }
        let (nodes, ends) = self.parts();
        let first = ends.partition_point(|&e| e <= start as u64);
        for i in first..nodes.len() {
            let node_start = if i == 0 { 0 } else { ends[i - 1] as usize };
            if node_start > stop {
                break;
            }
            for (k, item) in nodes[i].items().into_iter().enumerate() {
                let at = node_start + k;
                if at >= start && at <= stop {
                    out.push(item);
                }
            }
        }
        out
    }

    /// The length in bytes of the longest element as a reply gives it (integers as decimal
    /// text), 0 when empty; no element is copied.
    pub fn max_element_len(&self) -> usize {
        let longest = |items: Result<Vec<encoded::Item<'_>>, BlobError>| {
            items
                .unwrap_or_default()
                .iter()
                .map(encoded::Item::text_len)
                .max()
                .unwrap_or(0)
        };
        self.parts()
            .0
            .iter()
            .map(|n| match n.repr() {
                NodeRef::Listpack(b) => longest(encoded::listpack(b)),
                NodeRef::Ziplist(b) => longest(encoded::ziplist(b)),
                NodeRef::Plain(b) => b.len(),
            })
            .max()
            .unwrap_or(0)
    }

    /// The list as a key's value: one tagged pointer to its node while it is one listpack or
    /// ziplist node whose header holds its element count, built back into this struct on
    /// its first read; boxed otherwise (issue 31).
    pub fn into_value(self) -> Lazy<List> {
        let Some(kind) = self.thin_kind() else {
            return Lazy::boxed(self);
        };
        let encoding = self.encoding;
        let Nodes::One { node, len } = self.nodes else {
            unreachable!("thin_kind is only set for one node")
        };
        match node.0.into_inner() {
            TaggedOwned::Blob(_, blob) => Lazy::blob(kind, blob),
            TaggedOwned::Boxed(v) => Lazy::boxed(List {
                nodes: Nodes::One {
                    node: Node(Tagged::boxed(*v)),
                    len,
                },
                encoding,
            }),
        }
    }

    /// The blob kind [`List::into_value`] keeps the list as, if it can.
    fn thin_kind(&self) -> Option<u8> {
        // (`push_node` keeps no empty node, so a one-node list is never empty: a thin list
        // never is, which `Value::is_empty_collection` relies on.)
        let Nodes::One { node, len } = &self.nodes else {
            return None;
        };
        if *len == 0 {
            return None;
        }
        let len = Some(*len as usize);
        match (node.repr(), self.encoding) {
            (NodeRef::Listpack(b), ListEncoding::Quicklist) => {
                (encoded::listpack_header_count(b) == len).then_some(LISTPACK)
            }
            (NodeRef::Ziplist(b), ListEncoding::Quicklist) => {
                (encoded::ziplist_header_count(b) == len).then_some(ZIPLIST)
            }
            (NodeRef::Ziplist(b), ListEncoding::Ziplist) => {
                (encoded::ziplist_header_count(b) == len).then_some(ZIPLIST_LIST)
            }
            _ => None,
        }
    }

    /// The encoding the snapshot stored the list in.
    pub fn encoding(&self) -> &'static str {
        self.encoding.name()
    }

    /// Heap bytes held by the value (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        let vectors = match &self.nodes {
            Nodes::One { .. } => 0,
            Nodes::Many(m) => {
                std::mem::size_of::<Many>()
                    + m.nodes.capacity() * std::mem::size_of::<Node>()
                    + m.ends.capacity() * 8
            }
        };
        self.parts().0.iter().map(Node::bytes).sum::<usize>() + vectors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoded::test_blobs::{items, listpack_strs, ziplist};

    #[test]
    fn nodes_index_and_range() {
        let mut l = List::new(ListEncoding::Quicklist);
        let (n, c) = Node::listpack(listpack_strs(&[b"a", b"1", b"b"])).unwrap();
        l.push_node(n, c);
        l.push_node(Node::plain(b"big"), 1);
        let (n, c) = Node::ziplist(ziplist(&items(&[b"-7", b"z"]))).unwrap();
        l.push_node(n, c);
        assert_eq!(l.len(), 6);
        assert_eq!(l.get(0), Some(b"a".to_vec()));
        assert_eq!(l.get(1), Some(b"1".to_vec()));
        assert_eq!(l.get(3), Some(b"big".to_vec()));
        assert_eq!(l.get(4), Some(b"-7".to_vec()));
        assert_eq!(l.get(6), None);
        assert_eq!(
            l.range(2, 4),
            vec![b"b".to_vec(), b"big".to_vec(), b"-7".to_vec()]
        );
        assert_eq!(l.range(5, 5), vec![b"z".to_vec()]);
        assert!(Node::listpack(vec![1, 2, 3]).is_err());
    }

    /// A one-node list of each stored kind stays one pointer to its node as a key's value,
    /// and reads (length, elements, encoding, bytes) as the list it was built from; lists of
    /// several or plain nodes are boxed.
    #[test]
    fn one_node_lists_stay_their_blob_until_read() {
        let strs: [&[u8]; 4] = [b"a", b"17", b"xyz", b"-3"];
        let lp = || Node::listpack(listpack_strs(&strs)).unwrap();
        let zl = || Node::ziplist(ziplist(&items(&strs))).unwrap();
        let lists = [
            (ListEncoding::Quicklist, vec![lp()], Some(LISTPACK)),
            (ListEncoding::Quicklist, vec![zl()], Some(ZIPLIST)),
            (ListEncoding::Ziplist, vec![zl()], Some(ZIPLIST_LIST)),
            (ListEncoding::Quicklist, vec![lp(), zl()], None),
            (ListEncoding::Linkedlist, vec![(Node::plain(b"p"), 1)], None),
            (ListEncoding::Quicklist, vec![], None),
        ];
        for (encoding, nodes, kind) in lists {
            let mut l = List::new(encoding);
            for (n, c) in nodes {
                l.push_node(n, c);
            }
            let value = l.clone().into_value();
            assert_eq!(value.peek_blob().map(|(k, _)| k), kind, "{l:?}");
            assert_eq!(value.len(), l.len());
            assert_eq!(value.range(0, l.len()), l.range(0, l.len()));
            assert_eq!(value.encoding(), l.encoding());
            assert_eq!(value.heap_bytes(), l.heap_bytes());
            assert_eq!(*value, l);
        }
    }
}
