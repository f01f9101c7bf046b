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

use std::collections::{BTreeMap, HashMap};

use crate::module_fields::{FieldError, Fields, StringKind};

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
    /// How the name was stored (decides the string object the server loads it into).
    pub item_kind: StringKind,
    /// How the attribute was stored.
    pub attrib_kind: StringKind,
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
    /// Element name to node index. Ordered (not hashed): the names come from the file, so
    /// no crafted set of names can degrade its lookups, and the value prints the same
    /// however it was decoded (a hash map's order is its random seed's).
    by_name: BTreeMap<Vec<u8>, u32>,
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
        let mut by_name = BTreeMap::new();
        let mut raw_links: Vec<Vec<Vec<u64>>> = Vec::with_capacity(n);
        for e in 0..n {
            let item_err = f.err("");
            let item = f.buffer("element")?.to_vec();
            let item_kind = f.last_kind();
            let (attrib, attrib_kind) = if has_attribs {
                let a = f.buffer("attribute")?;
                ((!a.is_empty()).then(|| a.to_vec()), f.last_kind())
            } else {
                (None, StringKind::Plain)
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
                item_kind,
                attrib_kind,
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

    /// The bytes `MEMORY USAGE` reports for this value: Redis 8.0.2's `VectorSetMemUsage`
    /// (vset.c), which estimates from structure sizes (x86-64: vsetObject 112, HNSW 1,672,
    /// hnswNode 312, hnswNodeLayer 24 bytes), the level-0 link capacity of the node-list head,
    /// the string objects of the first 20 elements' names and attributes (averaged over those
    /// and multiplied out) and 16 bytes per element for the dictionary. `usable` is the
    /// allocator's size of an allocation of n bytes (`zmalloc_size`), which the strings'
    /// `RedisModule_MallocSizeString` counts.
    pub fn mem_usage(&self, usable: &dyn Fn(u64) -> u64) -> u64 {
        let string_alloc =
            |s: &[u8], kind: StringKind| module_string_bytes(s.len() as u64, kind, usable);
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
            items_size += string_alloc(&node.item, node.item_kind);
            items += 1;
            if let Some(a) = &node.attrib {
                attrs_size += string_alloc(a, node.attrib_kind);
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

/// `RedisModule_MallocSizeString` of a string of `len` bytes loaded by
/// `RedisModule_LoadString` (Redis 8.0.2 rdb.c `rdbGenericLoadStringObject` with
/// `RDB_LOAD_NONE`): a plain string up to 44 bytes, or an integer-encoded one (its digits,
/// through `createStringObject`), is an embedded object (robj, sdshdr8, the bytes and a NUL in
/// one allocation); a longer plain one and an LZF one are a 16-byte robj plus an sds (header
/// 1 byte below 32 bytes, 3 below 256, 5 below 65,536, else 9).
pub fn module_string_bytes(len: u64, kind: StringKind, usable: &dyn Fn(u64) -> u64) -> u64 {
    const ROBJ: u64 = 16;
    let hdr = match len {
        0..=31 => 1,
        32..=255 => 3,
        256..=65535 => 5,
        _ => 9,
    };
    match kind {
        StringKind::Plain | StringKind::Int if len <= 44 => usable(ROBJ + 3 + len + 1),
        StringKind::Plain | StringKind::Int | StringKind::Lzf => ROBJ + usable(hdr + len + 1),
    }
}

fn params_err_at(f: &Fields<'_>) -> usize {
    f.err("").at
}

#[cfg(test)]
mod tests {
    use crate::command::execute_as;
    use crate::dialect::{REDIS_7_4, REDIS_8_0};
    use crate::keyspace::Keyspace;
    use crate::rdb::load_dump;
    use crate::reply::Reply;

    /// `DUMP t` from Redis 8.0.2 (Debian 13) after
    /// `VADD t REDUCE 3 VALUES 4 1 0 0 0.5 a SETATTR {"n":1}`, `… 0 1 0 0.5 b`,
    /// `… 0 0 1 -2 c SETATTR {"n":3,"s":"x"}`, `… 1 1 1 1 d` (int8; the projection matrix is
    /// LZF-compressed in the payload).
    const DUMP_T: &str = "0781bde72da2bb1eb400020302040250010203020405c31630040000003f00e0090300bfa013c0074023200b0100bf050164050005037f00000208020402000203022002010202020302813f80000040000000050163050f7b226e223a332c2273223a2278227d0503d67f2a020f0203020302030220020102020204020102100201020002100200021002813f678f8a3fd44395050162050005037f812a020b020202010203022002010203020402010210020102813f3030f83f8b7c1a05016105077b226e223a317d05037f2a2a020c0201020102030220020202030204020202100202020302813f678f8a3f544395000c00bbc6d83f555cc1e5";

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn bulk(s: &str) -> Reply {
        Reply::Bulk(s.as_bytes().to_vec())
    }

    fn keyspace() -> Keyspace {
        let mut ks = Keyspace::new();
        ks.set(b"t", load_dump(&hex(DUMP_T)).expect("the server's payload"));
        ks
    }

    #[test]
    fn answers_as_the_server_did() {
        let mut ks = keyspace();
        let mut run = |a: &[&str]| execute_as(&mut ks, &REDIS_8_0, a);
        // The replies Redis 8.0.2 gave for this set (doubles as it printed them).
        assert_eq!(run(&["VCARD", "t"]), Reply::Integer(4));
        assert_eq!(run(&["VDIM", "t"]), Reply::Integer(3));
        assert_eq!(run(&["TYPE", "t"]), Reply::Status("vectorset".into()));
        assert_eq!(run(&["OBJECT", "ENCODING", "t"]), bulk("raw"));
        assert_eq!(
            run(&["VEMB", "t", "c"]),
            Reply::Array(vec![
                bulk("-0.4960629940032959"),
                bulk("1.5"),
                bulk("0.4960629940032959")
            ])
        );
        assert_eq!(
            run(&["VEMB", "t", "c", "RAW"]),
            Reply::Array(vec![
                Reply::Status("int8".into()),
                Reply::Bulk(vec![0xd6, 0x7f, b'*']),
                bulk("1.658312439918518"),
                bulk("0.9045339822769165")
            ])
        );
        assert_eq!(
            run(&["VLINKS", "t", "a", "WITHSCORES"]),
            Reply::Array(vec![
                Reply::Array(vec![
                    bulk("b"),
                    bulk("0.7423745393753052"),
                    bulk("c"),
                    bulk("0.5447415113449097")
                ]),
                Reply::Array(vec![
                    bulk("b"),
                    bulk("0.7423745393753052"),
                    bulk("c"),
                    bulk("0.5447415113449097"),
                    bulk("d"),
                    bulk("0.9522669911384583")
                ]),
            ])
        );
        assert_eq!(
            run(&["VSIM", "t", "VALUES", "4", "1", "0", "0", "0", "WITHSCORES"]),
            Reply::Array(
                ["a", "0.9338234066963196", "d", "0.7886751294136047"]
                    .into_iter()
                    .chain(["c", "0.7611164748668671", "b", "0.5657051503658295"])
                    .map(bulk)
                    .collect()
            )
        );
        assert_eq!(
            run(&["VSIM", "t", "ELE", "b", "FILTER", ".n > 1", "WITHSCORES"]),
            Reply::Array(vec![bulk("c"), bulk("0.1196744441986084")])
        );
        assert_eq!(run(&["VGETATTR", "t", "c"]), bulk(r#"{"n":3,"s":"x"}"#));
        // The server answered this payload's set with vset-uid 1 (its second set since
        // start-up); a server loading it as the only set numbers it 0.
        let info = run(&["VINFO", "t"]);
        let Reply::Array(items) = info else {
            panic!("{info:?}")
        };
        let ints: Vec<i64> = items
            .iter()
            .filter_map(|r| match r {
                Reply::Integer(i) => Some(*i),
                _ => None,
            })
            .collect();
        assert_eq!(ints, vec![16, 3, 4, 4, 3, 2, 0, 4]);
        // Before Redis 8.0 the commands do not exist.
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_4, &["VCARD", "t"]),
            Reply::err("ERR unknown command 'VCARD', with args beginning with: 't' ")
        );
    }

    /// WITHATTRIBS and EPSILON by profile: Redis 8.0.2 (recorded: a syntax error; EPSILON
    /// bounds the distance) and Redis 8.2+ (the published vset.c: attributes after the
    /// scores, nil without one; EPSILON bounds half the distance).
    #[test]
    fn withattribs_and_epsilon_by_profile() {
        use crate::dialect::REDIS_8_2;
        let mut ks = keyspace();
        let q = ["VSIM", "t", "VALUES", "4", "1", "0", "0", "0"];
        let with = |extra: &[&'static str]| -> Vec<&'static str> {
            q.iter().copied().chain(extra.iter().copied()).collect()
        };
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_0, &with(&["WITHATTRIBS"])),
            Reply::err("ERR syntax error in VSIM command")
        );
        let a = r#"{"n":1}"#;
        let c = r#"{"n":3,"s":"x"}"#;
        let both = execute_as(&mut ks, &REDIS_8_2, &with(&["WITHSCORES", "WITHATTRIBS"]));
        assert_eq!(
            both,
            Reply::Array(vec![
                bulk("a"),
                bulk("0.9338234066963196"),
                bulk(a),
                bulk("d"),
                bulk("0.7886751294136047"),
                Reply::NullBulk,
                bulk("c"),
                bulk("0.7611164748668671"),
                bulk(c),
                bulk("b"),
                bulk("0.5657051503658295"),
                Reply::NullBulk,
            ])
        );
        let argv: Vec<Vec<u8>> = with(&["WITHSCORES", "WITHATTRIBS"])
            .iter()
            .map(|a| a.as_bytes().to_vec())
            .collect();
        let resp3 = String::from_utf8(crate::resp3::to_resp3(&argv, &both)).unwrap();
        assert!(
            resp3.starts_with("%4\r\n$1\r\na\r\n*2\r\n,0.9338234066963196\r\n$7\r\n{\"n\":1}\r\n$1\r\nd\r\n*2\r\n,0.7886751294136047\r\n_\r\n"),
            "{resp3}"
        );
        let only = execute_as(&mut ks, &REDIS_8_2, &with(&["WITHATTRIBS", "COUNT", "2"]));
        assert_eq!(
            only,
            Reply::Array(vec![bulk("a"), bulk(a), bulk("d"), Reply::NullBulk])
        );
        // Distances a 0.132, d 0.423, c 0.478, b 0.869: EPSILON 0.3 keeps a on 8.0, and a, d,
        // c (half distances 0.066, 0.211, 0.239) on 8.2.
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_0, &with(&["EPSILON", "0.3"])),
            Reply::Array(vec![bulk("a")])
        );
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_2, &with(&["EPSILON", "0.3"])),
            Reply::Array(vec![bulk("a"), bulk("d"), bulk("c")])
        );
    }

    #[test]
    fn corrupt_payloads_are_typed_errors() {
        let good = hex(DUMP_T);
        let body = good.len() - 10; // version + CRC-64
                                    // Every truncation of the value body (with a valid trailer) fails cleanly.
        for cut in 1..body {
            let mut p = good[..cut].to_vec();
            p.extend_from_slice(&good[body..body + 2]);
            let crc = crate::rdb::crc64(&p);
            p.extend_from_slice(&crc.to_le_bytes());
            assert!(load_dump(&p).is_err(), "cut at {cut}");
        }
        // Every single-byte change either loads or fails, never panics; loaded values
        // answer every command.
        for i in 0..body {
            for x in [0x00u8, 0x01, 0x7f, 0x80, 0xc3, 0xff] {
                let mut p = good[..body + 2].to_vec();
                p[i] = x;
                let crc = crate::rdb::crc64(&p);
                p.extend_from_slice(&crc.to_le_bytes());
                if let Ok(v) = load_dump(&p) {
                    let mut ks = Keyspace::new();
                    ks.set(b"t", v);
                    for c in [
                        &["VINFO", "t"][..],
                        &["VSIM", "t", "ELE", "a", "TRUTH"],
                        &[
                            "VSIM", "t", "VALUES", "4", "1", "2", "3", "4", "FILTER", ".n",
                        ],
                        &["VLINKS", "t", "d", "WITHSCORES"],
                        &["VRANDMEMBER", "t", "-5"],
                        &["VEMB", "t", "b"],
                    ] {
                        let _ = execute_as(&mut ks, &REDIS_8_0, c);
                    }
                }
            }
        }
    }

    #[test]
    fn a_claimed_count_is_bounded_by_the_input() {
        use crate::module_fields::{Field, Fields};
        let items: Vec<(usize, Field)> = [3u64, u64::MAX, 1, 0]
            .iter()
            .enumerate()
            .map(|(i, &v)| (i * 2, Field::Unsigned(v)))
            .collect();
        let e = super::VectorSet::decode(Fields::new(&items, 8, "vector set")).unwrap_err();
        assert_eq!(e.at, 8);
        assert!(
            e.message.contains("claims 18446744073709551615 elements"),
            "{}",
            e.message
        );
    }
}
