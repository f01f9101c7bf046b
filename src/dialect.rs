//! Server profiles: which server's dialect (commands, options, number formats, error texts,
//! argument-parsing order, load-time encodings) the command layer reproduces. Handlers consult
//! the [`Profile`] in their [`crate::command::Ctx`] instead of hard-wiring a version: every
//! difference below is one field of [`Profile`], and [`PROFILES`] is the one table of values.
//!
//! Where each difference comes from. "rec" = a reply recorded from the real server on this
//! machine (Redis 6.0.9, 6.2.14, 7.0.15, Valkey 8.1.8, 9.1.2; see the differential tests in
//! `crates/difftest/tests/dialect_diff.rs`); "src" = the server's source at the named tag
//! (github.com/redis/redis, github.com/valkey-io/valkey), for lines that cannot run here;
//! "issue" = the list in issue 14 (from Redis 8.x sources newer than the mirror available here,
//! not re-verified line by line).
//!
//! | field | values | source |
//! |---|---|---|
//! | `commands_of` + `COMMANDS_SINCE` (GEOSEARCH, ZMSCORE 6.2; EXPIRETIME, PEXPIRETIME 7.0; ...) | per release | rec 6.0.9 unknown GEOSEARCH/ZMSCORE, 6.2.14 unknown EXPIRETIME, 7.0.15 answers |
//! | `bit_unit` (BITCOUNT/BITPOS `BIT`) | from 7.0 | rec 6.2.14 syntax error, 7.0.15 counts |
//! | `bitop_extended` (DIFF, DIFF1, ANDOR, ONE) | Redis 8.2+ | redis/redis#13898 (in 8.2); rec 7.0.15, Valkey 8.1.8/9.1.2 syntax error |
//! | `vsim_withattribs` (VSIM `WITHATTRIBS`; EPSILON against half the distance) | Redis 8.2+ | src: redis/redis modules/vector-sets/vset.c at 011555cf (VSIM_execute: RESP2 item, score, attribute or nil; RESP3 a map, item → [score, attribute] with both; `distance / 2 > epsilon` ends the reply); 8.2 is the first release the client libraries support WITHATTRIBS for (redis/lettuce#3449); rec Debian's 8.0.2 `ERR syntax error in VSIM command` and `distance > epsilon`. Not run against a server |
//! | `field_expiry` (HTTL, HPTTL, ...) | Redis 7.4+, Valkey 9 | rec Valkey 8.1.8 unknown, 9.1.2 `-1`; src 7.4.1 t_hash.c |
//! | `geosearch_bypolygon` | Valkey 9 | rec Valkey 9.1.2 answers BYPOLYGON (`crates/difftest/tests/geo_polygon_diff.rs`), 7.4.1 and Valkey 8.1.8 syntax error |
//! | `geo_hex_doubles` (GEO coordinates, radii, sizes in `0x` hex) | all but Valkey 9 | rec Valkey 9.1.2 `ERR value is not a valid float` / `need numeric radius` for `0x10`, Valkey 8.1.8 accepts it |
//! | `zrank_withscore` | 7.2+, Valkey | rec 7.0.15 arity error, Valkey 8.1.8 `0 1.618`; src 7.2.0 t_zset.c zrankGenericCommand |
//! | `hscan_novalues` | 7.4+, Valkey 8+ | rec 7.0.15 syntax error, Valkey 8.1.8 answers; src 7.4.1 db.c scanGenericCommand |
//! | `score_format` | `%.17g` to 7.0; shortest from 7.2 and Valkey | rec 7.0.15 `1.6180000000000001`, Valkey 8.1.8 `1.618`; src 7.2.0 util.c d2string + fpconv_dtoa |
//! | `coord_format` | `%.17Lf` trimmed to 7.4; shortest from Redis 8.0 | rec all five servers; redis/redis#13494 (8.0: addReplyDouble in geoposCommand/georadiusGeneric, with 8.0 vs 7.4 output) |
//! | `dist_format` | `%.4f` on 6.x; fixed-point from 7.0 | src 6.2.14 geo.c addReplyDoubleDistance snprintf, 7.0.15 fixedpoint_d2string |
//! | `unknown_command` | backticks on 6.x, quotes from 7.0 | rec 6.0.9/6.2.14 vs 7.0.15; src 6.2.14 server.c processCommand |
//! | `frommember_missing` | Valkey 9 `ERR member X does not exist` | rec Valkey 9.1.2 vs 8.1.8 |
//! | `shape_error` (GEOSEARCH without a shape) | Valkey 9 names BYPOLYGON | rec Valkey 9.1.2 vs 7.0.15 |
//! | `geo_store_with_error` (STORE / GEOSEARCHSTORE with WITH*) | 6.x: one text naming GEORADIUS and `WITHCOORDS`, GEOSEARCHSTORE too; from 7.0 the command's own name and `WITHCOORD` | rec 6.0.9 / 6.2.14 vs 7.0.15 (`GEORADIUS … STOREDIST d WITHCOORD`, `GEOSEARCHSTORE … WITHHASH`, tests/dialect_diff.rs) |
//! | `bit_args` | key looked up before arguments up to 7.2 and Valkey 7.2; parsed first from 7.4 and Valkey 8 | rec 7.0.15 `BITCOUNT missing 0 x` = 0, Valkey 8.1.8 error; src redis 45d331069 / 1407ac1f3 (in 7.4-rc1), valkey 8.0.0 |
//! | `bitcount_start_only` | Valkey 8.0+ | rec 8.1.8/9.1.2 `BITCOUNT k 2` counts; src valkey 96dcd1183 (8.0.0) |
//! | `bitcount_unit_before_end` | Valkey 8+ parses BITCOUNT's unit before its end | src valkey 8.0.1 bitops.c bitcountCommand |
//! | `bitfield_hash_overflow` | Redis 8.10 rejects `#N` whose product overflows | redis/redis#15433 (getBitOffsetFromArgument: `#N` with N > LLONG_MAX / bits refused); rec 7.0.15, Valkey 9.1.2 wrap |
//! | `scan_unknown_type_error` | Valkey 8.0+; not Redis (8.0 included) | rec Valkey 8.1.8; src valkey 8.0.1 db.c; rec Redis 8.0.2 (Debian 13) `SCAN 0 TYPE nosuch` = empty (Redis 7.2.0/7.4.1 db.c have it commented out "uncomment in redis 8.0"; 8.0.2 did not; 8.2+ not recorded, kept as 8.0) |
//! | `select_not_integer`, `select_long_index` | 6.0 `ERR invalid DB index` on a `long` | rec 6.0.9 vs 6.2.14 (`ERR value is not an integer or out of range`); src 6.0.9 / 6.2.14 db.c selectCommand |
//! | `scan_cursor_strict` | `string2ull` from 7.4 and Valkey 8 (`SCAN -1`: `ERR invalid cursor`) | rec 7.4.1, Valkey 8.1.8 vs 7.0.15; src 7.4.1 / valkey 8.0.1 db.c parseScanCursorOrReply |
//! | `zrange_by` (BYSCORE/BYLEX/REV/LIMIT) | from 6.2 | rec 6.0.9 syntax / not-integer errors |
//! | `geo_any`, `geo_lookup_first` (GEORADIUS*_RO) | ANY from 6.2; 6.0 answers a missing key before parsing | src 6.0.9 / 6.2.14 geo.c georadiusGeneric |
//! | `object_unknown_subcommand` | 6.x long form | rec 6.0.9/6.2.14 vs 7.0.15 |
//! | `listpack_names` (OBJECT ENCODING) | `ziplist` on 6.x, `listpack` from 7.0 (converted on load) | rec `OBJECT ENCODING` of a small zset/hash |
//! | `embstr` | value ≤ 44 bytes; Valkey 8.1.3+: key + value + key header ≤ 42; Valkey 8.1.0–8.1.2: the loader's two steps (key embedded, then the expiry) with a fixed 3-byte key header in the size check and the build's size classes; Valkey 9: ≤ 114 | rec after DEBUG RELOAD (load path) on each server (Valkey 8.1.1: Debian 13's jemalloc build, key lengths 5–48 × values 1–45, with and without TTL); src valkey 8.0.1 object.c (44); valkey-io/valkey#2087 (the key header's real size in the check, merged 2025-05-14) |
//! | `first_patch` | Valkey 8.1.0–8.1.2 (`valkey-8.1.0`) vs 8.1.3+ (`valkey-8.1`) | rec MEMORY USAGE / OBJECT ENCODING on Valkey 8.1.1 (Debian 13) vs 8.1.8 (PyPI); valkey-io/valkey#2290 (objectComputeSize counts the object's allocation, merged 2025-07-01, before 8.1.3's release on 2025-07-07: the patch it first shipped in is inferred from those dates, not read from a tag) |
//! | `load` ([`LoadRules`]: what each stored RDB type becomes at load) | 6.x ziplists kept, pushes by the ziplist overhead rule, converted hashes grow from empty; 7.0 ziplists and zipmaps become listpacks, every list a `quicklist`; 7.2+, Valkey: a list of one packed node ≤ 8 KiB (RDB types 1, 14, 18, not 10) is a `listpack`, small string sets are listpacks, elements over 8 KiB are plain nodes | src rdb.c rdbLoadObject, quicklist.c `_quicklistNodeAllowInsert`, t_hash.c / t_set.c conversions at 6.0.9, 6.2.14, 7.0.15, 7.4.1; rec `crates/difftest/tests/memory_diff.rs` (OBJECT ENCODING and MEMORY USAGE of old encodings on all six servers) |
//! | `hash_ex_encoding` | small hash with field TTLs: `listpackex` (Redis 7.4), `hashtable` (Valkey 9) | rec `hash:fe` on 7.4.1 / 9.1.2 |
//! | `lpos_rank_zero` | 6.x short text, 7.0+ adds "or use negative ..." | rec LPOS RANK 0 on 6.0.9/6.2.14 vs 7.0.15 |
//! | `stream_v7_fields` | XINFO STREAM/GROUPS 7.0 fields | rec XINFO STREAM on 6.2.14 vs 7.0.15 |
//! | `stream_exclusive_ranges` | `(id` bounds from 6.2 | rec 6.0.9 XRANGE `(5-1` invalid id |
//! | `sinter_stops_at_missing` | 6.0: empty at the first missing key | rec 6.0.9 SINTER missing str:plain |
//! | `field_expiry_args` | HTTL & co: Redis 7.4 named errors, HEXPIRETIME rounded up; Valkey 9 `syntax error`, rounded to nearest (new-user trial: 1796220601749 ms → 1796220602) | rec HTTL/HEXPIRETIME on 7.4.1 vs 9.1.2 |
//! | `xinfo_bare_syntax_error` | 6.0 `XINFO STREAM` without key: `ERR syntax error, try 'XINFO HELP'` | rec 6.0.9 vs 6.2.14 |
//! | `zrange_negative_offset_from_end` | LIMIT -n on a skiplist: empty on 7.0 and older, from the range's end on 7.4 and Valkey 8 (7.2 assumed as 7.4) | rec geo_diff on 7.0.15; types_diff on 7.4.1 / Valkey 8.1.8 |
//! | `probabilistic_builtin` | BF/CF/CMS/TOPK/TDIGEST built in from Redis 8.0; before, and on Valkey, only with RedisBloom loaded (a snapshot holding its values) | Redis 8.0 release notes (probabilistic data structures in Redis Open Source); rec `redis-7.4.1-bloom` |
//! | `geo_unit_error` | 6.x `please use m, km, ft, mi`; 7.0+ upper case | new-user trial: GEODIST on 6.2.14 vs 7.4.1 / Valkey 9.1.2 |
//! | `lpos_rank_min_rejected` | RANK i64::MIN: acts as -1 on 6.2/7.0, out of range 7.2+ | new-user trial on 6.2.14; types_diff on 7.0.15 / 7.4.1 |
//! | `zscan_noscores` | ZSCAN NOSCORES on Valkey 9 only | new-user trial: Valkey 9.1.2 members only; 7.4.1 syntax error |
//! | `hll_sparse_max_bytes` | 3000 everywhere (default `hll-sparse-max-bytes`) | src redis.conf of every version |
//! | `stream_counts_checked` | Valkey 9 refuses at load a stream whose length is not its live entries (the `trim` key of HDT3213/rdb's stream_listpacks_1.rdb) or whose node counts disagree with its flags; Redis 6.0–7.4 and Valkey 8.1 load both | rec `crates/difftest/tests/streams_diff.rs` streams_length_mismatch_all_servers; 9.1.2 log "Stream length inconsistent with the number of valid entries" |
//! | `stream_lag` | XINFO GROUPS lag: Valkey 8.1+ count a deletion before the first entry as a tombstone (nil where Redis answers); Redis 8.0: an emptied stream lags 0, a group and the largest deletion before the first entry lag the length (src 8.0.2 t_stream.c `streamReplyWithCGLag`) | rec 7.4.1 vs Valkey 8.1.8 / 9.1.2 on the same states (streams_diff seeds 25, 42; a group at 0-1 after XTRIM+XDEL: Redis 5, Valkey nil); valkey-io/valkey#1952 |
//! | `stream_consumer_active_time` | consumers' `active-time` (XINFO STREAM FULL) and `inactive` (XINFO CONSUMERS) from 7.2, Valkey too | rec `bitlens resp`'s resp_diff on 7.0.15 vs 7.4.1 / Valkey 8.1.1 |
//! | `function_pre_ga` | RDB_OPCODE_FUNCTION_PRE_GA read by 7.0, refused from 7.2 and by Valkey | rec `crates/difftest/tests/function_pre_ga_diff.rs` (7.0.15 loads; 7.4.1, Valkey 8.1.8 / 9.1.2 exit); src 7.2.0 rdb.c |
//! | `zset_listpack_integer_scores` | a `-0` score of a small skiplist record (RDB_TYPE_ZSET/_2) reads `0` from 7.0 and on Valkey (the loader's listpack stores it as integer 0), `-0` on 6.x | rec `crates/difftest/tests/score_format_diff.rs` on all six servers; src 6.2.14 / 7.0.15 t_zset.c zzlInsertAt |
//! | `zsetop_numkeys_error` | ZUNION/ZINTER/ZDIFF numkeys 0: 6.2 `for zunion`, 7.0+ `for 'zunion' command` | src 6.2.14 / 7.0.15 t_zset.c zunionInterDiffGenericCommand (`c->cmd->name` vs `'%s' command` of `fullname`) |
//! | `sort_fast_float` | SORT's numeric weights read by fast_float: Redis 8.0+, Valkey 9 (` 2`, `0x1p3` refused; C `strtod` before) | rec `crates/difftest/tests/reads_diff.rs` SORT_RO BY weights on 8.0.2 / Valkey 9.1.2 vs 7.4.1 / Valkey 8.1.8; src redis af7fca797 (sort.c `fast_float_strtod`) |
//! | `sort_empty_weight_error` | SORT BY a weight key holding an empty string: Valkey 9 refuses it (`One or more scores can't be converted into double`), Redis 8.0.2 and older read 0 | rec reads_diff seed sweep (seeds 13300371709787841613, 6065333794185703657 ...: Valkey 9.1.2 only) |
//! | `xpending_idle` | XPENDING IDLE (and 6 to 9 arguments) from 6.2; 6.0: 3, 6 or 7 arguments | src 6.0.9 / 6.2.14 t_stream.c xpendingCommand |
//! | `xread_unbalanced`, `xread_plus` | odd STREAMS list: `Unbalanced XREAD` to 7.0, `Unbalanced 'xread'` from 7.2; `+` (last entry) from Redis 7.4, Valkey 8 (8.0 assumed as 8.1); Redis 8.0 names `'+'` in the text | src 7.0.15 / 7.4.1 t_stream.c xreadCommand; redis a8e745117 (#13117, in 7.4); rec reads_diff on 8.0.2 (text), Valkey 8.1.1 / 8.1.8 (`+` read) |
//! | `load_skips_empty_keys` | an empty set, list, sorted set or hash record (any encoding) is skipped at load from 6.2 and on Valkey ("empty keys skipped"); 6.0 loads it as a key | rec `crates/difftest/tests/rdb_writer.rs` on all six servers (new-user trial: helper-20's empty set record) |
//!
//! Profiles of servers that cannot run here (Redis 7.2, 7.4, 8.x; Valkey 7.2, 8.0) take the
//! values their source gives, or the nearest recorded neighbour where a difference is not
//! known to exist.

