//! The report as text for people, one JSON document for tools, and rdbtools' memory CSV.
//!
//! Text: every name goes through [`bitlens::escape::display`] (redis-cli quoting: no byte of a
//! key reaches the terminal raw) and is cut to [`NAME_WIDTH`] characters with `…`;
//! percentages never show 0% or 100% unless exact ([`percent`]). JSON: names are strings when
//! valid UTF-8, else `{"hex": "…"}` ([`name_json`]), so that they round-trip.

use std::fmt::Write as _;

use bitlens::escape;
use bitlens::probabilistic::{Figure, Summary};
use bitlens_views::memory::Allocator;

use super::{KeyRow, Report, DIST_BUCKETS};
pub use bitlens_views::inspect::json::{filter_json, key_json, name_json, path_json};

/// Text rendering of a report (the CLI's; the document is the views crate's).
pub trait TextReport {
    /// Plain text for people (see the module docs).
    fn to_text(&self) -> String;
}

/// Widest name column, in characters.
pub const NAME_WIDTH: usize = 48;
/// Widest DETAILS column (bitmap / HLL / GEO statistics), in characters.
pub const DETAILS_WIDTH: usize = 90;

/// `part` of `total` as a percentage with one decimal, never `0.0%` or `100.0%` unless exact
/// (`<0.1%`, `>99.9%`).
pub fn percent(part: u64, total: u64) -> String {
    percent_digits(part as f64, total as f64, 1)
}

/// As [`percent`] with `digits` decimals, on floats.
pub fn percent_digits(part: f64, total: f64, digits: usize) -> String {
    if total == 0.0 || part == 0.0 {
        return "0%".into();
    }
    if part == total {
        return "100%".into();
    }
    let p = 100.0 * part / total;
    let step = 10f64.powi(-(digits as i32));
    if p < step {
        format!("<{step:.digits$}%")
    } else if p > 100.0 - step {
        format!(">{:.digits$}%", 100.0 - step)
    } else {
        format!("{p:.digits$}%")
    }
}

/// `s` cut to `width` characters, the last one `…` when cut.
pub fn cap(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// A file's path for a text column: escaped as a key name is (an ESC or a newline in a file
/// name cannot reach the terminal), then, when longer than `width`, cut at its start (`…`
/// first) so that the file's own name stays.
pub fn path_text(p: &std::path::Path, width: usize) -> String {
    let s = escape::display(p.as_os_str().as_encoded_bytes());
    let n = s.chars().count();
    if n <= width {
        return s;
    }
    let mut out = String::from("…");
    out.extend(s.chars().skip(n - (width - 1)));
    out
}

/// The width of a column of these paths ([`path_text`]): the longest, between 4 and
/// [`NAME_WIDTH`] characters.
pub fn path_width<'a>(paths: impl Iterator<Item = &'a std::path::Path>) -> usize {
    paths
        .map(|p| path_text(p, usize::MAX).chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, NAME_WIDTH)
}

/// A name for a text column: escaped, then capped.
pub(super) fn name(bytes: &[u8]) -> String {
    cap(&escape::display(bytes), NAME_WIDTH)
}

/// Bytes for people: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.1 GiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

fn allocator_name(a: Allocator) -> &'static str {
    match a {
        Allocator::Jemalloc => "jemalloc (Redis' bundled build)",
        Allocator::Jemalloc16 => "jemalloc (16-byte quantum, e.g. Debian's build)",
        Allocator::Libc => "libc malloc",
    }
}

