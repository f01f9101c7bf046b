//! `bitlens chart KIND --rdb FILE --svg OUT`: the engagement charts of `bitlens_charts` drawn
//! from a snapshot as SVG documents.
//!
//! Kinds and the keys they read (defaults follow the demo data's naming):
//! - `dau`: daily actives with rolling 7/30-day actives over the daily bitmaps matching
//!   `--pattern` (default `stats:active:*`, sorted = chronological), or the `--keys` list.
//! - `streaks`: `BITLENS.STREAKHIST` over the last `--days` (default 30) of those keys.
//! - `retention`: the `BITLENS.RETENTION --lookback --horizon` cohort heatmap over those keys.
//! - `enums`: `BITLENS.ENUMDIST` of the `u<w>` field key `--key` (default: the latest key
//!   matching `stats:level:*`), among the users set in `--among` (default: the daily bitmap of
//!   the same date, `stats:active:YYYYMMDD`, when it exists; `--all` counts every field).
//!
//! `--from` / `--to` (`YYYYMMDD`, inclusive) keep the keys whose trailing 8 digits fall in the
//! range; `--date` (for `enums`) picks the field key of that day.

use std::path::PathBuf;
use std::process::ExitCode;

use bitlens::analytics::{self, daily, enums};
use bitlens::keyspace::Keyspace;
use bitlens_charts as chart;
use clap::{Args, ValueEnum};

/// Which chart to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Daily actives with rolling 7- and 30-day actives (lines).
    Dau,
    /// Users per current streak length (bars).
    Streaks,
    /// Retention cohort heatmap.
    Retention,
    /// Distribution of a BITFIELD `u<w>` field (bars).
    Enums,
}

/// Arguments of `bitlens chart`.
#[derive(Args, Debug)]
pub struct ChartArgs {
    /// The chart to draw.
    #[arg(value_enum)]
    pub kind: Kind,
    /// The RDB file (dump.rdb) to read.
    #[arg(long, value_name = "FILE")]
    pub rdb: PathBuf,
    /// Where to write the SVG document.
    #[arg(long, value_name = "FILE")]
    pub svg: PathBuf,
    /// Database number in the snapshot.
    #[arg(short = 'n', long = "db", default_value_t = 0)]
    pub db: u64,
    /// Glob of the daily bitmaps (bit = user id), one per day, `YYYYMMDD` suffix.
    #[arg(long, default_value = "stats:active:*")]
    pub pattern: String,
    /// Explicit chronological list of daily bitmaps (comma separated); overrides --pattern.
    #[arg(long, value_delimiter = ',')]
    pub keys: Vec<String>,
    /// First day kept (`YYYYMMDD`, inclusive).
    #[arg(long, value_parser = yyyymmdd)]
    pub from: Option<String>,
    /// Last day kept (`YYYYMMDD`, inclusive).
    #[arg(long, value_parser = yyyymmdd)]
    pub to: Option<String>,
    /// `streaks`: number of days (the last ones) in the histogram (at least 1).
    #[arg(long, default_value_t = 30, value_parser = at_least_one)]
    pub days: usize,
    /// `retention`: days before the cohort day a new user must be absent from.
    #[arg(long, default_value_t = 7)]
    pub lookback: usize,
    /// `retention`: days after the cohort day shown (at least 1).
    #[arg(long, default_value_t = 7, value_parser = at_least_one)]
    pub horizon: usize,
    /// `enums`: the field key (default: the latest key matching --enum-pattern, or the one
    /// of --date).
    #[arg(long)]
    pub key: Option<String>,
    /// `enums`: glob of the field keys.
    #[arg(long, default_value = "stats:level:*")]
    pub enum_pattern: String,
    /// `enums`: the day (`YYYYMMDD`) whose field key is charted.
    #[arg(long, value_parser = yyyymmdd)]
    pub date: Option<String>,
    /// `enums`: the field type, `u<w>` with w in 1..=16.
    #[arg(long, default_value = "u4")]
    pub field: String,
    /// `enums`: count only users set in this bitmap (default: the daily bitmap of the same
    /// date when it exists).
    #[arg(long)]
    pub among: Option<String>,
    /// `enums`: count every field, not only the day's actives.
    #[arg(long)]
    pub all: bool,
    /// Chart title (default: one per kind).
    #[arg(long)]
    pub title: Option<String>,
    /// Width in pixels (100 to 20000).
    #[arg(long, default_value_t = 900, value_parser = clap::value_parser!(u32).range(100..=20_000))]
    pub width: u32,
    /// Height in pixels (100 to 20000).
    #[arg(long, default_value_t = 420, value_parser = clap::value_parser!(u32).range(100..=20_000))]
    pub height: u32,
    #[command(flatten)]
    pub limit: crate::LimitArgs,
}