/// The server family of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Redis (6.0 to 8.x).
    Redis,
    /// Valkey (7.2 on).
    Valkey,
}

/// How sorted-set scores (and other doubles replied as bulk strings) are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreFormat {
    /// C `%.17g` (Redis up to 7.0).
    G17,
    /// fpconv's Grisu2 digits (the shortest that read back, sometimes one more;
    /// [`crate::fpconv`]), laid out as Redis 7.2's `d2string` (integers up to 2^62 plainly,
    /// otherwise fpconv's plain/decimal/scientific rules).
    Shortest,
}

/// How GEOPOS / WITHCOORD coordinates are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordFormat {
    /// `%.17Lf` with trailing zeros and point removed (Redis up to 7.4, Valkey).
    Fixed17Trimmed,
    /// The shortest round-trip form, as scores (Redis 8.0+).
    Shortest,
}

/// How distances (GEODIST, WITHDIST) are printed, always 4 decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistFormat {
    /// C `%.4f` of the double (Redis 6.x).
    Printf4,
    /// The value times 10^4 rounded to an integer, then 4 fixed decimals (Redis 7.0+
    /// `fixedpoint_d2string`).
    FixedPoint4,
}

/// How the unknown-command error quotes the name and arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    /// ``ERR unknown command `X`, with args beginning with: `a`, `` (Redis 6.x).
    Backticks,
    /// `ERR unknown command 'X', with args beginning with: 'a' ` (Redis 7.0+, Valkey).
    Quotes,
}

/// When BITCOUNT / BITPOS look the key up relative to parsing their arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitArgs {
    /// Key first: a missing key answers 0 (BITPOS: 0 or -1) whatever the arguments.
    LookupFirst,
    /// Arguments first: bad arguments are an error even on a missing key.
    ParseFirst,
}