fn counts(v: &[(String, u64)]) -> String {
    if v.len() == 1 {
        return v[0].0.clone();
    }
    v.iter()
        .map(|(e, n)| format!("{e}:{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn ttl_text(row: &KeyRow, clock_ms: i64) -> String {
    match row.expire_at_ms {
        None => "-".into(),
        Some(e) if clock_ms > e => "expired".into(),
        Some(e) => {
            let s = (e - clock_ms) / 1000;
            match s {
                0..=59 => format!("{s}s"),
                60..=3599 => format!("{}m", s / 60),
                3600..=86399 => format!("{}h", s / 3600),
                _ => format!("{}d", s / 86400),
            }
        }
    }
}

impl TextReport for Report {
    fn to_text(&self) -> String {
        let mut out = String::new();
        let w = &self.writer;
        let ver = match w.valkey_ver.as_deref().or(w.redis_ver.as_deref()) {
            Some(v) => format!(", written by {} {v}", w.server()),
            None => format!(", written by {} (version not recorded)", w.server()),
        };
        let _ = writeln!(
            out,
            "RDB version {} ({}){ver}, {} bytes, {} keys in {} database(s), checksum {}",
            self.version,
            w.format.magic(),
            self.file_bytes,
            self.file_keys,
            self.file_databases,
            if self.stored_checksum == 0 {
                "absent".to_string()
            } else if self.checksum_verified {
                format!("{:016x} (verified)", self.stored_checksum)
            } else {
                format!("{:016x} (not verified)", self.stored_checksum)
            }
        );
        if self.filtered {
            let _ = writeln!(
                out,
                "filters keep {} of the {} keys, in {} database(s); every figure below is of those keys",
                self.keys,
                self.file_keys,
                self.databases.len()
            );
        }
        if !self.module_aux.is_empty() {
            let _ = writeln!(
                out,
                "module aux data of module type(s): {}",
                self.module_aux.join(", ")
            );
        }
        let expired = &self.ttl[1];
        let _ = writeln!(
            out,
            "answers as {} ({}{}); clock {} ms: {} keys ({}) already expired",
            self.profile.display_name(),
            self.profile.name,
            if self.profile_is_writer {
                ", the writer"
            } else {
                ", --compat"
            },
            self.clock_ms,
            expired.keys,
            human(expired.memory)
        );
        let _ = writeln!(
            out,
            "MEMORY: estimated MEMORY USAGE on the writer ({}), {} in all; VALUE LEN: STRLEN or element count",
            allocator_name(self.allocator),
            human(self.memory)
        );
        let _ = writeln!(
            out,
            "{}",
            wrapped(&format!("ALLOCATOR: {}", self.allocator_choice.reason))
        );
        if let Some(line) = undecided_line(&self.allocator_choice) {
            let _ = writeln!(out, "{}", wrapped(&line));
        }
        if !self.files.is_empty() {
            files_text(&mut out, self);
        }
        for db in &self.databases {
            let _ = writeln!(
                out,
                "\ndb{}: {} keys, {} with expiry, memory {}",
                db.db,
                db.keys,
                db.expires,
                human(db.memory)
            );
            let pw = db
                .groups
                .iter()
                .map(|g| name(&g.pattern).chars().count())
                .max()
                .unwrap_or(0)
                .clamp(7, NAME_WIDTH);
            let _ = writeln!(
                out,
                "  {:<pw$}  {:<8} {:<24} {:>8} {:>10} {:>7} {:>12} {:>7}  DETAILS",
                "PATTERN", "TYPE", "ENCODING", "KEYS", "MEMORY", "MEM%", "VALUE LEN", "EXPIRY"
            );
            for g in &db.groups {
                let pat = name(&g.pattern);
                let pad = pw.saturating_sub(pat.chars().count());
                let _ = writeln!(
                    out,
                    "  {pat}{}  {:<8} {:<24} {:>8} {:>10} {:>7} {:>12} {:>7}  {}",
                    " ".repeat(pad),
                    cap(&counts(&g.types), 8),
                    cap(&counts(&g.encodings), 24),
                    g.count,
                    human(g.memory),
                    percent(g.memory, self.memory),
                    g.len,
                    g.with_expiry,
                    cap(&details(g), DETAILS_WIDTH)
                );
            }
        }
        let ledger: Vec<(u64, &super::Group)> = self
            .databases
            .iter()
            .flat_map(|d| d.groups.iter().map(move |g| (d.db, g)))
            .filter(|(_, g)| g.ledger.is_some())
            .collect();
        if !ledger.is_empty() {
            let _ = writeln!(
                out,
                "\nledger (value bytes of the same members: as they are, as a Set, as a bitmap, as a Roaring bitmap in a string, as a Hash of per-user fields; a form that does not apply counts the key as it is):"
            );
            let _ = writeln!(
                out,
                "  {:>4}  {:<NAME_WIDTH$}  {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                "DB",
                "PATTERN",
                "KEYS",
                "MEMBERS",
                "NOW",
                "AS SET",
                "AS BITMAP",
                "AS ROARING",
                "AS HASH"
            );
            for (db, g) in ledger {
                let l = g.ledger.unwrap();
                let p = name(&g.pattern);
                let pad = NAME_WIDTH.saturating_sub(p.chars().count());
                let _ = writeln!(
                    out,
                    "  {db:>4}  {p}{}  {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
                    " ".repeat(pad),
                    l.keys,
                    l.members,
                    human(l.current),
                    human(l.as_set),
                    human(l.as_bitmap),
                    human(l.as_roaring),
                    human(l.as_hash)
                );
            }
        }
        let _ = writeln!(out, "\nmemory by type/encoding:");
        for t in &self.by_type {
            tally(&mut out, t, 28, self.memory);
        }
        let _ = writeln!(out, "\ntop {} keys by memory:", self.top.len());
        let _ = writeln!(
            out,
            "  {:>4}  {:<NAME_WIDTH$}  {:<8} {:<12} {:>10} {:>12} {:>8}",
            "DB", "KEY", "TYPE", "ENCODING", "MEMORY", "VALUE LEN", "TTL"
        );
        for r in &self.top {
            let k = name(&r.key);
            let pad = NAME_WIDTH.saturating_sub(k.chars().count());
            let _ = writeln!(
                out,
                "  {:>4}  {k}{}  {:<8} {:<12} {:>10} {:>12} {:>8}",
                r.db,
                " ".repeat(pad),
                cap(&r.type_name, 8),
                r.encoding,
                r.memory.map_or("?".into(), human),
                r.len,
                ttl_text(r, self.clock_ms)
            );
        }
        if !self.prefixes.is_empty() {
            let _ = writeln!(out, "\nprefixes:");
            for p in &self.prefixes {
                let label = format!("{}{}", "  ".repeat(p.depth - 1), name(&p.prefix));
                tally_row(
                    &mut out,
                    &label,
                    NAME_WIDTH + 8,
                    p.keys,
                    p.memory,
                    self.memory,
                );
            }
        }
        let _ = writeln!(out, "\nexpiry (at the clock):");
        for t in &self.ttl {
            tally(&mut out, t, 18, self.memory);
        }
        let e = &self.expiring;
        let _ = writeln!(
            out,
            "\nexpiring within {}d of the clock, by day: {} keys {} {}",
            e.days,
            e.keys,
            human(e.memory),
            percent(e.memory, self.memory)
        );
        let _ = writeln!(
            out,
            "  {:<5} {:<24} {:>8} {:>10}",
            "DAY", "UNTIL", "KEYS", "MEMORY"
        );
        for (i, d) in e.per_day.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {:<5} {:<24} {:>8} {:>10}",
                i + 1,
                iso8601(d.until_ms),
                d.keys,
                human(d.memory)
            );
        }
        if !self.distributions.is_empty() {
            let _ = write!(out, "\nelements per key:\n  {:<8}", "TYPE");
            for (_, l) in DIST_BUCKETS {
                let _ = write!(out, " {l:>8}");
            }
            out.push('\n');
            for d in &self.distributions {
                let _ = write!(out, "  {:<8}", cap(&d.type_name, 8));
                for c in &d.counts {
                    let _ = write!(out, " {c:>8}");
                }
                out.push('\n');
            }
        }
        if !self.filters.is_empty() {
            let _ = writeln!(out, "\nProbabilistic filters:");
            let _ = writeln!(
                out,
                "  {:>4}  {:<NAME_WIDTH$}  {:<9} {:>10} {:>10} {:>10} {:>10} {:>7} {:>10}  DETAILS",
                "DB", "KEY", "TYPE", "CAPACITY", "ITEMS", "ERROR RATE", "SIZE", "FILL", "MEMORY"
            );
            for f in &self.filters {
                let k = name(&f.key);
                let pad = NAME_WIDTH.saturating_sub(k.chars().count());
                let c = filter_columns(&f.summary);
                let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
                let _ = writeln!(
                    out,
                    "  {:>4}  {k}{}  {:<9} {:>10} {:>10} {:>10} {:>10} {:>7} {:>10}  {}",
                    f.db,
                    " ".repeat(pad),
                    cap(&f.type_name, 9),
                    dash(c.capacity.map(|n| n.to_string())),
                    dash(c.items.map(|n| n.to_string())),
                    dash(c.error_rate.map(|e| format!("{e}"))),
                    human(c.size_bytes),
                    dash(c.fill_ratio.map(|r| percent_digits(r, 1.0, 1))),
                    f.memory.map_or("?".into(), human),
                    cap(&c.details, 60)
                );
            }
        }
        if let Some(slots) = &self.slots {
            let mut by_mem = slots.clone();
            by_mem.sort_by(|a, b| b.memory.cmp(&a.memory).then_with(|| a.name.cmp(&b.name)));
            let _ = writeln!(
                out,
                "\ncluster slots: {} of 16384 hold keys; largest:",
                slots.len()
            );
            for t in by_mem.iter().take(10) {
                let slot = format!("slot {}", String::from_utf8_lossy(&t.name));
                tally_row(&mut out, &slot, 11, t.keys, t.memory, self.memory);
            }
        }
        out
    }
}