/// A calendar day written `YYYYMMDD` (the suffix of the daily keys), checked to exist.
fn yyyymmdd(s: &str) -> Result<String, String> {
    let bad = || format!("{s:?} is not a day written YYYYMMDD (such as 20240520)");
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    let (y, m, d) = (n(0..4), n(4..6), n(6..8));
    // 0 days for a month outside 1..=12.
    if d == 0 || d > analytics::signin::days_in_month(y, m) {
        return Err(bad());
    }
    Ok(s.to_string())
}

/// A whole number of 1 or more (`--days`, `--horizon`: a chart of no day is no chart).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?} is not a whole number of 1 or more")),
    }
}

/// The trailing `YYYYMMDD` of a key, if it has one.
fn day_of(key: &[u8]) -> Option<&[u8]> {
    let digits = key.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    (digits >= 8).then(|| &key[key.len() - 8..])
}

/// The daily keys selected by `--keys` or `--pattern` and `--from` / `--to`.
pub fn daily_keys(ks: &Keyspace, args: &ChartArgs) -> Vec<Vec<u8>> {
    let keys = if args.keys.is_empty() {
        analytics::string_keys_matching(ks, args.pattern.as_bytes())
    } else {
        args.keys.iter().map(|k| k.as_bytes().to_vec()).collect()
    };
    keys.into_iter()
        .filter(|k| {
            let d = day_of(k);
            let after = args
                .from
                .as_ref()
                .is_none_or(|f| d.is_some_and(|d| d >= f.as_bytes()));
            let before = args
                .to
                .as_ref()
                .is_none_or(|t| d.is_some_and(|d| d <= t.as_bytes()));
            after && before
        })
        .collect()
}

/// Why [`daily_keys`] selected nothing: no key matches at all, or keys match but none falls
/// in the `--from` / `--to` range (the message then gives the dates the keys do have).
fn empty_selection(ks: &Keyspace, args: &ChartArgs) -> String {
    let (all, what) = if args.keys.is_empty() {
        (
            analytics::string_keys_matching(ks, args.pattern.as_bytes()),
            format!("match {:?}", args.pattern),
        )
    } else {
        let given: Vec<Vec<u8>> = args.keys.iter().map(|k| k.as_bytes().to_vec()).collect();
        (given, "were given with --keys".to_string())
    };
    match date_span(&all) {
        Some(span) if args.from.is_some() || args.to.is_some() => format!(
            "{} keys {what}, but none is dated in the range {} .. {}{span}",
            all.len(),
            args.from.as_deref().unwrap_or("the start"),
            args.to.as_deref().unwrap_or("the end"),
        ),
        _ => format!("no daily keys match {:?}", args.pattern),
    }
}

/// ` (they run from FIRST to LAST)`: the earliest and latest `YYYYMMDD` among `keys`, or
/// `None` when no key is dated.
fn date_span(keys: &[Vec<u8>]) -> Option<String> {
    let days: Vec<&[u8]> = keys.iter().filter_map(|k| day_of(k)).collect();
    let (first, last) = (days.iter().min()?, days.iter().max()?);
    Some(format!(
        " (they run from {} to {})",
        String::from_utf8_lossy(first),
        String::from_utf8_lossy(last)
    ))
}

fn parse_field(spec: &str) -> Result<u32, String> {
    spec.strip_prefix(['u', 'U'])
        .and_then(|w| w.parse::<u32>().ok())
        .filter(|w| (1..=16).contains(w))
        .ok_or_else(|| format!("--field expects u1 .. u16, got {spec:?}"))
}

fn labels(keys: &[Vec<u8>]) -> Vec<String> {
    keys.iter().map(|k| analytics::date_label(k)).collect()
}