/// The error of GEOSEARCH FROMMEMBER (and GEORADIUSBYMEMBER) naming a missing member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberMissing {
    /// `ERR could not decode requested zset member`.
    CouldNotDecode,
    /// `ERR member <name> does not exist` (Valkey 9).
    DoesNotExist,
}

/// How XINFO GROUPS tells a consumer group's lag from the stream's metadata
/// ([`crate::stream::Stream::group_lag`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamLag {
    /// Redis 7.0+ (t_stream.c `streamReplyWithCGLag`, `streamRangeHasTombstones`,
    /// `streamEstimateDistanceFromFirstEverEntry`): a largest deleted id before the first entry
    /// is no tombstone.
    Redis,
    /// Valkey 8.1+ (after valkey-io/valkey#1952): any deletion at or after the group's last
    /// id is a tombstone, even one trimmed away; a group before the first entry is estimated
    /// only at `0-0` or at or after the largest deleted id.
    Valkey,
    /// Redis 8.0 (t_stream.c of the 8.0.2 release tarball, read from Debian's source
    /// package, and recorded on its build; 8.2+ kept as 8.0): an emptied stream lags 0; a
    /// group and the largest deletion both before the first entry lag the stream's length; a
    /// largest deletion before the first entry is a tombstone for a group before it; an id
    /// before the largest deletion cannot be estimated.
    Redis8,
}

/// When a string value loaded from a snapshot is reported `embstr` (otherwise `raw`; integers
/// that fit a `long long` are `int` everywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbstrRule {
    /// Value length at most N bytes.
    ValueLen(usize),
    /// Key length + value length + key header (1 byte below 32 key bytes, else 3) at most
    /// `max` (Valkey 8.1+ embeds the key in the object).
    KeyAndValue {
        /// The most bytes key, value and key header may take together.
        max: usize,
        /// A key's 3-byte header counts only when the key has an expiry, else 1 byte does
        /// (rec: a loaded Valkey 8.1.8 keeps key + value of 41 bytes embedded for keys of 10
        /// to 41 bytes without a TTL, but of 39 for keys of 32 bytes and more with one; 9.1.2
        /// counts the 3 bytes either way: a 32-byte key keeps 79 value bytes, a 31-byte 82).
        /// Measured on glibc builds. The loader embeds the key first and adds the expiry in
        /// place only when the allocation has 8 bytes to spare, else it rebuilds the object
        /// under a smaller limit (a review found key + value of 33 with a TTL under jemalloc
        /// preloaded into 8.1.8): with a TTL, a jemalloc build's OBJECT ENCODING near the
        /// limit is not modelled.
        long_header_only_with_ttl: bool,
    },
    /// Valkey 8.1.0–8.1.2's loader, step by step (object.c of the 8.1.1 release tarball,
    /// read from Debian's source package: `createStringObjectWithKeyAndExpire` counts
    /// `sdslen(key) + 3` for the key whatever its sds type): the value is read as
    /// `embstr` when it is at most 44 bytes, then the key is embedded, then the expiry set.
    /// Each re-creation embeds the value when `16 + key part + 8 (expiry) + value + 4 ≤
    /// limit`, the key part counted as `key + key_header` (the fixed 3 of 8.1.0–8.1.2, before
    /// valkey-io/valkey#2087). An object created without its expiry reserves room for one
    /// when its allocation's size class has 8 bytes to spare; the expiry is then set in
    /// place, else the object is re-created with it (and the check counts the 8 bytes).
    KeyThenExpire {
        /// The most bytes an embedded object may take (64).
        limit: usize,
        /// The key header the size check counts (3), whatever the key's real sds type.
        key_header: usize,
        /// The allocator's spacing of size classes up to 128 bytes, which decides whether a
        /// key-only object has room for the expiry: 16 for the jemalloc Debian links (the
        /// only 8.1.0–8.1.2 build recorded: Debian 13's valkey 8.1.1).
        quantum: usize,
    },
}

/// One server profile (a server family and release line): every behaviour bitlens
/// reproduces that differs between servers. See the module table for the source of each.
#[derive(Debug, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name as `--compat` takes it, e.g. `redis-7.0`.
    pub name: &'static str,
    /// Redis or Valkey.
    pub family: Family,
    /// Release line (major, minor).
    pub version: (u16, u16),
    /// The first patch release of the line this profile stands for: 0, except where a line
    /// changed within its patch releases (Valkey 8.1: `valkey-8.1.0` is 8.1.0–8.1.2,
    /// `valkey-8.1` is 8.1.3 on). [`Profile::for_version`] compares (major, minor, patch).
    pub first_patch: u16,
    /// BITCOUNT / BITPOS take a `BYTE|BIT` unit.
    pub bit_unit: bool,
    /// BITOP DIFF, DIFF1, ANDOR and ONE exist.
    pub bitop_extended: bool,
    /// VSIM takes `WITHATTRIBS`, and its `EPSILON` bounds half the cosine distance (the
    /// similarity's complement) rather than the distance (see the module's table).
    pub vsim_withattribs: bool,
    /// Hash field expiry commands (HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME, ...) exist.
    pub field_expiry: bool,
    /// GEOSEARCH takes BYPOLYGON.
    pub geosearch_bypolygon: bool,
    /// GEO double arguments (coordinates, radius, box sizes, polygon vertices) may be written
    /// in C `strtod`'s `0x` hexadecimal form (false: Valkey 9 rejects them).
    pub geo_hex_doubles: bool,
    /// ZRANK / ZREVRANK take WITHSCORE.
    pub zrank_withscore: bool,
    /// HSCAN takes NOVALUES.
    pub hscan_novalues: bool,
    /// Score format.
    pub score_format: ScoreFormat,
    /// Coordinate format.
    pub coord_format: CoordFormat,
    /// Distance format.
    pub dist_format: DistFormat,
    /// Unknown-command error quoting.
    pub unknown_command: Quoting,
    /// GEOSEARCH FROMMEMBER on a missing member.
    pub frommember_missing: MemberMissing,
    /// GEOSEARCH with neither BYRADIUS nor BYBOX (nor BYPOLYGON): the error text, with `{}`
    /// standing for the command name as typed.
    pub shape_error: &'static str,
    /// GEORADIUS' STORE / STOREDIST, or GEOSEARCHSTORE, with WITHDIST / WITHHASH / WITHCOORD:
    /// the error text, where a `{}` stands for `GEOSEARCHSTORE` or `STORE option in GEORADIUS`.
    pub geo_store_with_error: &'static str,
    /// BITCOUNT / BITPOS argument-parsing order.
    pub bit_args: BitArgs,
    /// `BITCOUNT key start` (no end) counts to the end of the string instead of a syntax error.
    pub bitcount_start_only: bool,
    /// BITCOUNT with a unit parses the unit before the end index (Valkey 8+).
    pub bitcount_unit_before_end: bool,
    /// BITFIELD rejects a `#N` offset whose `N * bits` overflows (instead of wrapping).
    pub bitfield_hash_overflow: bool,
    /// SCAN TYPE with an unknown type name is `ERR unknown type name '<t>'` (else matches nothing).
    pub scan_unknown_type_error: bool,
    /// SELECT's error for a non-integer index.
    pub select_not_integer: &'static str,
    /// SELECT takes any `long` index (6.0: a huge one is out of range, not "not an integer");
    /// else an `int`.
    pub select_long_index: bool,
    /// SCAN parses its cursor as `string2ull` (7.4+, Valkey 8+: a negative or empty cursor is
    /// `ERR invalid cursor`); else as `strtoul` (a `-` wraps, the empty string is 0).
    pub scan_cursor_strict: bool,
    /// ZRANGE takes BYSCORE, BYLEX, REV and LIMIT (6.2+); else only WITHSCORES.
    pub zrange_by: bool,
    /// GEORADIUS*_RO take ANY (6.2+).
    pub geo_any: bool,
    /// GEORADIUS*_RO answer an empty array for a missing key before parsing anything (6.0);
    /// else the arguments are checked first.
    pub geo_lookup_first: bool,
    /// The Redis release whose command set this server has, for [`COMMANDS_SINCE`]
    /// (Valkey: 7.2).
    pub commands_of: (u16, u16),
    /// OBJECT's error for an unknown subcommand, `{}` standing for the subcommand.
    pub object_unknown_subcommand: &'static str,
    /// The error of a subcommand given the wrong number of arguments, `{}` standing for
    /// `command|subcommand`; `None`: the unknown-subcommand text (6.x).
    pub subcommand_arity_error: Option<&'static str>,
    /// OBJECT ENCODING names compact encodings `listpack` (else `ziplist`).
    pub listpack_names: bool,
    /// When strings are `embstr`.
    pub embstr: EmbstrRule,
    /// `hll-sparse-max-bytes`: a sparse HyperLogLog growing past it turns dense.
    pub hll_sparse_max_bytes: usize,
    /// `zset-max-listpack-entries` / `zset-max-listpack-value` (defaults).
    pub zset_max_listpack: (usize, usize),
    /// What the loader turns each stored RDB type into, and the thresholds it applies there.
    pub load: LoadRules,
    /// OBJECT ENCODING of a small hash with field expiry: `listpackex` on Redis 7.4+,
    /// `hashtable` on Valkey 9 (which keeps such hashes as hash tables).
    pub hash_ex_encoding: &'static str,
    /// LPOS `RANK 0` error text (6.x ends after "from the second, ...").
    pub lpos_rank_zero: &'static str,
    /// XINFO STREAM / GROUPS carry the 7.0 fields (max-deleted-entry-id, entries-added,
    /// recorded-first-entry-id; entries-read, lag).
    pub stream_v7_fields: bool,
    /// XRANGE / XREVRANGE take exclusive `(id` bounds (6.2+).
    pub stream_exclusive_ranges: bool,
    /// SINTER answers an empty array at the first missing key, before type-checking the keys
    /// after it (6.0).
    pub sinter_stops_at_missing: bool,
    /// How HTTL/HPTTL/HEXPIRETIME/HPEXPIRETIME read `FIELDS numfields` and round seconds.
    pub field_expiry_args: FieldExpiryArgs,
    /// XINFO with a subcommand but no key answers `ERR syntax error, try 'XINFO HELP'` (6.0).
    pub xinfo_bare_syntax_error: bool,
    /// ZRANGE ... LIMIT with a negative offset on a skiplist-encoded sorted set counts back from
    /// the end of the range (else: an empty reply).
    pub zrange_negative_offset_from_end: bool,
    /// The probabilistic types (BF.*, CF.*, CMS.*, TOPK.*, TDIGEST.*) are built in (Redis 8.0+);
    /// elsewhere their commands exist only when the snapshot holds the module's values.
    pub probabilistic_builtin: bool,
    /// The GEO unknown-unit error (6.x lower-case unit names).
    pub geo_unit_error: &'static str,
    /// LPOS refuses `RANK -9223372036854775808` (7.2+; before, it acts as -1).
    pub lpos_rank_min_rejected: bool,
    /// ZSCAN takes NOSCORES (Valkey 9).
    pub zscan_noscores: bool,
    /// A sorted-set listpack holds integral scores as integers (7.0+, Valkey), so a `-0`
    /// score of a skiplist record converted to a listpack at load reads back `0`
    /// ([`crate::zset::ZSet::loaded_score`]); Redis 6.x stores `-0` as text.
    pub zset_listpack_integer_scores: bool,
    /// The loader refuses a stream whose recorded length is not its live entries, or whose
    /// node counts disagree with the entry flags (Valkey 9; [`crate::stream::Stream::check_counts`]).
    pub stream_counts_checked: bool,
    /// How XINFO GROUPS computes a group's lag.
    pub stream_lag: StreamLag,
    /// Consumers carry an active time: XINFO STREAM FULL's `active-time` and XINFO
    /// CONSUMERS' `inactive` (Redis 7.2+, Valkey).
    pub stream_consumer_active_time: bool,
    /// The loader reads the function record of Redis 7.0's release candidates
    /// (RDB_OPCODE_FUNCTION_PRE_GA); 7.2+ and Valkey refuse it ("Pre-release function format
    /// not supported").
    pub function_pre_ga: bool,
    /// The loader skips a key whose set, list, sorted set or hash holds nothing ("empty keys
    /// skipped": Redis 6.2+, Valkey); Redis 6.0 loads it as an empty key of its type
    /// ([`crate::session::Session::new`] drops such keys for these profiles).
    pub load_skips_empty_keys: bool,
    /// ZUNION / ZINTER / ZDIFF / ZINTERCARD with numkeys below 1, `{}` standing for the
    /// command's lower-case name (6.2 unquoted, 7.0+ `'name' command`).
    pub zsetop_numkeys_error: &'static str,
    /// SORT reads numeric weights with fast_float (no leading spaces, `+` or hex forms;
    /// overflow accepted as ±inf) instead of C `strtod` (Redis 8.0+, Valkey 9).
    pub sort_fast_float: bool,
    /// SORT refuses an empty weight as not a number (Valkey 9); elsewhere it reads 0.
    pub sort_empty_weight_error: bool,
    /// XPENDING takes `IDLE min-idle-time` and up to 9 arguments (6.2+); 6.0 takes exactly
    /// 3, 6 or 7.
    pub xpending_idle: bool,
    /// XREAD's error for an odd STREAMS list (7.2+ names the command `'xread'`).
    pub xread_unbalanced: &'static str,
    /// XREAD takes `+` for the stream's last entry (Redis 7.4+).
    pub xread_plus: bool,
}

