//! `bitlens chart`: each kind drawn from the `bitmaps` conformance dump (30 days of
//! `stats:active:*`); the SVG must carry as many line points / bars / heatmap cells as the data
//! computed directly with `bitlens::analytics` gives, and the date labels of the keys.

mod common;

use bitlens::analytics::{self, daily, enums};
use bitlens::keyspace::Keyspace;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens_charts::{BAR_COLOR, DAU_COLOR, MAU_COLOR, WAU_COLOR};
use common::*;

fn dump() -> std::path::PathBuf {
    conformance_dir().join("bitmaps/dump.rdb")
}

fn keyspace() -> Keyspace {
    let bytes = std::fs::read(dump()).unwrap();
    load_rdb(&bytes, &LoadOptions::default())
        .unwrap()
        .databases
        .remove(&0)
        .unwrap()
}

/// Runs `bitlens chart KIND --rdb dump --svg OUT ARGS` with OUT in a fresh temporary folder:
/// the process' output and the SVG text if one was written.
fn run_chart(kind: &str, args: &[&str]) -> (std::process::Output, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.svg");
    let rdb = dump();
    let mut argv = vec![
        "chart",
        kind,
        "--rdb",
        rdb.to_str().unwrap(),
        "--svg",
        out.to_str().unwrap(),
    ];
    argv.extend_from_slice(args);
    let o = bitlens(&argv, b"");
    let svg = std::fs::read_to_string(&out).ok();
    (o, svg)
}

/// Runs `bitlens chart KIND … ARGS`, which must succeed, and returns the SVG text.
fn chart(kind: &str, args: &[&str]) -> String {
    let (o, svg) = run_chart(kind, args);
    assert!(
        o.status.success(),
        "bitlens chart {kind} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let svg = svg.expect("an SVG written");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    svg
}

/// `#RRGGBB` of a chart colour, as the SVG backend writes fills and strokes.
macro_rules! hex {
    ($c:expr) => {{
        let c = $c;
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }};
}

/// The SVG elements (`<polyline …/>`, `<rect …/>`) whose text contains `needle`.
fn elements<'a>(svg: &'a str, tag: &str, needle: &str) -> Vec<&'a str> {
    svg.split('<')
        .filter(|e| e.starts_with(tag) && e.contains(needle))
        .collect()
}

/// Number of `x,y` pairs in a polyline's `points` attribute.
fn points(polyline: &str) -> usize {
    let start = polyline.find("points=\"").unwrap() + 8;
    let end = start + polyline[start..].find('"').unwrap();
    polyline[start..end].split_whitespace().count()
}

fn daily_keys(ks: &Keyspace) -> Vec<Vec<u8>> {
    let keys = analytics::string_keys_matching(ks, b"stats:active:*");
    assert_eq!(keys.len(), 30, "the bitmaps dump has 30 days");
    keys
}

#[test]
fn dau_has_one_point_per_day_in_each_line() {
    let ks = keyspace();
    let keys = daily_keys(&ks);
    let svg = chart("dau", &[]);
    for color in [DAU_COLOR, WAU_COLOR, MAU_COLOR] {
        let lines = elements(&svg, "polyline", &hex!(color));
        // the series line plus the legend swatch (2 points)
        let series: Vec<_> = lines.iter().filter(|l| points(l) > 2).collect();
        assert_eq!(series.len(), 1, "one series of colour {}", hex!(color));
        assert_eq!(points(series[0]), keys.len());
    }
    // x-axis ticks are dates of the keys, starting at the first day.
    let all: Vec<String> = keys.iter().map(|k| analytics::date_label(k)).collect();
    let ticks: Vec<&str> = svg
        .split('>')
        .filter_map(|t| t.split('<').next())
        .map(str::trim)
        .filter(|t| t.len() == 10 && t.as_bytes()[4] == b'-' && t.as_bytes()[7] == b'-')
        .collect();
    assert!(ticks.len() >= 4, "{ticks:?}");
    assert!(
        ticks.iter().all(|t| all.iter().any(|l| l == t)),
        "{ticks:?}"
    );
    assert_eq!(ticks[0], all[0]);
    // A date range keeps only those days.
    let from = String::from_utf8_lossy(&keys[10][keys[10].len() - 8..]).into_owned();
    let to = String::from_utf8_lossy(&keys[19][keys[19].len() - 8..]).into_owned();
    let svg = chart("dau", &["--from", &from, "--to", &to]);
    let lines = elements(&svg, "polyline", &hex!(DAU_COLOR));
    assert_eq!(lines.iter().map(|l| points(l)).max(), Some(10));
}