/// `text` broken at spaces into lines of at most [`WRAP`] characters, the later ones indented
/// by two spaces (a long allocator reason stays within the report's width).
fn wrapped(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WRAP {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// The widest line [`wrapped`] makes, characters.
const WRAP: usize = 160;

/// The line an undecided allocator adds to the text report: the candidates, the range of the
/// file's keys' total over them, and whose figures the report shows. `None` when decided.
fn undecided_line(c: &bitlens_views::memory::AllocatorChoice) -> Option<String> {
    if c.source != bitlens_views::memory::AllocatorSource::Undecided {
        return None;
    }
    let names = c
        .candidates()
        .iter()
        .map(|a| a.name())
        .collect::<Vec<_>>()
        .join(" or ");
    let range = match c.usage_range() {
        Some((lo, hi)) => format!(
            ", the file's keys total {} to {} ({lo} to {hi} bytes) over them",
            human(lo),
            human(hi)
        ),
        None => String::new(),
    };
    Some(format!(
        "MEMORY RANGE: undecided between {names}{range}; the figures below are {}'s (--allocator names the build)",
        c.allocator.name()
    ))
}

/// The FILES table of a report over several files: one row per file, in the order given.
fn files_text(out: &mut String, r: &Report) {
    let _ = writeln!(
        out,
        "\nFILES: {} read as one keyspace (the first line above is the first file's header; bytes and keys are the sums); KEYS, MEMORY (MEM%: of the files' sum) and EXPIRES of the keys counted, SLOTS of their CRC16 hash slots",
        r.files.len()
    );
    let pw = path_width(r.files.iter().map(|f| f.path.as_path()));
    let shadowed = r.files.iter().any(|f| f.shadowed > 0);
    // Shares of the files' sum (the union's memory when no key is in two files).
    let files_memory: u64 = r.files.iter().map(|f| f.memory).sum();
    let _ = writeln!(
        out,
        "  {:<pw$}  {:<16} {:>10} {:>10} {:>7} {:>10}  {:<24} {:<10}{}",
        "FILE",
        "WRITER",
        "KEYS",
        "MEMORY",
        "MEM%",
        "EXPIRES",
        "SLOTS",
        "ALLOCATOR",
        if shadowed {
            "  LEFT OUT (--on-duplicate)"
        } else {
            ""
        }
    );
    for f in &r.files {
        let w = &f.writer;
        let writer = match w.valkey_ver.as_deref().or(w.redis_ver.as_deref()) {
            Some(v) => format!("{} {v}", w.server()),
            None => w.server().to_string(),
        };
        let slots = match f.slot_range {
            Some((lo, hi)) => format!("{lo}-{hi} ({} used)", f.slots_used),
            None => "-".to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<pw$}  {:<16} {:>10} {:>10} {:>7} {:>10}  {:<24} {:<10}{}",
            path_text(&f.path, pw),
            cap(&writer, 16),
            f.keys,
            human(f.memory),
            percent(f.memory, files_memory),
            f.expires,
            slots,
            f.allocator.allocator.name(),
            if shadowed {
                format!("  {}", f.shadowed)
            } else {
                String::new()
            }
        );
    }
}

/// One row of a keys-and-memory table: `label` padded to `width`, the key count, the memory
/// and its share of `total` (`  label  N keys  SIZE  P%`).
fn tally_row(out: &mut String, label: &str, width: usize, keys: u64, memory: u64, total: u64) {
    let _ = writeln!(
        out,
        "  {label:<width$} {keys:>8} keys {:>10} {:>7}",
        human(memory),
        percent(memory, total)
    );
}

/// [`tally_row`] of a [`super::Tally`], its name shown as text.
fn tally(out: &mut String, t: &super::Tally, width: usize, total: u64) {
    let label = String::from_utf8_lossy(&t.name);
    tally_row(out, &label, width, t.keys, t.memory, total);
}

/// The columns of one row of the "Probabilistic filters" section: capacity (Bloom: BF.INFO
/// Capacity; Top-K: k), items (Bloom, Cuckoo: items inserted; Count-Min: CMS.INFO count;
/// Top-K: items listed; t-digest: observations), error rate (Bloom only), the module's size
/// figure, the fill ratio (Bloom, Cuckoo) and the other figures as text
/// ([`bitlens::probabilistic::Figures::details`]).
struct FilterColumns {
    capacity: Option<u64>,
    items: Option<i128>,
    error_rate: Option<f64>,
    size_bytes: u64,
    fill_ratio: Option<f64>,
    details: String,
}

/// The [`bitlens::probabilistic::Figures`] names each column takes its figure from (the first
/// one the kind has).
const CAPACITY_FIGURES: [&str; 2] = ["capacity", "k"];
const ITEMS_FIGURES: [&str; 4] = ["items", "count", "listed", "observations"];

fn filter_columns(s: &Summary) -> FilterColumns {
    let f = s.figures();
    let first = |names: &[&str]| names.iter().find_map(|n| f.get(n));
    let count = |x: Option<Figure>| match x {
        Some(Figure::Count(n)) => Some(i128::from(n)),
        Some(Figure::Signed(n)) => Some(i128::from(n)),
        _ => None,
    };
    let real = |x: Option<Figure>| match x {
        Some(Figure::Real(r)) => Some(r),
        _ => None,
    };
    FilterColumns {
        capacity: count(first(&CAPACITY_FIGURES)).map(|n| n as u64),
        items: count(first(&ITEMS_FIGURES)),
        error_rate: real(f.get("error_rate")),
        size_bytes: count(f.get("size_bytes")).map_or(0, |n| n as u64),
        fill_ratio: real(f.get("fill_ratio")),
        details: f.details,
    }
}

fn details(g: &super::Group) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &g.bitmap {
        parts.push(format!(
            "bitmap: {} of {} bits set ({})",
            b.set_bits,
            b.bits,
            percent_digits(b.set_bits as f64, b.bits as f64, 2)
        ));
    }
    if let Some(h) = &g.hll {
        let mut s = format!("hll: {} dense, {} sparse", h.dense, h.sparse);
        if h.invalid > 0 {
            let _ = write!(s, ", {} invalid", h.invalid);
        }
        match h.cardinality_range {
            Some((a, b)) if a == b => {
                let _ = write!(s, ", PFCOUNT {a}");
            }
            Some((a, b)) => {
                let _ = write!(s, ", PFCOUNT {a}..{b} (sum {})", h.cardinality_sum);
            }
            None => {}
        }
        parts.push(s);
    }
    if let Some(geo) = &g.geo {
        let mut s = format!("geo: {} members", geo.members);
        if let Some([a, b, c, d]) = geo.bbox {
            let _ = write!(s, ", lon {a:.6}..{c:.6}, lat {b:.6}..{d:.6}");
        }
        parts.push(s);
    }
    parts.join("; ")
}

