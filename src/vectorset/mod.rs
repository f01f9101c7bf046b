//! Redis 8 vector sets (the built-in `vectorset` module, module type `vectorset`, encoding
//! version 0), decoded as Redis 8.0.2's `VectorSetRdbLoad` reads them
//! (`modules/vector-sets/vset.c` and `hnsw.c` of the 8.0.2 source).
//!
//! The module value is a sequence of `RedisModule_Save*` fields: the vector dimension, the
//! element count, `quant | M << 8` (quantization 0 = fp32 `NOQUANT`, 1 = int8 `Q8`, 2 = binary
//! `BIN`; M 0 means 16), save flags (bit 0: a `REDUCE` projection matrix follows as its input
//! dimension and `input × dim` little-endian f32s; bit 1: every element carries an attribute
//! string, empty for none), then per element, in the server's node-list order: its name, its
//! attribute (with flag bit 1), its stored vector (`dim` f32s, `dim` i8s or `⌈dim/64⌉` u64
//! words) and its HNSW parameters: node id, level, per level `num_links`, `max_links` and the
//! linked node ids, and last one word holding the f32 L2 norm (low half) and the f32 int8
//! quantization range (high half).
//!
//! Loading re-creates what the server's loader builds: each loaded node is pushed at the head
//! of the node list (so the server's list runs in reverse file order, which search ties,
//! `TRUTH` scans and `VRANDMEMBER` walks follow), the entry point is the first node of the
//! file at the greatest level, and `hnsw-max-node-uid` is the greatest id. Every count is
//! bounded by the fields actually present, so a corrupt value fails with an offset, never a
//! large allocation.

pub mod expr;
pub mod hnsw;

use std::collections::HashMap;

use crate::probabilistic::{FieldError, Fields};

/// The module type name as TYPE replies it.
pub const TYPE_NAME: [u8; 9] = *b"vectorset";

/// The encoding version Redis 8.0.2 writes and the only one it loads.
pub const ENCVER: u32 = 0;

/// How the vectors are stored (`quant-type` of VINFO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quant {
    /// `NOQUANT`: 32-bit floats, normalized (VINFO `f32`).
    F32,
    /// `Q8` (the default): signed bytes scaled by a per-vector range (VINFO `int8`).
    Q8,
    /// `BIN`: one sign bit per component (VINFO `bin`).
    Bin,
}

impl Quant {
    /// The name VINFO and `VEMB … RAW` reply (`f32`, `int8`, `bin`).
    pub fn name(self) -> &'static str {
        match self {
            Quant::F32 => "f32",
            Quant::Q8 => "int8",
            Quant::Bin => "bin",
        }
    }

    /// Bytes of one stored vector of `dim` components (hnsw.c `hnsw_quants_bytes`).
    pub fn bytes(self, dim: u32) -> u64 {
        match self {
            Quant::F32 => dim as u64 * 4,
            Quant::Q8 => dim as u64,
            Quant::Bin => (dim as u64).div_ceil(64) * 8,
        }
    }
}

/// The stored vectors of every node, flat, node `i` at `i * stride`.
#[derive(Debug, Clone, PartialEq)]
pub enum Vectors {
    /// fp32 components (normalized).
    F32(Vec<f32>),
    /// int8 components.
    Q8(Vec<i8>),
    /// Sign bits, 64 per word, component `j` at bit `j % 64` of word `j / 64`.
    Bin(Vec<u64>),
}

/// One HNSW level of a node: its links (node indexes) and the capacity the server allocated.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Allocated link slots (`max_links`: 2M on level 0, M above, more after a rare growth).
    pub max_links: u32,
    /// Linked nodes, as indexes into [`VectorSet::nodes`], in stored order.
    pub links: Vec<u32>,
}

/// One element: its name, attribute, HNSW id, norms and levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The element (member) name.
    pub item: Vec<u8>,
    /// Its JSON attribute string (VSETATTR / `SETATTR`), if any.
    pub attrib: Option<Vec<u8>>,
    /// The HNSW node id (unique within the set).
    pub id: u64,
    /// The L2 norm of the vector as added (VEMB multiplies it back).
    pub l2: f32,
    /// int8 quantization range (the largest absolute normalized component); 0 otherwise.
    pub range: f32,
    /// Levels 0 ..= level.
    pub layers: Vec<Layer>,
}