#[test]
fn streaks_has_one_bar_per_nonzero_bucket() {
    let ks = keyspace();
    let keys = daily_keys(&ks);
    for days in [30usize, 7] {
        let maps = analytics::bitmaps(&ks, &keys[30 - days..]).unwrap();
        let hist = daily::streak_histogram(&maps);
        let nonzero = hist.iter().filter(|&&c| c > 0).count();
        assert!(nonzero > 0);
        let svg = chart("streaks", &["--days", &days.to_string()]);
        assert_eq!(
            elements(&svg, "rect", &hex!(BAR_COLOR)).len(),
            nonzero,
            "{days} days: {hist:?}"
        );
    }
}

#[test]
fn retention_has_one_cell_per_known_return() {
    let ks = keyspace();
    let keys = daily_keys(&ks);
    let maps = analytics::bitmaps(&ks, &keys).unwrap();
    for (lookback, horizon) in [(7usize, 7usize), (3, 10)] {
        let rows = daily::retention(&maps, lookback, horizon);
        assert_eq!(rows.len(), 30 - lookback);
        let cells: usize = rows
            .iter()
            .map(|r| r.returned.iter().filter(|v| v.is_some()).count())
            .sum();
        let svg = chart(
            "retention",
            &[
                "--lookback",
                &lookback.to_string(),
                "--horizon",
                &horizon.to_string(),
                "--height",
                "900",
            ],
        );
        // Heatmap cells are the filled rects other than the white background / label box.
        let rects = svg
            .split('<')
            .filter(|e| e.starts_with("rect") && !e.contains("#FFFFFF"))
            .count();
        assert_eq!(rects, cells, "lookback {lookback} horizon {horizon}");
    }
}

#[test]
fn enums_bars_match_the_distribution_and_missing_key_is_an_error() {
    let ks = keyspace();
    // Default: the latest stats:level:* key as u4, among stats:active of the same date.
    let levels = analytics::string_keys_matching(&ks, b"stats:level:*");
    let latest = levels
        .last()
        .expect("the bitmaps dump has stats:level keys");
    let date = &latest[latest.len() - 8..];
    let active = [b"stats:active:".as_slice(), date].concat();
    assert!(ks.get(&active).is_some());
    let bytes = analytics::bitmap(&ks, latest).unwrap();
    let m = analytics::bitmap(&ks, &active).unwrap();
    let hist = enums::distribution_among(&bytes, 4, &m);
    let nonzero = hist.iter().filter(|&&c| c > 0).count();
    assert!(nonzero > 1, "{hist:?}");
    let svg = chart("enums", &[]);
    assert_eq!(elements(&svg, "rect", &hex!(BAR_COLOR)).len(), nonzero);
    assert!(svg.contains(&format!(
        "{} among {}",
        String::from_utf8_lossy(latest),
        String::from_utf8_lossy(&active)
    )));

    // An explicit key, field width and every field (no AMONG).
    let first = String::from_utf8(levels[0].clone()).unwrap();
    let bytes = analytics::bitmap(&ks, first.as_bytes()).unwrap();
    let hist = enums::distribution(&bytes, 2, None);
    let svg = chart("enums", &["--key", &first, "--field", "u2", "--all"]);
    assert_eq!(
        elements(&svg, "rect", &hex!(BAR_COLOR)).len(),
        hist.iter().filter(|&&c| c > 0).count()
    );

    // No key matches the pattern: a clear error, no file.
    let rdb = dump();
    let o = bitlens(
        &[
            "chart",
            "enums",
            "--rdb",
            rdb.to_str().unwrap(),
            "--svg",
            "/nonexistent/x.svg",
            "--enum-pattern",
            "nosuch:*",
        ],
        b"",
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no key matches \"nosuch:*\""),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn empty_date_range_says_the_keys_match_and_gives_their_dates() {
    let keys = daily_keys(&keyspace());
    let first = String::from_utf8_lossy(&keys[0][keys[0].len() - 8..]).into_owned();
    let last = String::from_utf8_lossy(&keys[29][keys[29].len() - 8..]).into_owned();
    let rdb = dump();
    let o = bitlens(
        &[
            "chart",
            "dau",
            "--rdb",
            rdb.to_str().unwrap(),
            "--svg",
            "/nonexistent/x.svg",
            "--from",
            "20990101",
        ],
        b"",
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "30 keys match \"stats:active:*\", but none is dated in the range 20990101 .. the end (they run from {first} to {last})"
        )),
        "{err}"
    );
}

