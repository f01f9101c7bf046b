//! Lists: sequences of binary strings, kept as the nodes the snapshot stored.
//!
//! A Redis list is a quicklist: a sequence of nodes, each a listpack (Redis 7+,
//! RDB_TYPE_LIST_QUICKLIST_2), a ziplist (Redis 3.2–6.2, RDB_TYPE_LIST_QUICKLIST; also a whole
//! RDB_TYPE_LIST_ZIPLIST list) or one plain element (a large element in Redis 7+, or each
//! element of an old RDB_TYPE_LIST linked list). [`List`] keeps every node in its encoded
//! bytes plus a running element count per node, so that LINDEX finds its node by binary
//! search and decodes only that node. Blobs are validated when the list is built, so decoding
//! on demand cannot fail afterwards.

use crate::encoded::{self, BlobError};

/// One quicklist node, kept encoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A validated listpack of elements.
    Listpack(Box<[u8]>),
    /// A validated ziplist of elements.
    Ziplist(Box<[u8]>),
    /// One element.
    Plain(Box<[u8]>),
}

impl Node {
    /// A listpack node; errors when the blob is malformed.
    pub fn listpack(blob: Vec<u8>) -> Result<(Node, usize), BlobError> {
        let n = encoded::listpack(&blob)?.len();
        Ok((Node::Listpack(blob.into_boxed_slice()), n))
    }

    /// A ziplist node; errors when the blob is malformed.
    pub fn ziplist(blob: Vec<u8>) -> Result<(Node, usize), BlobError> {
        let n = encoded::ziplist(&blob)?.len();
        Ok((Node::Ziplist(blob.into_boxed_slice()), n))
    }

    /// The node's elements, decoded.
    pub fn items(&self) -> Vec<Vec<u8>> {
        match self {
            Node::Listpack(b) => encoded::listpack(b)
                .unwrap_or_default()
                .iter()
                .map(|i| i.to_vec())
                .collect(),
            Node::Ziplist(b) => encoded::ziplist(b)
                .unwrap_or_default()
                .iter()
                .map(|i| i.to_vec())
                .collect(),
            Node::Plain(b) => vec![b.to_vec()],
        }
    }

    /// Bytes of the node's blob (listpack, ziplist or plain element).
    pub fn bytes(&self) -> usize {
        match self {
            Node::Listpack(b) | Node::Ziplist(b) | Node::Plain(b) => b.len(),
        }
    }
}

/// A Redis list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct List {
    nodes: Vec<Node>,
    /// `ends[i]`: number of elements in nodes `0..=i`.
    ends: Vec<u64>,
    /// How the snapshot stored it (OBJECT ENCODING as loaded).
    encoding: &'static str,
}

impl List {
    /// An empty list reported with `encoding` (e.g. `quicklist`, `ziplist`, `linkedlist`).
    pub fn new(encoding: &'static str) -> List {
        List {
            nodes: Vec::new(),
            ends: Vec::new(),
            encoding,
        }
    }

    /// Appends a node holding `count` elements (empty nodes are dropped).
    pub fn push_node(&mut self, node: Node, count: usize) {
        if count == 0 {
            return;
        }
        let end = self.len() as u64 + count as u64;
        self.nodes.push(node);
        self.ends.push(end);
    }

    /// A list of plain elements (each its own node), as an old linked list.
    pub fn from_elements<I, E>(elements: I) -> List
    where
        I: IntoIterator<Item = E>,
        E: AsRef<[u8]>,
    {
        let mut l = List::new("linkedlist");
        for e in elements {
            l.push_node(Node::Plain(e.as_ref().into()), 1);
        }
        l
    }

    /// Number of elements (LLEN).
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0) as usize
    }

    /// True when the list has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The nodes and their element counts.
    pub fn nodes(&self) -> impl DoubleEndedIterator<Item = (&Node, usize)> {
        self.nodes.iter().enumerate().map(|(i, n)| {
            let start = if i == 0 { 0 } else { self.ends[i - 1] };
            (n, (self.ends[i] - start) as usize)
        })
    }

    /// The element at `index` (0-based from the head), if any.
    pub fn get(&self, index: usize) -> Option<Vec<u8>> {
        let i = self.ends.partition_point(|&e| e <= index as u64);
        let node = self.nodes.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        node.items().into_iter().nth(index - start as usize)
    }

    /// Elements `start..=stop` (0-based, inclusive, already clamped by the caller to the list).
    pub fn range(&self, start: usize, stop: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if start > stop || start >= self.len() {
            return out;
        }
        let first = self.ends.partition_point(|&e| e <= start as u64);
        for i in first..self.nodes.len() {
            let node_start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
            if node_start > stop {
                break;
            }
            for (k, item) in self.nodes[i].items().into_iter().enumerate() {
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
        self.nodes
            .iter()
            .map(|n| match n {
                Node::Listpack(b) => longest(encoded::listpack(b)),
                Node::Ziplist(b) => longest(encoded::ziplist(b)),
                Node::Plain(b) => b.len(),
            })
            .max()
            .unwrap_or(0)
    }

    /// The encoding the snapshot stored the list in.
    pub fn encoding(&self) -> &'static str {
        self.encoding
    }

    /// Heap bytes held by the value (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.iter().map(Node::bytes).sum::<usize>()
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.ends.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoded::test_blobs::{items, listpack_strs, ziplist};

    #[test]
    fn nodes_index_and_range() {
        let mut l = List::new("quicklist");
        let (n, c) = Node::listpack(listpack_strs(&[b"a", b"1", b"b"])).unwrap();
        l.push_node(n, c);
        l.push_node(Node::Plain(b"big".to_vec().into()), 1);
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
}