/// Draws the chart `args` asks for and returns the SVG text.
pub fn render(ks: &Keyspace, args: &ChartArgs) -> Result<String, String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (w, h) = (args.width, args.height);
    match args.kind {
        Kind::Dau | Kind::Streaks | Kind::Retention => {
            let mut keys = daily_keys(ks, args);
            if keys.is_empty() {
                return Err(empty_selection(ks, args));
            }
            // A name given by hand that is not there is a typo, not a day nobody was active.
            if let Some(k) = keys
                .iter()
                .find(|k| !args.keys.is_empty() && ks.get(k).is_none())
            {
                return Err(format!(
                    "--keys: no key {} in database {}",
                    bitlens::escape::display(k),
                    args.db
                ));
            }
            let maps = analytics::bitmaps(ks, &keys).map_err(|x| e(&x))?;
            match args.kind {
                Kind::Dau => {
                    let title = args.title.as_deref().unwrap_or("Daily actives");
                    chart::dau_svg(title, &labels(&keys), &daily::engagement(&maps), w, h)
                }
                Kind::Streaks => {
                    let n = args.days.clamp(1, keys.len());
                    let maps = &maps[maps.len() - n..];
                    keys.drain(..keys.len() - n);
                    let title = args.title.clone().unwrap_or_else(|| {
                        format!(
                            "Current streaks as of {}",
                            analytics::date_label(&keys[n - 1])
                        )
                    });
                    chart::streak_histogram_svg(&title, &daily::streak_histogram(maps), w, h)
                }
                _ => {
                    let rows = daily::retention(&maps, args.lookback, args.horizon);
                    if rows.is_empty() {
                        return Err(format!(
                            "retention needs more than --lookback {} daily keys, found {}",
                            args.lookback,
                            keys.len()
                        ));
                    }
                    let row_labels: Vec<String> = rows
                        .iter()
                        .map(|r| analytics::date_label(&keys[r.day]))
                        .collect();
                    let title = args.title.as_deref().unwrap_or("Retention of new actives");
                    chart::retention_svg(title, &row_labels, &rows, w, h)
                }
            }
            .map_err(|x| e(&x))
        }
        Kind::Enums => {
            let width = parse_field(&args.field)?;
            let key = match (&args.key, &args.date) {
                (Some(k), _) => k.as_bytes().to_vec(),
                (None, date) => {
                    let keys = analytics::string_keys_matching(ks, args.enum_pattern.as_bytes());
                    if keys.is_empty() {
                        return Err(format!("no key matches {:?}", args.enum_pattern));
                    }
                    let span = date_span(&keys).unwrap_or_default();
                    let n = keys.len();
                    let pick = match date {
                        Some(d) => keys.into_iter().find(|k| day_of(k) == Some(d.as_bytes())),
                        None => keys.into_iter().last(),
                    };
                    pick.ok_or_else(|| {
                        format!(
                            "{n} keys match {:?}, but none is dated {}{span}",
                            args.enum_pattern,
                            date.as_deref().unwrap_or_default()
                        )
                    })?
                }
            };
            if ks.get(&key).is_none() {
                return Err(format!(
                    "--key: no key {} in database {}",
                    bitlens::escape::display(&key),
                    args.db
                ));
            }
            let bytes = analytics::bitmap(ks, &key).map_err(|x| e(&x))?;
            let among: Option<Vec<u8>> = match (&args.among, args.all) {
                (_, true) => None,
                (Some(a), false) => {
                    // A bitmap named by hand that is not there is a typo: an empty chart
                    // would say nobody had a level.
                    if ks.get(a.as_bytes()).is_none() {
                        return Err(format!(
                            "--among: no key {} in database {}",
                            bitlens::escape::display(a.as_bytes()),
                            args.db
                        ));
                    }
                    Some(a.as_bytes().to_vec())
                }
                (None, false) => day_of(&key)
                    .map(|d| [b"stats:active:".as_slice(), d].concat())
                    .filter(|k| ks.get(k).is_some()),
            };
            let hist = match &among {
                Some(a) => {
                    let m = analytics::bitmap(ks, a).map_err(|x| e(&x))?;
                    enums::distribution_among(&bytes, width, &m)
                }
                None => enums::distribution(&bytes, width, None),
            };
            let title = args.title.clone().unwrap_or_else(|| {
                let k = String::from_utf8_lossy(&key);
                match &among {
                    Some(a) => format!("{k} among {}", String::from_utf8_lossy(a)),
                    None => k.into_owned(),
                }
            });
            chart::enum_distribution_svg(&title, &hist, w, h).map_err(|x| e(&x))
        }
    }
}

/// Runs `bitlens chart`.
pub fn run(args: ChartArgs) -> ExitCode {
    // Opened as every command opens a snapshot (read in windows; a FIFO refused).
    let spec = bitlens::open::LoadSpec {
        threads: bitlens::open::load_threads(),
        max_value_bytes: args.limit.max_value_bytes,
        ..Default::default()
    };
    let paths = [args.rdb.clone()];
    let loaded = match spec.open_paths(&paths) {
        Ok(l) => l,
        Err(e) => return crate::union_error(&paths, e),
    };
    let empty = bitlens::Keyspace::default();
    let ks = loaded.session.databases().get(&args.db).unwrap_or(&empty);
    let svg = match render(ks, &args) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("bitlens: chart: {msg}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = std::fs::write(&args.svg, svg) {
        eprintln!(
            "bitlens: cannot write {}: {e}",
            bitlens::open::path_display(&args.svg)
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