/// Runs `bitlens chart KIND … ARGS`, which must fail without writing an SVG; returns stderr.
fn chart_error(kind: &str, args: &[&str]) -> String {
    let (o, svg) = run_chart(kind, args);
    assert!(
        !o.status.success(),
        "bitlens chart {kind} {args:?} succeeded"
    );
    assert!(svg.is_none(), "an SVG was written for {args:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_key_in_keys_is_refused_by_name() {
    let keys = daily_keys(&keyspace());
    let present = String::from_utf8_lossy(&keys[0]).into_owned();
    let list = format!("{present},stats:active:20990101");
    let err = chart_error("dau", &["--keys", &list]);
    assert!(
        err.contains("--keys: no key stats:active:20990101 in database 0"),
        "{err}"
    );
    // A name that needs quoting is shown as redis-cli shows it.
    let err = chart_error("streaks", &["--keys", "odd name"]);
    assert!(
        err.contains("--keys: no key \"odd name\" in database 0"),
        "{err}"
    );
    // Every key present: drawn (chart() checks the run and the SVG).
    chart("dau", &["--keys", &present]);
}

#[test]
fn sizes_and_day_counts_of_zero_are_refused() {
    for (kind, args) in [
        ("dau", ["--width", "0"]),
        ("dau", ["--height", "0"]),
        ("dau", ["--width", "99999"]),
        ("streaks", ["--days", "0"]),
        ("retention", ["--horizon", "0"]),
    ] {
        let err = chart_error(kind, &args);
        assert!(err.contains(args[0]), "{kind} {args:?}: {err}");
    }
    // The smallest accepted values draw.
    assert!(chart(
        "streaks",
        &["--days", "1", "--width", "100", "--height", "100"]
    )
    .starts_with("<svg"));
}

/// Days are checked as days, and an `enums` date or `--among` bitmap that names nothing is an
/// error that says what the keys are (new-user trial: `--date 2024-05-10` said no key matched
/// the pattern, `--among nosuch` drew an empty chart).
#[test]
fn dates_and_among_name_what_is_wrong() {
    for (kind, flag, day) in [
        ("enums", "--date", "2024-05-10"),
        ("enums", "--date", "20240599"),
        ("enums", "--date", "foo"),
        ("dau", "--from", "20240230"),
        ("dau", "--to", "2024051"),
    ] {
        let err = chart_error(kind, &[flag, day]);
        assert!(
            err.contains(flag) && err.contains("is not a day written YYYYMMDD"),
            "{flag} {day}: {err}"
        );
    }
    // A real day with no field key: the keys that match and their dates.
    let ks = keyspace();
    let levels = analytics::string_keys_matching(&ks, b"stats:level:*");
    let day = |k: &[u8]| String::from_utf8_lossy(&k[k.len() - 8..]).into_owned();
    let err = chart_error("enums", &["--date", "20991231"]);
    assert!(
        err.contains(&format!(
            "{} keys match \"stats:level:*\", but none is dated 20991231 (they run from {} to {})",
            levels.len(),
            day(&levels[0]),
            day(levels.last().unwrap())
        )),
        "{err}"
    );
    let err = chart_error("enums", &["--among", "nosuch"]);
    assert!(
        err.contains("--among: no key nosuch in database 0"),
        "{err}"
    );
    // A leap day is a day.
    chart("dau", &["--from", "20240229"]);
}