/// The argument errors and second rounding of the hash field-expiry reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldExpiryArgs {
    /// Redis 7.4: named errors ("Mandatory argument FIELDS ...", "Number of fields must be a
    /// positive integer", "The `numfields` parameter must match ..."); seconds rounded up.
    Redis,
    /// Valkey 9: `ERR syntax error` for a missing FIELDS, a non-positive or mismatched count,
    /// the integer error for a non-integer count; HEXPIRETIME seconds rounded to nearest.
    Valkey,
}

/// How the loader's quicklist decides that one more element fits the tail node when it
/// pushes a list element by element (RDB_TYPE_LIST, RDB_TYPE_LIST_ZIPLIST), with
/// `list-max-listpack-size` -2 (8 KiB nodes): the node's bytes plus the element's length plus
/// an overhead estimate must stay within 8192.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListPush {
    /// Redis 6.x (ziplists): overhead 1 or 5 (previous-entry length) plus 1, 2 or 5
    /// (encoding) by the element's length.
    ZiplistOverhead,
    /// Redis 7.0 (listpacks): overhead 8; every element packed.
    Estimate8,
    /// Redis 7.2+, Valkey: overhead 8; an element over 8192 bytes is a plain node of its own.
    Estimate8Plain,
}

/// What a server's snapshot loader (`rdbLoadObject`) turns each stored RDB type into, with the
/// size thresholds it applies there (the built-in defaults of the `*-max-*` settings). The
/// loader is not the write path: blob types (ziplists, listpacks, intsets) are converted by
/// their element count only, element-by-element types (RDB_TYPE_HASH, RDB_TYPE_SET, zipmaps)
/// by count and element length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadRules {
    /// `hash-max-listpack-entries` / `-value` (`hash-max-ziplist-*` before 7.0).
    pub hash_max: (usize, usize),
    /// `set-max-intset-entries`.
    pub set_max_intset_entries: usize,
    /// `set-max-listpack-entries` / `-value` (7.2+); `None`: sets of strings are hash tables.
    pub set_max_listpack: Option<(usize, usize)>,
    /// Bytes of one list node (`list-max-listpack-size` -2).
    pub list_node_bytes: usize,
    /// How elements pushed one by one are packed into nodes.
    pub list_push: ListPush,
    /// Ziplist blobs (RDB types 10, 12, 13, 14) and zipmaps (9) become listpacks (7.0+);
    /// else ziplists are kept and zipmaps become ziplists.
    pub ziplist_to_listpack: bool,
    /// A list loaded as one packed node of at most [`Self::list_node_bytes`] becomes a plain
    /// `listpack` (7.2+: RDB types 1, 14 and 18 go through `listTypeTryConversion`; type 10
    /// does not and stays a `quicklist`).
    pub list_one_node_listpack: bool,
    /// A hash the loader converts to a hash table is first sized for the fields it has so
    /// far (`dictExpand` in `hashTypeConvert`, 7.0+); else the table grows from empty (6.x).
    pub hash_convert_presized: bool,
    /// A compact sorted set converted to a skiplist at load gets a dict sized for its members
    /// (`zsetConvertAndExpand`, 7.2+); else the dict grows from empty (`zsetConvert`).
    pub zset_convert_presized: bool,
    /// The hash table of sets, hashes and sorted sets (and of the keyspace).
    pub table: TableKind,
}

/// The hash table a server keeps sets, hashes, sorted sets and its keyspace in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    /// Redis' `dict` (and Valkey's before 8.1): one pointer per bucket, a power of two of at
    /// least 4 buckets, grown when it holds as many entries as buckets, each entry in its
    /// own `dictEntry`.
    Dict,
    /// Valkey 8.1+'s `hashtable`: 64-byte buckets of 7 entry pointers, `2^ceil(log2(ceil(5n
    /// / 32)))` buckets when sized for `n`, grown when an insert finds every slot taken; an
    /// overfull bucket chains to a child bucket.
    Hashtable,
}

/// Redis 6.0 / 6.2 loader.
pub const LOAD_6: LoadRules = LoadRules {
    hash_max: (512, 64),
    set_max_intset_entries: 512,
    set_max_listpack: None,
    list_node_bytes: 8192,
    list_push: ListPush::ZiplistOverhead,
    ziplist_to_listpack: false,
    list_one_node_listpack: false,
    hash_convert_presized: false,
    zset_convert_presized: false,
    table: TableKind::Dict,
};

/// Redis 7.0 loader.
pub const LOAD_7_0: LoadRules = LoadRules {
    list_push: ListPush::Estimate8,
    ziplist_to_listpack: true,
    hash_convert_presized: true,
    ..LOAD_6
};