/// The CSV header of rdbtools' memory report.
pub const CSV_HEADER: &str =
    "database,type,key,size_in_bytes,encoding,num_elements,len_largest_element,expiry";

/// The key cell of the CSV: the key itself when it is printable ASCII (as rdbtools writes
/// it) and does not start with `"`; else its redis-cli quoted form ([`escape::quote`]:
/// `"bin:\x00\xff"`), so that no control byte reaches the file and a cell that starts with
/// `"` is always the quoted form. The CSV writer then quotes the cell as RFC 4180 says.
pub fn csv_key(key: &[u8]) -> String {
    let printable = key.iter().all(|b| (0x20..=0x7e).contains(b));
    if printable && key.first() != Some(&b'"') {
        String::from_utf8_lossy(key).into_owned()
    } else {
        escape::quote(key)
    }
}

/// A CSV writer of rdbtools' memory report over `out`, `\n` line ends. It writes each field
/// as given: text cells go through [`csv_text`] (RFC 4180 quoting and the formula guard, the
/// one function `bitlens export --format csv` uses too), numbers as they are.
pub fn csv_writer<W: std::io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .quote_style(csv::QuoteStyle::Never)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// A text cell of the CLI's CSV as written ([`escape::csv_text_cell`]): quoted as RFC 4180
/// says, and a cell a spreadsheet would run as a formula (`=1+1`, `-1+1`, `@SUM(…)`) guarded
/// with a `'` and quoted (`"'=1+1"`). See the README's `--csv` notes for reading it back.
pub fn csv_text(text: &str) -> String {
    escape::csv_text_cell(text).into_owned()
}