/// A `REDUCE` random projection: `dim × input` f32 matrix, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// Dimension of the vectors given to VADD/VSIM (`projection-input-dim`).
    pub input_dim: u32,
    /// The matrix, `dim` rows of `input_dim` values.
    pub matrix: Vec<f32>,
}

/// A loaded vector set.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSet {
    /// Vector dimension (after projection).
    pub dim: u32,
    /// Quantization.
    pub quant: Quant,
    /// HNSW M.
    pub m: u32,
    /// The projection of `REDUCE`, if any.
    pub projection: Option<Projection>,
    /// Nodes in file order; the server's node list runs from the last to the first.
    pub nodes: Vec<Node>,
    /// Stored vectors.
    pub vectors: Vectors,
    /// Node index of the entry point (meaningless when empty).
    pub entry: u32,
    /// The greatest level.
    pub max_level: u32,
    /// The greatest node id (`hnsw-max-node-uid`).
    pub last_id: u64,
    /// Absolute offset of the value in its input: the order in which a server loading the
    /// file numbers its vector sets (`vset-uid`).
    pub load_pos: u64,
    by_name: HashMap<Vec<u8>, u32>,
}

impl VectorSet {
    /// Number of elements (VCARD).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the set holds no element (a server never saves one).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node index of element `name`.
    pub fn find(&self, name: &[u8]) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// Elements carrying an attribute (`attributes-count`).
    pub fn attributes(&self) -> u64 {
        self.nodes.iter().filter(|n| n.attrib.is_some()).count() as u64
    }

    /// Node indexes in the server's node-list order (head first: the reverse of the file).
    pub fn list_order(&self) -> impl DoubleEndedIterator<Item = u32> + ExactSizeIterator {
        (0..self.nodes.len() as u32).rev()
    }

    /// The stored vector of node `i` as bytes, as `VEMB … RAW` replies it.
    pub fn raw_vector(&self, i: u32) -> Vec<u8> {
        let i = i as usize;
        match &self.vectors {
            Vectors::F32(v) => {
                let d = self.dim as usize;
                v[i * d..(i + 1) * d]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            }
            Vectors::Q8(v) => {
                let d = self.dim as usize;
                v[i * d..(i + 1) * d].iter().map(|&x| x as u8).collect()
            }
            Vectors::Bin(v) => {
                let w = (self.dim as usize).div_ceil(64);
                v[i * w..(i + 1) * w]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            }
        }
    }

    /// The approximate original vector of node `i` (hnsw.c `hnsw_get_node_vector`:
    /// dequantized, then multiplied by the L2 norm except for binary sets).
    pub fn node_vector(&self, i: u32) -> Vec<f32> {
        let i = i as usize;
        let d = self.dim as usize;
        let node = &self.nodes[i];
        let mut out: Vec<f32> = match &self.vectors {
            Vectors::F32(v) => v[i * d..(i + 1) * d].to_vec(),
            Vectors::Q8(v) => v[i * d..(i + 1) * d]
                .iter()
                .map(|&q| (q as f32 * node.range) / 127.0)
                .collect(),
            Vectors::Bin(v) => {
                let w = d.div_ceil(64);
                let words = &v[i * w..(i + 1) * w];
                (0..d)
                    .map(|j| {
                        if words[j / 64] & (1u64 << (j % 64)) != 0 {
                            1.0
                        } else {
                            -1.0
                        }
                    })
                    .collect()
            }
        };
        if self.quant != Quant::Bin {
            for x in &mut out {
                *x *= node.l2;
            }
        }
        out
    }