/// Redis 7.2+ and Valkey 7.2 / 8.0 loader.
pub const LOAD_7_2: LoadRules = LoadRules {
    set_max_listpack: Some((128, 64)),
    list_push: ListPush::Estimate8Plain,
    list_one_node_listpack: true,
    zset_convert_presized: true,
    ..LOAD_7_0
};

/// Valkey 8.1+ loader: its own `hashtable` ([`TableKind::Hashtable`]).
pub const LOAD_VALKEY_8_1: LoadRules = LoadRules {
    table: TableKind::Hashtable,
    ..LOAD_7_2
};

const SHAPE_ERROR: &str = "ERR exactly one of BYRADIUS and BYBOX can be specified for {}";
const SHAPE_ERROR_VALKEY_9: &str =
    "ERR exactly one of BYRADIUS, BYBOX and BYPOLYGON can be specified for {}";
const SELECT_NOT_INTEGER: &str = "ERR value is not an integer or out of range";
const XREAD_UNBALANCED_7_2: &str =
    "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.";
const OBJECT_UNKNOWN: &str = "ERR unknown subcommand '{}'. Try OBJECT HELP.";

/// Redis 7.0, the base the other profiles are written against.
const BASE: Profile = Profile {
    name: "redis-7.0",
    family: Family::Redis,
    version: (7, 0),
    first_patch: 0,
    bit_unit: true,
    bitop_extended: false,
    vsim_withattribs: false,
    field_expiry: false,
    geosearch_bypolygon: false,
    geo_hex_doubles: true,
    zrank_withscore: false,
    hscan_novalues: false,
    score_format: ScoreFormat::G17,
    coord_format: CoordFormat::Fixed17Trimmed,
    dist_format: DistFormat::FixedPoint4,
    unknown_command: Quoting::Quotes,
    frommember_missing: MemberMissing::CouldNotDecode,
    shape_error: SHAPE_ERROR,
    geo_store_with_error: "ERR {} is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
    bit_args: BitArgs::LookupFirst,
    bitcount_start_only: false,
    bitcount_unit_before_end: false,
    bitfield_hash_overflow: false,
    scan_unknown_type_error: false,
    select_not_integer: SELECT_NOT_INTEGER,
    select_long_index: false,
    scan_cursor_strict: false,
    zrange_by: true,
    geo_any: true,
    geo_lookup_first: false,
    commands_of: (7, 0),
    object_unknown_subcommand: OBJECT_UNKNOWN,
    subcommand_arity_error: Some("ERR wrong number of arguments for '{}' command"),
    listpack_names: true,
    embstr: EmbstrRule::ValueLen(44),
    hll_sparse_max_bytes: 3000,
    zset_max_listpack: (128, 64),
    load: LOAD_7_0,
    hash_ex_encoding: "listpackex",
    lpos_rank_zero: "ERR RANK can't be zero: use 1 to start from the first match, 2 from the \
                     second ... or use negative to start from the end of the list",
    stream_v7_fields: true,
    stream_exclusive_ranges: true,
    sinter_stops_at_missing: false,
    field_expiry_args: FieldExpiryArgs::Redis,
    xinfo_bare_syntax_error: false,
    zrange_negative_offset_from_end: false,
    probabilistic_builtin: false,
    geo_unit_error: "ERR unsupported unit provided. please use M, KM, FT, MI",
    lpos_rank_min_rejected: false,
    zscan_noscores: false,
    zset_listpack_integer_scores: true,
    stream_counts_checked: false,
    stream_lag: StreamLag::Redis,
    stream_consumer_active_time: false,
    function_pre_ga: true,
    load_skips_empty_keys: true,
    zsetop_numkeys_error: "ERR at least 1 input key is needed for '{}' command",
    sort_fast_float: false,
    sort_empty_weight_error: false,
    xpending_idle: true,
    xread_unbalanced: "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' \
                       must be specified.",
    xread_plus: false,
};

/// Redis 6.0.
pub const REDIS_6_0: Profile = Profile {
    name: "redis-6.0",
    version: (6, 0),
    select_not_integer: "ERR invalid DB index",
    select_long_index: true,
    xpending_idle: false,
    zrange_by: false,
    stream_exclusive_ranges: false,
    sinter_stops_at_missing: true,
    xinfo_bare_syntax_error: true,
    geo_any: false,
    geo_lookup_first: true,
    commands_of: (6, 0),
    load_skips_empty_keys: false,
    ..REDIS_6_2
};
/// Redis 6.2.
pub const REDIS_6_2: Profile = Profile {
    name: "redis-6.2",
    version: (6, 2),
    bit_unit: false,
    dist_format: DistFormat::Printf4,
    unknown_command: Quoting::Backticks,
    commands_of: (6, 2),
    object_unknown_subcommand:
        "ERR Unknown subcommand or wrong number of arguments for '{}'. Try OBJECT HELP.",
    subcommand_arity_error: None,
    listpack_names: false,
    lpos_rank_zero:
        "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second, ...",
    stream_v7_fields: false,
    zset_listpack_integer_scores: false,
    geo_unit_error: "ERR unsupported unit provided. please use m, km, ft, mi",
    geo_store_with_error:
        "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORDS options",
    load: LOAD_6,
    zsetop_numkeys_error: "ERR at least 1 input key is needed for {}",
    ..BASE
};
/// Redis 7.0, the profile bitlens answered as before profiles existed.
pub const REDIS_7_0: Profile = BASE;
/// Redis 7.2.
pub const REDIS_7_2: Profile = Profile {
    name: "redis-7.2",
    version: (7, 2),
    score_format: ScoreFormat::Shortest,
    zrank_withscore: true,
    load: LOAD_7_2,
    zrange_negative_offset_from_end: true,
    lpos_rank_min_rejected: true,
    commands_of: (7, 2),
    function_pre_ga: false,
    stream_consumer_active_time: true,
    xread_unbalanced: XREAD_UNBALANCED_7_2,
    ..BASE
};
/// Redis 7.4.
pub const REDIS_7_4: Profile = Profile {
    name: "redis-7.4",
    version: (7, 4),
    field_expiry: true,
    hscan_novalues: true,
    bit_args: BitArgs::ParseFirst,
    scan_cursor_strict: true,
    commands_of: (7, 4),
    xread_plus: true,
    ..REDIS_7_2
};
/// Redis 8.0.
pub const REDIS_8_0: Profile = Profile {
    name: "redis-8.0",
    version: (8, 0),
    commands_of: (8, 0),
    coord_format: CoordFormat::Shortest,
    probabilistic_builtin: true,
    stream_lag: StreamLag::Redis8,
    sort_fast_float: true,
    xread_unbalanced: "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or \
                       '$' must be specified.",
    ..REDIS_7_4
};
/// Redis 8.2.
pub const REDIS_8_2: Profile = Profile {
    name: "redis-8.2",
    version: (8, 2),
    bitop_extended: true,
    vsim_withattribs: true,
    ..REDIS_8_0
};
/// Redis 8.4.
pub const REDIS_8_4: Profile = Profile {
    name: "redis-8.4",
    version: (8, 4),
    ..REDIS_8_2
};
/// Redis 8.6.
pub const REDIS_8_6: Profile = Profile {
    name: "redis-8.6",
    version: (8, 6),
    ..REDIS_8_4
};
/// Redis 8.8.
pub const REDIS_8_8: Profile = Profile {
    name: "redis-8.8",
    version: (8, 8),
    ..REDIS_8_6
};
/// Redis 8.10.
pub const REDIS_8_10: Profile = Profile {
    name: "redis-8.10",
    version: (8, 10),
    bitfield_hash_overflow: true,
    ..REDIS_8_8
};
/// Valkey 7.2 (Redis 7.2.4 renamed).
pub const VALKEY_7_2: Profile = Profile {
    name: "valkey-7.2",
    family: Family::Valkey,
    ..REDIS_7_2
};
/// Valkey 8.0.
pub const VALKEY_8_0: Profile = Profile {
    name: "valkey-8.0",
    version: (8, 0),
    hscan_novalues: true,
    bit_args: BitArgs::ParseFirst,
    bitcount_start_only: true,
    bitcount_unit_before_end: true,
    scan_unknown_type_error: true,
    scan_cursor_strict: true,
    xread_plus: true,
    ..VALKEY_7_2
};
/// Valkey 8.1.3 and later 8.1 releases (recorded: 8.1.8).
pub const VALKEY_8_1: Profile = Profile {
    name: "valkey-8.1",
    version: (8, 1),
    first_patch: 3,
    embstr: EmbstrRule::KeyAndValue {
        max: 42,
        long_header_only_with_ttl: true,
    },
    stream_lag: StreamLag::Valkey,
    load: LOAD_VALKEY_8_1,
    ..VALKEY_8_0
};
/// Valkey 8.1.0–8.1.2 (recorded: Debian 13's 8.1.1): 8.1's dialect, with the loader's
/// string embedding before valkey-io/valkey#2087 ([`EmbstrRule::KeyThenExpire`]); its memory
/// accounting differs too (`bitlens_views::memory`'s layout table).
pub const VALKEY_8_1_0: Profile = Profile {
    name: "valkey-8.1.0",
    first_patch: 0,
    embstr: EmbstrRule::KeyThenExpire {
        limit: 64,
        key_header: 3,
        quantum: 16,
    },
    ..VALKEY_8_1
};
/// Valkey 9.0.
pub const VALKEY_9_0: Profile = Profile {
    name: "valkey-9.0",
    version: (9, 0),
    first_patch: 0,
    field_expiry: true,
    geosearch_bypolygon: true,
    geo_hex_doubles: false,
    sort_fast_float: true,
    sort_empty_weight_error: true,
    frommember_missing: MemberMissing::DoesNotExist,
    shape_error: SHAPE_ERROR_VALKEY_9,
    embstr: EmbstrRule::KeyAndValue {
        max: 114,
        long_header_only_with_ttl: false,
    },
    hash_ex_encoding: "hashtable",
    field_expiry_args: FieldExpiryArgs::Valkey,
    zscan_noscores: true,
    stream_counts_checked: true,
    ..VALKEY_8_1
};