/// Writes one CSV row as rdbtools writes its memory report: the key as [`csv_key`] (then
/// [`csv_text`], as the other text cells),
/// `size_in_bytes` the memory estimate (empty when not modelled), `num_elements` 1 for
/// strings, `expiry` ISO 8601 UTC with milliseconds, empty without one.
pub fn write_csv_row<W: std::io::Write>(w: &mut csv::Writer<W>, r: &KeyRow) -> csv::Result<()> {
    let n = if r.type_name == "string" { 1 } else { r.len };
    w.write_record([
        r.db.to_string(),
        csv_text(&r.type_name),
        csv_text(&csv_key(&r.key)),
        r.memory.map_or(String::new(), |m| m.to_string()),
        csv_text(r.encoding),
        n.to_string(),
        r.largest.to_string(),
        r.expire_at_ms.map_or(String::new(), iso8601),
    ])
}

/// Unix ms as `YYYY-MM-DDTHH:MM:SS.mmmZ` (proleptic Gregorian, UTC).
pub fn iso8601(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_never_falsely_round() {
        assert_eq!(percent(99_999_999, 100_000_000), ">99.9%");
        assert_eq!(percent(1, 100_000_000), "<0.1%");
        assert_eq!(percent(5, 5), "100%");
        assert_eq!(percent(0, 5), "0%");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent_digits(99_999_999.0, 100_000_000.0, 2), ">99.99%");
    }

    #[test]
    fn csv_keys_are_quoted_as_rfc_4180() {
        let row = |key: &[u8]| {
            let r = KeyRow {
                db: 0,
                key: key.to_vec(),
                type_name: "string".into(),
                encoding: "embstr",
                memory: Some(56),
                len: 1,
                largest: 1,
                expire_at_ms: None,
            };
            let mut w = csv_writer(Vec::new());
            write_csv_row(&mut w, &r).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        };
        assert_eq!(row(b"user:1"), "0,string,user:1,56,embstr,1,1,\n");
        assert_eq!(row(b"a,b"), "0,string,\"a,b\",56,embstr,1,1,\n");
        assert_eq!(row(b"a b"), "0,string,a b,56,embstr,1,1,\n");
        assert_eq!(
            row(b"say \"hi\""),
            "0,string,\"say \"\"hi\"\"\",56,embstr,1,1,\n"
        );
        // Control bytes never pass: the redis-cli quoted form, then CSV-quoted.
        assert_eq!(
            row(b"x\n\x1b[31m"),
            "0,string,\"\"\"x\\n\\x1b[31m\"\"\",56,embstr,1,1,\n"
        );
        // `"q` quoted is `"\"q"`; each of its three `"` doubled inside the CSV field.
        assert_eq!(row(b"\"q"), "0,string,\"\"\"\\\"\"q\"\"\",56,embstr,1,1,\n");
    }

    #[test]
    fn caps_and_dates() {
        assert_eq!(cap("abcdef", 4), "abc…");
        assert_eq!(cap("abc", 4), "abc");
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_714_521_600_123), "2024-05-01T00:00:00.123Z");
    }
}