    /// Decodes the fields of a `vectorset` value of encoding version 0, as
    /// `VectorSetRdbLoad` of Redis 8.0.2 reads them. Errors name the field at fault; where
    /// the server would fail the load (a bad quantization, a vector of the wrong size, a link
    /// to no node) or would write out of bounds (more links than slots), so does this.
    pub fn decode(mut f: Fields<'_>) -> Result<VectorSet, FieldError> {
        // The loader stores these into uint32_t: the high bits are dropped.
        let dim = f.unsigned("dimension")? as u32;
        let elements = f.unsigned("element count")?;
        let config = f.unsigned("HNSW configuration")? as u32;
        let quant = match config & 0xff {
            0 => Quant::F32,
            1 => Quant::Q8,
            2 => Quant::Bin,
            q => return Err(f.err(format!("has unknown quantization type {q}"))),
        };
        let m = match (config >> 8) & 0xffff {
            0 => 16,
            m => m.min(4096),
        };
        let flags = f.unsigned("save flags")? as u32;
        let projection = if flags & 1 != 0 {
            let input_dim = f.unsigned("projection input dimension")? as u32;
            let want = input_dim as u64 * dim as u64 * 4;
            let blob = f.buffer("projection matrix")?;
            if blob.len() as u64 != want {
                return Err(f.err(format!(
                    "projection matrix: {} bytes where {input_dim} x {dim} floats need {want}",
                    blob.len()
                )));
            }
            Some(Projection {
                input_dim,
                matrix: blob
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect(),
            })
        } else {
            None
        };
        let has_attribs = flags & 2 != 0;
        let per = if has_attribs { 4 } else { 3 };
        if elements > (f.remaining() / per) as u64 {
            return Err(f.err(format!(
                "claims {elements} elements, more than its {} remaining fields hold",
                f.remaining()
            )));
        }
        let n = elements as usize;
        let vbytes = quant.bytes(dim) as usize;
        let mut nodes = Vec::with_capacity(n);
        let mut vectors = match quant {
            Quant::F32 => Vectors::F32(Vec::with_capacity(n * dim as usize)),
            Quant::Q8 => Vectors::Q8(Vec::with_capacity(n * dim as usize)),
            Quant::Bin => Vectors::Bin(Vec::with_capacity(n * vbytes / 8)),
        };
        let mut by_name = HashMap::with_capacity(n);
        let mut raw_links: Vec<Vec<Vec<u64>>> = Vec::with_capacity(n);
        for e in 0..n {
            let item_err = f.err("");
            let item = f.buffer("element")?.to_vec();
            let attrib = if has_attribs {
                let a = f.buffer("attribute")?;
                (!a.is_empty()).then(|| a.to_vec())
            } else {
                None
            };
            let vector = f.buffer("vector")?;
            if vector.len() != vbytes {
                return Err(f.err(format!(
                    "element {e}: a vector of {} bytes where dimension {dim} needs {vbytes}",
                    vector.len()
                )));
            }
            let count = f.unsigned("parameter count")? as u32 as usize;
            if count > f.remaining() {
                return Err(f.err(format!(
                    "element {e}: claims {count} parameters, more than the {} fields left",
                    f.remaining()
                )));
            }
            let params_err = f.err("");
            let mut params = Vec::with_capacity(count);
            for _ in 0..count {
                params.push(f.unsigned("node parameter")?);
            }
            let bad = |m: String| FieldError {
                at: params_err.at,
                message: format!("vector set element {e} parameters {m}"),
            };
            if count < 2 {
                return Err(bad(format!("are {count}, fewer than id and level")));
            }
            let id = params[0];
            let level = params[1] as u32;
            let mut idx = 2usize;
            let mut layers = Vec::new();
            let mut links = Vec::new();
            for l in 0..=level as u64 {
                if idx + 2 > count {
                    return Err(bad(format!("end within level {l} of {level}")));
                }
                let num = params[idx] as u32;
                let max = params[idx + 1] as u32;
                idx += 2;
                let default_max = if l == 0 { m * 2 } else { m };
                if num > max.max(default_max) {
                    return Err(bad(format!(
                        "give level {l} {num} links, more than its {} slots",
                        max.max(default_max)
                    )));
                }
                if idx + num as usize > count {
                    return Err(bad(format!("end within the links of level {l}")));
                }
                links.push(params[idx..idx + num as usize].to_vec());
                idx += num as usize;
                layers.push(Layer {
                    max_links: max.max(default_max),
                    links: Vec::new(),
                });
            }
            if idx >= count {
                return Err(bad("lack the L2 and range word".to_string()));
            }
            let word = params[idx];
            let l2 = f32::from_bits(word as u32);
            let range = f32::from_bits((word >> 32) as u32);
            if by_name.insert(item.clone(), e as u32).is_some() {
                return Err(FieldError {
                    at: item_err.at,
                    message: format!(
                        "vector set element {:?} appears twice",
                        String::from_utf8_lossy(&item)
                    ),
                });
            }
            match &mut vectors {
                Vectors::F32(v) => v.extend(
                    vector
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))),
                ),
                Vectors::Q8(v) => v.extend(vector.iter().map(|&b| b as i8)),
                Vectors::Bin(v) => v.extend(
                    vector
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
                ),
            }
            raw_links.push(links);
            nodes.push(Node {
                item,
                attrib,
                id,
                l2,
                range,
                layers,
            });
        }
        let end_at = params_err_at(&f);
        f.finish()?;
        // Resolve links by id, as hnsw_deserialize_index does.
        let mut by_id: HashMap<u64, u32> = HashMap::with_capacity(n);
        for (i, node) in nodes.iter().enumerate() {
            if by_id.insert(node.id, i as u32).is_some() {
                return Err(FieldError {
                    at: end_at,
                    message: format!("vector set node id {} appears twice", node.id),
                });
            }
        }
        for (node, levels) in nodes.iter_mut().zip(raw_links) {
            for (layer, ids) in node.layers.iter_mut().zip(levels) {
                layer.links = ids
                    .iter()
                    .map(|id| {
                        by_id.get(id).copied().ok_or_else(|| FieldError {
                            at: end_at,
                            message: format!(
                                "vector set node {} links to node id {id}, which is not in the set",
                                node.id
                            ),
                        })
                    })
                    .collect::<Result<_, _>>()?;
            }
        }
        let mut entry = 0u32;
        let mut max_level = 0u32;
        let mut last_id = 0u64;
        for (i, node) in nodes.iter().enumerate() {
            let level = node.layers.len() as u32 - 1;
            if i == 0 || level > max_level {
                max_level = level;
                entry = i as u32;
            }
            last_id = last_id.max(node.id);
        }
        Ok(VectorSet {
            dim,
            quant,
            m,
            projection,
            nodes,
            vectors,
            entry,
            max_level,
            last_id,
            load_pos: 0,
            by_name,
        })
    }

    /// The bytes `MEMORY USAGE` adds for this value: Redis 8.0.2's `VectorSetMemUsage`
    /// (vset.c), which estimates from structure sizes (x86-64: vsetObject 112, HNSW 1,672,
    /// hnswNode 312, hnswNodeLayer 24 bytes), the first node's level-0 link capacity, the
    /// allocation sizes of the first 20 elements' names and attributes (`string_alloc`: the
    /// allocator's size of a name or attribute string object, as `RedisModule_MallocSizeString`
    /// reports it) and 16 bytes per element for the dictionary.
    pub fn mem_usage(&self, string_alloc: &dyn Fn(&[u8]) -> u64) -> u64 {
        const VSET_OBJECT: u64 = 112;
        const HNSW: u64 = 1672;
        const NODE: u64 = 312;
        const LAYER: u64 = 24;
        let n = self.nodes.len() as u64;
        let mut size = VSET_OBJECT + HNSW;
        if let Some(p) = &self.projection {
            size += 4 * p.input_dim as u64 * self.dim as u64;
        }
        let Some(head) = self.list_order().next() else {
            return size;
        };
        size += NODE * n;
        size += self.quant.bytes(self.dim) * n;
        size += LAYER * n * 4 / 3;
        let level0 = self.nodes[head as usize].layers[0].max_links as u64;
        size += 8 * level0 * n;
        size += (8 * (level0 / 2) * n) / 3;
        let (mut items, mut items_size, mut attrs, mut attrs_size) = (0u64, 0u64, 0u64, 0u64);
        for i in self.list_order().take(20) {
            let node = &self.nodes[i as usize];
            items_size += string_alloc(&node.item);
            items += 1;
            if let Some(a) = &node.attrib {
                attrs_size += string_alloc(a);
                attrs += 1;
            }
        }
        if let Some(avg) = items_size.checked_div(items) {
            size += avg * n;
        }
        if attrs == 0 {
            attrs = 1;
            attrs_size = 64;
        }
        size += attrs_size / attrs * self.attributes();
        size += n * 16;
        size
    }
}

fn params_err_at(f: &Fields<'_>) -> usize {
    f.err("").at
}