/// Read commands that appeared after Redis 6.0, with the Redis release that added them (from
/// each release's command table; rec: 6.0.9 answers GEOSEARCH/ZMSCORE with unknown command,
/// 6.2.14 EXPIRETIME).
pub const COMMANDS_SINCE: &[(&str, (u16, u16))] = &[
    ("geosearch", (6, 2)),
    ("geosearchstore", (6, 2)),
    ("zmscore", (6, 2)),
    ("smismember", (6, 2)),
    ("zrandmember", (6, 2)),
    ("zunion", (6, 2)),
    ("zinter", (6, 2)),
    ("zdiff", (6, 2)),
    ("hrandfield", (6, 2)),
    ("getex", (6, 2)),
    ("getdel", (6, 2)),
    ("expiretime", (7, 0)),
    ("pexpiretime", (7, 0)),
    ("sintercard", (7, 0)),
    ("zintercard", (7, 0)),
    ("lcs", (7, 0)),
    // The built-in `vectorset` module (Redis 8.0.2 vset.c RedisModule_OnLoad).
    ("vadd", (8, 0)),
    ("vrem", (8, 0)),
    ("vsim", (8, 0)),
    ("vdim", (8, 0)),
    ("vcard", (8, 0)),
    ("vemb", (8, 0)),
    ("vlinks", (8, 0)),
    ("vinfo", (8, 0)),
    ("vsetattr", (8, 0)),
    ("vgetattr", (8, 0)),
    ("vrandmember", (8, 0)),
    ("vismember", (8, 0)),
    ("sort_ro", (7, 0)),
];

/// The hash field expiry commands (Redis 7.4, Valkey 9).
pub const FIELD_EXPIRY_COMMANDS: &[&str] = &[
    "httl",
    "hpttl",
    "hexpiretime",
    "hpexpiretime",
    "hpersist",
    "hexpire",
    "hpexpire",
    "hexpireat",
    "hpexpireat",
    "hgetex",
    "hsetex",
    "hgetdel",
];

/// Every profile, oldest first within each family.
pub static PROFILES: [&Profile; 16] = [
    &REDIS_6_0,
    &REDIS_6_2,
    &REDIS_7_0,
    &REDIS_7_2,
    &REDIS_7_4,
    &REDIS_8_0,
    &REDIS_8_2,
    &REDIS_8_4,
    &REDIS_8_6,
    &REDIS_8_8,
    &REDIS_8_10,
    &VALKEY_7_2,
    &VALKEY_8_0,
    &VALKEY_8_1_0,
    &VALKEY_8_1,
    &VALKEY_9_0,
];

/// Parses `"7.4.1"` (or `"7.4"`) into (major, minor).
fn major_minor(v: &str) -> Option<(u16, u16)> {
    let (major, minor, _) = major_minor_patch(v)?;
    Some((major, minor))
}

/// Parses `"7.4.1"` into (major, minor, patch); a missing minor or patch is 0, a patch with
/// a suffix (`"1-rc1"`) counts by its leading digits.
fn major_minor_patch(v: &str) -> Option<(u16, u16, u16)> {
    let mut it = v.trim().split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next().map_or(Some(0), |m| m.parse().ok())?;
    let patch = it.next().map_or(0, |p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap_or(0)
    });
    Some((major, minor, patch))
}

impl Profile {
    /// The profile used when nothing says which server wrote the data (Redis 7.0).
    pub fn default_profile() -> &'static Profile {
        &REDIS_7_0
    }

    /// The profile named `name` as `--compat` takes it (`redis-7.0`, `valkey-9.0`, ...),
    /// case-insensitively; any other version of a known major (`redis-7.4.1`, `valkey-9.1`)
    /// picks the newest release line not newer than it, as [`Profile::for_version`].
    pub fn from_name(name: &str) -> Option<&'static Profile> {
        let lower = name.to_ascii_lowercase();
        if let Some(p) = PROFILES.iter().find(|p| p.name == lower) {
            return Some(p);
        }
        let (family, ver) = if let Some(v) = lower.strip_prefix("redis-") {
            (Family::Redis, v)
        } else {
            (Family::Valkey, lower.strip_prefix("valkey-")?)
        };
        let mm = major_minor(ver)?;
        Self::for_version(family, ver).filter(|p| p.version <= mm && p.version.0 == mm.0)
    }

    /// Names of every profile, for help texts and errors.
    pub fn names() -> Vec<&'static str> {
        PROFILES.iter().map(|p| p.name).collect()
    }

    /// The profile of the server `family` at version `version` (`"7.4.1"`): the newest
    /// profile whose (major, minor, [`Profile::first_patch`]) is not newer than it (older
    /// than every line: the oldest). `"8.1.1"` of Valkey is `valkey-8.1.0`, `"8.1.8"`
    /// `valkey-8.1`.
    pub fn for_version(family: Family, version: &str) -> Option<&'static Profile> {
        let (major, minor, patch) = major_minor_patch(version)?;
        let mut line = PROFILES.iter().filter(|p| p.family == family);
        let first = *line.clone().next()?;
        Some(
            line.rfind(|p| (p.version.0, p.version.1, p.first_patch) <= (major, minor, patch))
                .copied()
                .unwrap_or(first),
        )
    }

    /// The profile of the server that wrote a snapshot: its `valkey-ver` aux field (Valkey 8+
    /// also writes `redis-ver` 7.2.4 for compatibility, so `valkey-ver` wins), else
    /// `redis-ver`, else the RDB version (see [`Profile::for_rdb_version`]).
    pub fn for_snapshot(aux: &[(Vec<u8>, Vec<u8>)], rdb_version: u32) -> &'static Profile {
        let field = |name: &[u8]| {
            aux.iter()
                .find(|(k, _)| k.as_slice() == name)
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        };
        if let Some(p) = field(b"valkey-ver").and_then(|v| Self::for_version(Family::Valkey, &v)) {
            return p;
        }
        if let Some(p) = field(b"redis-ver").and_then(|v| Self::for_version(Family::Redis, &v)) {
            return p;
        }
        Self::for_rdb_version(rdb_version)
    }

    /// The profile for a snapshot (or DUMP payload) that names no writer: the oldest server
    /// writing that RDB version (9: Redis 6.0–6.2; 10: 7.0; 11: 7.2; 12: 7.4–8.4; 13: 8.6;
    /// 14: 8.8; 15: 8.10; 80+: Valkey 9). Older versions answer as Redis 6.0.
    pub fn for_rdb_version(rdb_version: u32) -> &'static Profile {
        match rdb_version {
            0..=9 => &REDIS_6_0,
            10 => &REDIS_7_0,
            11 => &REDIS_7_2,
            12 => &REDIS_7_4,
            13 => &REDIS_8_6,
            14 => &REDIS_8_8,
            15..=79 => &REDIS_8_10,
            _ => &VALKEY_9_0,
        }
    }

    /// The server as a human reads it: `Redis 7.4`, `Valkey 9.0`.
    pub fn display_name(&self) -> String {
        let fam = match self.family {
            Family::Redis => "Redis",
            Family::Valkey => "Valkey",
        };
        let line = format!("{fam} {}.{}", self.version.0, self.version.1);
        // A line split by patch releases names the patches (`Valkey 8.1.0-8.1.2`, `8.1.3+`).
        let next = PROFILES.iter().find(|p| {
            p.family == self.family && p.version == self.version && p.first_patch > self.first_patch
        });
        match next {
            Some(n) => format!(
                "{line}.{}-{}.{}.{}",
                self.first_patch,
                self.version.0,
                self.version.1,
                n.first_patch - 1
            ),
            None if self.first_patch > 0 => format!("{line}.{}+", self.first_patch),
            None => line,
        }
    }
}

impl Profile {
    /// A sorted-set score as this server prints it in replies (ZSCORE, ZRANGE WITHSCORES, ...).
    pub fn format_score(&self, score: f64) -> String {
        match self.score_format {
            ScoreFormat::G17 => format_g17(score),
            ScoreFormat::Shortest => format_shortest(score),
        }
    }

    /// A GEOPOS / WITHCOORD coordinate (degrees) as this server prints it.
    pub fn format_coord(&self, degrees: f64) -> String {
        match self.coord_format {
            CoordFormat::Fixed17Trimmed => format_coord_fixed(degrees),
            CoordFormat::Shortest => format_shortest(degrees),
        }
    }

    /// A distance (in the requested unit) as this server prints it: 4 decimals.
    pub fn format_dist(&self, d: f64) -> String {
        match self.dist_format {
            DistFormat::Printf4 => format!("{d:.4}"),
            DistFormat::FixedPoint4 => format_dist_fixed(d),
        }
    }

    /// The unknown-command error for `argv` (name, then up to 128 bytes of arguments; CR and
    /// LF become spaces), quoted as this server does.
    pub fn unknown_command(&self, argv: &[Vec<u8>]) -> String {
        let (open, close) = match self.unknown_command {
            Quoting::Backticks => ('`', "`, "),
            Quoting::Quotes => ('\'', "' "),
        };
        let mut args = String::new();
        for a in &argv[1..] {
            if args.len() >= 128 {
                break;
            }
            let room = 128 - args.len();
            let a = String::from_utf8_lossy(&a[..a.len().min(room)]).into_owned();
            args.push(open);
            args.push_str(&a);
            args.push_str(close);
        }
        // 6.x prints the whole name; 7.0+ at most 128 bytes of it.
        let name = match self.unknown_command {
            Quoting::Backticks => &argv[0][..],
            Quoting::Quotes => &argv[0][..argv[0].len().min(128)],
        };
        let name = String::from_utf8_lossy(name);
        let text =
            format!("ERR unknown command {open}{name}{open}, with args beginning with: {args}");
        text.replace(['\r', '\n'], " ")
    }

    /// Whether a command named `name` (lower case) exists on this server: the hash field
    /// expiry commands by `field_expiry`, the others of [`COMMANDS_SINCE`] by `commands_of`;
    /// every other command exists everywhere.
    pub fn has_command(&self, name: &str) -> bool {
        if FIELD_EXPIRY_COMMANDS.contains(&name) {
            return self.field_expiry;
        }
        COMMANDS_SINCE
            .iter()
            .find(|(n, _)| *n == name)
            .is_none_or(|(_, since)| self.commands_of >= *since)
    }

    /// OBJECT ENCODING's name of a compact list/hash/zset encoding.
    pub fn compact_encoding(&self) -> &'static str {
        if self.listpack_names {
            "listpack"
        } else {
            "ziplist"
        }
    }

    /// Whether a string value of `value_len` bytes loaded under a key of `key_len` bytes,
    /// with an expiry or not, is `embstr` (else `raw`), as this server reports after loading
    /// a snapshot.
    pub fn is_embstr(&self, key_len: usize, value_len: usize, expiring: bool) -> bool {
        match self.embstr {
            EmbstrRule::ValueLen(n) => value_len <= n,
            EmbstrRule::KeyAndValue {
                max,
                long_header_only_with_ttl,
            } => {
                let hdr = if key_len < 32 || (long_header_only_with_ttl && !expiring) {
                    1
                } else {
                    3
                };
                key_len + value_len + hdr <= max
            }
            EmbstrRule::KeyThenExpire {
                limit,
                key_header,
                quantum,
            } => {
                if value_len > 44 {
                    return false;
                }
                let fits =
                    |expiry: usize| 16 + key_len + key_header + expiry + value_len + 4 <= limit;
                if !fits(0) {
                    return false;
                }
                if !expiring {
                    return true;
                }
                // The key-only object: robj, value sds (type 8), the key's size byte and sds.
                let key_sds = key_len + if key_len < 32 { 2 } else { 4 };
                let min = 16 + value_len + 4 + 1 + key_sds;
                let class = min.div_ceil(quantum) * quantum;
                class >= min + 8 || fits(8)
            }
        }
    }
}

/// Degrees as Redis up to 7.4 prints coordinates: `%.17Lf` with trailing zeros (and point)
/// removed; `-0` prints as `0`.
fn format_coord_fixed(x: f64) -> String {
    let s = format!("{x:.17}");
    let t = s.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" {
        "0".into()
    } else {
        t.to_string()
    }
}

/// A distance as Redis 7.0+ prints it: the value times 10^4 rounded to an integer (ties to
/// even, in double precision), printed with 4 fixed decimals. This differs from `%.4f` when
/// the scaled product rounds across a half (e.g. 17500510.56574999 → "17500510.5658").
fn format_dist_fixed(d: f64) -> String {
    let scaled = (d * 10000.0).round_ties_even();
    if !scaled.is_finite() || scaled.abs() >= 9.2e18 {
        return format!("{d:.4}");
    }
    let v = scaled as i64;
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{:04}", a / 10000, a % 10000)
}

/// A double as Redis up to 7.0 prints scores in RESP2 replies (ZSCORE, ZRANGE WITHSCORES), and
/// every server a skiplist's scores in ZSCAN:
/// C's `%.17g` (17 significant digits, trailing zeros trimmed, exponent form below 1e-4 and
/// from 1e17), and `inf` / `-inf`.
pub fn format_g17(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.is_nan() {
        return "nan".into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // 17 significant digits, exactly rounded: d.dddddddddddddddde±X.
    let sci = format!("{:.16e}", x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..17).contains(&exp) {
        let mant = trim_fraction(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (16 - exp) as usize;
        trim_fraction(&format!("{:.*}", decimals, x)).to_string()
    }
}

/// Drops trailing zeros after a decimal point, and the point itself when nothing is left.
fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A double as Redis 7.2+ / Valkey `d2string` prints it: `nan`, `inf`, `-inf`, `0`, `-0`; an
/// integral value within ±2^62 in plain digits; otherwise fpconv's Grisu2 digits
/// ([`crate::fpconv::grisu2`]: they read back exactly, sometimes one digit longer than the
/// shortest), plain with zeros appended when the decimal exponent
/// is below digits + 7, plain decimal when fewer than 7 digits follow the point (or the
/// exponent is below 4), else `d.ddde±X` with an unpadded exponent.
pub fn format_shortest(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let half = (i64::MAX / 2) as f64;
    if (-half..=half).contains(&x) && x.fract() == 0.0 {
        return (x as i64).to_string();
    }
    let neg = x < 0.0;
    let (digits, k) = crate::fpconv::grisu2(x);
    let digits = String::from_utf8_lossy(&digits);
    let nd = digits.len() as i32;
    let e = k + nd - 1;
    let absexp = e.abs();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if k >= 0 && absexp < nd + 7 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', k as usize));
    } else if k < 0 && (k > -7 || absexp < 4) {
        let offset = nd + k;
        if offset <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-offset) as usize));
            out.push_str(&digits);
        } else {
            out.push_str(&digits[..offset as usize]);
            out.push('.');
            out.push_str(&digits[offset as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if nd > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&absexp.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_like_percent_17g() {
        assert_eq!(format_g17(3471579339700058.0), "3471579339700058");
        assert_eq!(format_g17(1e20), "1e+20");
        assert_eq!(format_g17(1.5), "1.5");
        assert_eq!(format_g17(-1.0), "-1");
        assert_eq!(format_g17(0.1), "0.10000000000000001");
        assert_eq!(format_g17(0.0001), "0.0001");
        assert_eq!(format_g17(0.00001), "1.0000000000000001e-05");
        assert_eq!(format_g17(1e16), "10000000000000000");
        assert_eq!(format_g17(1e17), "1e+17");
        assert_eq!(format_g17(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn names_and_writers() {
        assert_eq!(PROFILES.len(), 16);
        for p in PROFILES {
            assert_eq!(Profile::from_name(p.name), Some(p));
        }
        assert_eq!(Profile::from_name("Redis-7.4.1"), Some(&REDIS_7_4));
        assert_eq!(Profile::from_name("valkey-9.1"), Some(&VALKEY_9_0));
        assert_eq!(Profile::from_name("valkey-x"), None);
        assert_eq!(Profile::from_name("redis-5.0"), None);
        assert_eq!(Profile::from_name("redis-9.9"), None);
        assert_eq!(Profile::from_name("memcached-1.6"), None);
        assert_eq!(
            Profile::for_version(Family::Valkey, "9.1.2"),
            Some(&VALKEY_9_0)
        );
        assert_eq!(
            Profile::for_version(Family::Redis, "5.0.7"),
            Some(&REDIS_6_0)
        );
        assert_eq!(
            Profile::for_version(Family::Redis, "7.0.15"),
            Some(&REDIS_7_0)
        );
        assert_eq!(
            Profile::for_version(Family::Redis, "8.1.0"),
            Some(&REDIS_8_0)
        );
        // Valkey 8.1.8 writes REDIS0011 with both aux fields: valkey-ver wins.
        let aux = vec![
            (b"redis-ver".to_vec(), b"7.2.4".to_vec()),
            (b"valkey-ver".to_vec(), b"8.1.8".to_vec()),
        ];
        assert_eq!(Profile::for_snapshot(&aux, 11), &VALKEY_8_1);
        // Valkey 8.1.1 (Debian 13) is the 8.1.0-8.1.2 profile; 8.1.3 on is `valkey-8.1`.
        let aux_811 = vec![
            (b"redis-ver".to_vec(), b"7.2.4".to_vec()),
            (b"valkey-ver".to_vec(), b"8.1.1".to_vec()),
        ];
        assert_eq!(Profile::for_snapshot(&aux_811, 11), &VALKEY_8_1_0);
        assert_eq!(Profile::from_name("valkey-8.1.1"), Some(&VALKEY_8_1_0));
        assert_eq!(Profile::from_name("valkey-8.1.3"), Some(&VALKEY_8_1));
        assert_eq!(Profile::from_name("valkey-8.1.8"), Some(&VALKEY_8_1));
        assert_eq!(VALKEY_8_1_0.display_name(), "Valkey 8.1.0-8.1.2");
        assert_eq!(VALKEY_8_1.display_name(), "Valkey 8.1.3+");
        assert_eq!(VALKEY_9_0.display_name(), "Valkey 9.0");
        assert_eq!(
            Profile::for_snapshot(&[(b"redis-ver".to_vec(), b"8.0.2".to_vec())], 12),
            &REDIS_8_0
        );
        assert_eq!(Profile::for_snapshot(&aux[..1], 11), &REDIS_7_2);
        assert_eq!(Profile::for_snapshot(&[], 80), &VALKEY_9_0);
        assert_eq!(Profile::for_snapshot(&[], 9), &REDIS_6_0);
        assert_eq!(Profile::for_snapshot(&[], 10), &REDIS_7_0);
    }

    #[test]
    fn shortest_scores_as_redis_7_2() {
        // 1.618: recorded from Valkey 8.1.8 / 9.1.2 (ZSCORE); the rest follow d2string's rules.
        for (x, want) in [
            (1.618, "1.618"),
            (2.5, "2.5"),
            (0.1, "0.1"),
            (1e20, "1e+20"),
            (1e18, "1000000000000000000"),
            (1e25, "1e+25"),
            (1.5e-7, "1.5e-7"),
            (0.00001, "0.00001"),
            (3471579339700058.0, "3471579339700058"),
            (-0.5, "-0.5"),
            (123456.789, "123456.789"),
            (f64::NEG_INFINITY, "-inf"),
            (-0.0, "-0"),
        ] {
            assert_eq!(format_shortest(x), want, "{x}");
        }
        assert_eq!(REDIS_7_0.format_score(1.618), "1.6180000000000001");
        assert_eq!(REDIS_7_2.format_score(1.618), "1.618");
    }

    #[test]
    fn unknown_command_quoting() {
        let argv: Vec<Vec<u8>> = ["FOO", "a", "b"]
            .iter()
            .map(|s| s.as_bytes().into())
            .collect();
        // Recorded from redis-server 6.2.14 and 7.0.15.
        assert_eq!(
            REDIS_6_2.unknown_command(&argv),
            "ERR unknown command `FOO`, with args beginning with: `a`, `b`, "
        );
        assert_eq!(
            REDIS_7_0.unknown_command(&argv),
            "ERR unknown command 'FOO', with args beginning with: 'a' 'b' "
        );
    }

    #[test]
    fn embstr_rules_as_recorded() {
        // Recorded after DEBUG RELOAD: Redis 7.0.15 embstr up to 44 value bytes; Valkey 8.1.8
        // key "k38" + 38 bytes embstr, + 39 raw; Valkey 9.1.2 key "k109" + 109 embstr.
        assert!(REDIS_7_0.is_embstr(3, 44, false) && !REDIS_7_0.is_embstr(3, 45, false));
        assert!(VALKEY_8_1.is_embstr(3, 38, false) && !VALKEY_8_1.is_embstr(3, 39, false));
        assert!(VALKEY_8_1.is_embstr(31, 9, false) && !VALKEY_8_1.is_embstr(32, 10, false));
        // Loaded by 8.1.8: key and value of 41 bytes together stay embedded whatever the
        // key's sds header (32 + 9, 40 + 1, 41 + 0), 42 do not.
        assert!(VALKEY_8_1.is_embstr(32, 9, false) && VALKEY_8_1.is_embstr(40, 1, false));
        assert!(VALKEY_8_1.is_embstr(41, 0, false) && !VALKEY_8_1.is_embstr(42, 0, false));
        assert!(!VALKEY_8_1.is_embstr(40, 2, false));
        // With a TTL, 32 + 7 and 36 + 3 stay embedded, 32 + 8 and 40 + 0 do not; a short key
        // keeps its 41 bytes; Valkey 9.1.2 is the same with a TTL or without.
        assert!(VALKEY_8_1.is_embstr(32, 7, true) && !VALKEY_8_1.is_embstr(32, 8, true));
        assert!(VALKEY_8_1.is_embstr(36, 3, true) && !VALKEY_8_1.is_embstr(40, 0, true));
        assert!(VALKEY_8_1.is_embstr(31, 10, true) && !VALKEY_8_1.is_embstr(31, 11, true));
        assert!(VALKEY_9_0.is_embstr(32, 79, true) && !VALKEY_9_0.is_embstr(32, 80, true));
        assert!(VALKEY_9_0.is_embstr(4, 109, false) && !VALKEY_9_0.is_embstr(4, 110, false));
        assert!(VALKEY_9_0.is_embstr(32, 79, false) && !VALKEY_9_0.is_embstr(32, 80, false));
    }

    /// Valkey 8.1.1 (Debian 13, jemalloc) after DEBUG RELOAD: OBJECT ENCODING of values of
    /// 1 to 45 bytes (E embstr, r raw) under keys of 20 to 40 bytes, without and with a TTL,
    /// as recorded on 2026-12-07.
    #[test]
    fn embstr_rules_valkey_8_1_1_as_recorded() {
        let rec: &[(usize, bool, &str)] = &[
            (20, false, "EEEEEEEEEEEEEEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrr"),
            (20, true, "EEEEEEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (28, false, "EEEEEEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (28, true, "EEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (30, false, "EEEEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (30, true, "EEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (31, false, "EEEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (31, true, "EErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (32, false, "EEEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (32, true, "ErrrrrrEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (33, false, "EEEEEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (33, true, "rrrrrrEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (36, false, "EEEEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (36, true, "rrrEErrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (40, false, "Errrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
            (40, true, "Errrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"),
        ];
        for &(key_len, ttl, row) in rec {
            let got: String = (1..=45)
                .map(|v| {
                    if VALKEY_8_1_0.is_embstr(key_len, v, ttl) {
                        'E'
                    } else {
                        'r'
                    }
                })
                .collect();
            assert_eq!(got, row, "key of {key_len} bytes, ttl {ttl}");
        }
    }

    #[test]
    fn new_user_trial_replies() {
        // Replies a new-user trial recorded from Redis 6.2.14, 7.4.1 and Valkey 9.1.2.
        use crate::command::execute_as;
        use crate::keyspace::{Keyspace, Value};
        use crate::reply::Reply;
        let mut ks = Keyspace::new();
        ks.set(
            b"geo",
            Value::zset(crate::zset::ZSet::from_pairs(vec![
                (b"Palermo".to_vec(), 3479099956230698.0),
                (b"Catania".to_vec(), 3479447370796909.0),
            ])),
        );
        let geodist = ["GEODIST", "geo", "Palermo", "Catania", "parsecs"];
        assert_eq!(
            execute_as(&mut ks, &REDIS_6_2, &geodist),
            Reply::err("ERR unsupported unit provided. please use m, km, ft, mi")
        );
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_4, &geodist),
            Reply::err("ERR unsupported unit provided. please use M, KM, FT, MI")
        );
        ks.set(
            b"l",
            Value::list(crate::list::List::from_elements(["a", "c", "b"])),
        );
        let lpos = ["LPOS", "l", "c", "RANK", "-9223372036854775808"];
        assert_eq!(execute_as(&mut ks, &REDIS_6_2, &lpos), Reply::Integer(1));
        assert!(execute_as(&mut ks, &REDIS_7_4, &lpos).is_error());
        ks.set(
            b"hf",
            Value::Hash(crate::hash::Hash::from_fields([(
                "a",
                "1",
                Some(1_796_220_601_749),
            )])),
        );
        let hexp = ["HEXPIRETIME", "hf", "FIELDS", "1", "a"];
        assert_eq!(
            execute_as(&mut ks, &VALKEY_9_0, &hexp),
            Reply::Array(vec![Reply::Integer(1_796_220_602)])
        );
        ks.set(
            b"z",
            Value::zset(crate::zset::ZSet::from_pairs(vec![
                (b"d".to_vec(), 1.0),
                (b"b".to_vec(), 2.0),
            ])),
        );
        let zscan = ["ZSCAN", "z", "0", "NOSCORES"];
        assert_eq!(
            execute_as(&mut ks, &VALKEY_9_0, &zscan),
            Reply::Array(vec![
                Reply::bulk("0"),
                Reply::Array(vec![Reply::bulk("d"), Reply::bulk("b")])
            ])
        );
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_4, &zscan),
            Reply::syntax_error()
        );
    }
}
